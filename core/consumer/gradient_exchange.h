#pragma once

// The data-parallel ranks' gradient exchange: after every step, each rank's gradient
// is all-reduced with every other rank's by a collective library, as
// DistributedDataParallel does, so that communication costs what it costs. core must
// not link LibTorch, so the exchange (c10d's ProcessGroupGloo,
// core/torch/gloo_exchange.cpp) registers its factory here: registerTorchConsumer()
// in tests, the loaderlab executable's registerTorchPlugin() (app/cli/torch_plugin.h),
// which loads LibTorch when the first group is made.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace loaderlab {

// One rank's side of the exchange; used by that rank's thread only.
class GradientExchange
{
public:
    virtual ~GradientExchange() = default;

    // All-reduces `bytes` of float32 gradient with every other rank's and averages it
    // (the sum over the ranks, divided by their number, as DDP averages gradients);
    // blocks until done, and every rank must call it the same number of times. The
    // gradient starts filled with (rank + 1), so after any exchange every element
    // holds (ranks + 1) / 2 on every rank. A new size takes a new buffer (refilled).
    // Throws when the collective fails (a peer gone, the timeout passed).
    virtual void allReduce(std::int64_t bytes) = 0;
    // An element of the gradient after the last exchange: (ranks + 1) / 2 when the
    // ranks exchanged, (rank + 1) before any exchange.
    virtual double sampleValue() const = 0;
};

// The ranks of one run: each rank's thread joins it once, all at about the same time
// (join() meets the other ranks, so it blocks until every rank has joined).
class ExchangeGroup
{
public:
    virtual ~ExchangeGroup() = default;
    virtual std::unique_ptr<GradientExchange> join(int rank) = 0;
    // The collective library and its transport, for the run's report ("gloo over
    // loopback TCP").
    virtual std::string description() const = 0;
};

// `backend`: "gloo" (CPU tensors, TCP) or "nccl" (CUDA GPUs). Throws with the reason
// when the backend cannot run here. `timeout`: how long a collective or the meeting
// of the ranks may take before it fails.
using ExchangeGroupFactory = std::unique_ptr<ExchangeGroup> (*)(int ranks,
                                                                const std::string &backend,
                                                                std::chrono::milliseconds timeout);

// Thread-safe; nullptr unregisters.
void setExchangeGroupFactory(ExchangeGroupFactory factory);
ExchangeGroupFactory exchangeGroupFactory();

// A group from the registered factory; throws when none is registered (a build
// without LibTorch) or the factory refuses.
std::unique_ptr<ExchangeGroup> makeExchangeGroup(int ranks, const std::string &backend,
                                                 std::chrono::milliseconds timeout);

// The backends a config may name.
bool isExchangeBackend(const std::string &name);

} // namespace loaderlab
