#include "core/consumer/consumer.h"

#include "core/loader/batch.h"
#include "core/loader/clock.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <sstream>

namespace loaderlab {
namespace {

// Pure loading: the batch is only touched so the measurement includes reading it.
class NoneConsumer final : public Consumer
{
public:
    explicit NoneConsumer(std::int64_t originNs) : m_originNs(originNs) {}
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
        record.computeStartNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    start.time_since_epoch()).count() - m_originNs;
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

} // namespace

const char *consumerKindName(ConsumerKind kind)
{
    return kind == ConsumerKind::None ? "none" : "sleep";
}

std::optional<ConsumerKind> consumerKindFromName(const std::string &name)
{
    if (name == "none")
        return ConsumerKind::None;
    if (name == "sleep")
        return ConsumerKind::Sleep;
    return std::nullopt;
}

std::unique_ptr<Consumer> makeConsumer(const ConsumerConfig &config, std::int64_t originNs)
{
    if (config.kind == ConsumerKind::Sleep)
        return std::make_unique<SleepConsumer>(config, originNs);
    return std::make_unique<NoneConsumer>(originNs);
}

} // namespace loaderlab
