#pragma once

// Consumer: what the run does with each delivered batch. "none" measures pure
// loading, "sleep" stands in for a model's step (a ms per batch + b ms per sample),
// and "model" runs a LibTorch model (core/torch/torch_consumer.h), plugged in through
// core/consumer/model_consumer_factory.h so that core never links LibTorch.

#include "core/config/consumer_config.h"
#include "core/record/trace_record.h"

#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>

namespace loaderlab {

class Batch;

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
