#include "core/consumer/consumer.h"

#include "core/consumer/model_consumer_factory.h"
#include "core/loader/batch.h"
#include "core/loader/clock.h"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace loaderlab {
namespace {

// Pure loading: the batch is only touched so the measurement includes reading it.
class NoneConsumer final : public Consumer
{
public:
    explicit NoneConsumer(std::int64_t originNs)
        : m_originNs(originNs)
    {
    }
    std::string description() const override { return "none"; }
    void consume(const Batch &, TraceRecord &record, std::stop_token) override
    {
        record.computeStartNs = record.computeEndNs = steadyNowNs() - m_originNs;
    }

private:
    std::int64_t m_originNs;
};

// Stands in for a model's step: a ms per batch + b ms per sample, as in the
// research notes' "sleep" experiments. The wait is interruptible so stop is prompt
// even with multi-second steps.
class SleepConsumer final : public Consumer
{
public:
    SleepConsumer(const ConsumerConfig &config, std::int64_t originNs)
        : m_config(config)
        , m_originNs(originNs)
    {
    }

    std::string description() const override
    {
        std::ostringstream out;
        out << "sleep " << m_config.sleepPerBatchMs << " ms/batch + " << m_config.sleepPerSampleMs
            << " ms/sample";
        return out.str();
    }

    void consume(const Batch &batch, TraceRecord &record, std::stop_token stop) override
    {
        const double ms = m_config.sleepPerBatchMs + m_config.sleepPerSampleMs * batch.size();
        const auto start = std::chrono::steady_clock::now();
        record.computeStartNs =
            std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch()).count()
            - m_originNs;
        const auto until = start + std::chrono::nanoseconds(static_cast<std::int64_t>(ms * 1e6));
        std::mutex mutex;
        std::condition_variable_any cv;
        std::unique_lock lock(mutex);
        cv.wait_until(lock, stop, until, [] { return false; });
        record.computeEndNs = steadyNowNs() - m_originNs;
    }

private:
    ConsumerConfig m_config;
    std::int64_t m_originNs;
};

std::mutex g_modelFactoryMutex;
ModelConsumerFactory g_modelFactory = nullptr;
ModelCapabilities g_modelCapabilities;

} // namespace

ConsumerKind impliedConsumerKind(const ConsumerConfig &config, bool modelChosen, bool sleepChosen,
                                 ConsumerKind otherwise)
{
    if (modelChosen)
        return ConsumerKind::Model;
    if (sleepChosen && (config.sleepPerBatchMs > 0.0 || config.sleepPerSampleMs > 0.0))
        return ConsumerKind::Sleep;
    return otherwise;
}

const char *consumerKindName(ConsumerKind kind)
{
    switch (kind) {
    case ConsumerKind::None:
        return "none";
    case ConsumerKind::Sleep:
        return "sleep";
    case ConsumerKind::Model:
        return "model";
    }
    return "";
}

std::optional<ConsumerKind> consumerKindFromName(const std::string &name)
{
    if (name == "none")
        return ConsumerKind::None;
    if (name == "sleep")
        return ConsumerKind::Sleep;
    if (name == "model")
        return ConsumerKind::Model;
    return std::nullopt;
}

const char *modelModeName(ModelMode mode)
{
    return mode == ModelMode::Train ? "train" : "inference";
}

std::optional<ModelMode> modelModeFromName(const std::string &name)
{
    if (name == "inference")
        return ModelMode::Inference;
    if (name == "train")
        return ModelMode::Train;
    return std::nullopt;
}

const char *modelPrecisionName(ModelPrecision precision)
{
    switch (precision) {
    case ModelPrecision::Float32:
        return "fp32";
    case ModelPrecision::BFloat16:
        return "bf16";
    case ModelPrecision::Float16:
        return "fp16";
    }
    return "";
}

std::optional<ModelPrecision> modelPrecisionFromName(const std::string &name)
{
    if (name == "fp32")
        return ModelPrecision::Float32;
    if (name == "bf16")
        return ModelPrecision::BFloat16;
    if (name == "fp16")
        return ModelPrecision::Float16;
    return std::nullopt;
}

void setModelConsumerFactory(ModelConsumerFactory factory, ModelCapabilities capabilities)
{
    std::lock_guard lock(g_modelFactoryMutex);
    g_modelFactory = factory;
    g_modelCapabilities = factory ? std::move(capabilities) : ModelCapabilities{};
}

ModelConsumerFactory modelConsumerFactory()
{
    std::lock_guard lock(g_modelFactoryMutex);
    return g_modelFactory;
}

ModelCapabilities modelCapabilities()
{
    std::lock_guard lock(g_modelFactoryMutex);
    return g_modelCapabilities;
}

std::unique_ptr<Consumer> makeConsumer(const ConsumerConfig &config, std::int64_t originNs,
                                       std::stop_token stop)
{
    switch (config.kind) {
    case ConsumerKind::Sleep:
        return std::make_unique<SleepConsumer>(config, originNs);
    case ConsumerKind::Model:
        if (const ModelConsumerFactory factory = modelConsumerFactory())
            return factory(config, originNs, std::move(stop));
        throw std::invalid_argument("this build has no LibTorch models");
    case ConsumerKind::None:
        break;
    }
    return std::make_unique<NoneConsumer>(originNs);
}

} // namespace loaderlab
