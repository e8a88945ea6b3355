#pragma once

// Consumer: what the run does with each delivered batch. "none" measures pure
// loading, "sleep" stands in for a model's step (a ms per batch + b ms per sample),
// and model consumers (LibTorch) plug in through the same interface.

#include "core/trace/trace_record.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

namespace loaderlab {

class Batch;

enum class ConsumerKind { None, Sleep };

struct ConsumerConfig
{
    ConsumerKind kind = ConsumerKind::None;
    double sleepPerBatchMs = 0.0;
    double sleepPerSampleMs = 0.0;

    bool operator==(const ConsumerConfig &) const = default;
};

const char *consumerKindName(ConsumerKind kind);   // "none", "sleep"
std::optional<ConsumerKind> consumerKindFromName(const std::string &name);

class Consumer
{
public:
    virtual ~Consumer() = default;

    virtual std::string description() const = 0;

    // Runs on the run thread for every delivered batch. Stamps copy and compute
    // start/end into `record`. Must return promptly once `stop` is requested.
    virtual void consume(const Batch &batch, TraceRecord &record, std::stop_token stop) = 0;
};

// `originNs`: the steady-clock time the trace's timestamps are relative to.
std::unique_ptr<Consumer> makeConsumer(const ConsumerConfig &config, std::int64_t originNs);

} // namespace loaderlab
