#pragma once

// Consumer: what the run does with each delivered batch. "none" measures pure
// loading, "sleep" stands in for a model's step (a ms per batch + b ms per sample),
// and "model" runs a LibTorch model (core/torch/torch_consumer.h), plugged in through
// core/consumer/model_consumer_factory.h so that core never links LibTorch.

#include "core/trace/trace_record.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

namespace loaderlab {

class Batch;

enum class ConsumerKind { None, Sleep, Model };

enum class ModelMode { Inference, Train };
enum class ModelPrecision { Float32, BFloat16, Float16 };

// What the "model" consumer runs and how. Plain data: no LibTorch types.
struct ModelConfig
{
    std::string name = "resnet18"; // a built-in model (core/torch/model_names.h)
    std::string scriptPath;        // a TorchScript file; when set it replaces `name`
    ModelMode mode = ModelMode::Inference;
    std::string device = "cpu"; // "cpu", "cuda" or "cuda:N"
    ModelPrecision precision = ModelPrecision::Float32;
    bool channelsLast = false;
    int threads = 0;               // intra-op threads; 0 = all cores
    bool checkpointing = false;    // activation checkpointing per stage (train)
    std::string optimizer = "sgd"; // "sgd" or "adam" (train)
    double learningRate = 0.01;
    int numClasses = 1000;

    bool operator==(const ModelConfig &) const = default;
};

struct ConsumerConfig
{
    ConsumerKind kind = ConsumerKind::None;
    double sleepPerBatchMs = 0.0;
    double sleepPerSampleMs = 0.0;
    ModelConfig model;

    bool operator==(const ConsumerConfig &) const = default;
};

// The step that settings imply when the kind itself is not given (the window has no
// kind control; `loaderlab run` without --consumer): the model when one is chosen,
// else the simulated step when its settings were given and take time, else
// `otherwise`.
ConsumerKind impliedConsumerKind(const ConsumerConfig &config, bool modelChosen, bool sleepChosen,
                                 ConsumerKind otherwise);

const char *consumerKindName(ConsumerKind kind); // "none", "sleep", "model"
std::optional<ConsumerKind> consumerKindFromName(const std::string &name);
const char *modelModeName(ModelMode mode); // "inference", "train"
std::optional<ModelMode> modelModeFromName(const std::string &name);
const char *modelPrecisionName(ModelPrecision precision); // "fp32", "bf16", "fp16"
std::optional<ModelPrecision> modelPrecisionFromName(const std::string &name);

class Consumer
{
public:
    virtual ~Consumer() = default;

    virtual std::string description() const = 0;

    // Runs on the run thread for every delivered batch. Stamps copy and compute
    // start/end into `record`. Must return promptly once `stop` is requested.
    virtual void consume(const Batch &batch, TraceRecord &record, std::stop_token stop) = 0;

    // Highest memory use of a step so far, in bytes (device memory on CUDA, the
    // process's peak resident set on CPU); 0 when the consumer does not measure it.
    virtual std::int64_t peakMemoryBytes() const { return 0; }
};

// `originNs`: the steady-clock time the trace's timestamps are relative to.
// ConsumerKind::Model needs a factory registered with setModelConsumerFactory()
// (core/consumer/model_consumer_factory.h); without one it throws
// std::invalid_argument("this build has no LibTorch models").
// `stop` cancels a model build that takes long (the factory throws once it is set).
std::unique_ptr<Consumer> makeConsumer(const ConsumerConfig &config, std::int64_t originNs,
                                       std::stop_token stop = {});

} // namespace loaderlab
