// Fuzz target: the PyTorch engine's channel (core/engine/pytorch/pytorch_channel.h), read as
// PyTorchRun reads the engine's records pipe: ChannelLineSplitter, then
// parseEngineRecord on each line with the records so far (acceptEngineRecord). The
// input is the stream; the run is fixed: times in [1000, 10^12], batch size 8, 2
// workers, 3 epochs, 100 batches at most, and LoaderLab has sent 3 live changes
// (a "reconfigured" record may name any of them once, then sets the batch size and
// workers the next batches are checked against). Refusals are ChannelError; after one, the
// next lines are still parsed (PyTorchRun stops at the first) to reach more states.
// An accepted batch must keep the promises PyTorchRun relies on; anything else
// escaping, or a sanitizer report, is a bug.

#include "core/engine/pytorch/pytorch_channel.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

namespace {

void check(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "accepted batch breaks a promise: %s\n", what);
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace loaderlab;
    ChannelContext context;
    context.earliestNs = 1000;
    context.latestNs = 1'000'000'000'000;
    context.batchSize = 8;
    context.workers = 2;
    context.epochs = 3;
    context.maxBatches = 100;
    context.requestedVersion = 3;
    // A small line limit, so that the fuzzer meets it.
    ChannelLineSplitter lines(4096);
    const auto onLine = [&](std::string_view line) {
        try {
            const EngineRecord record = parseEngineRecord(line, context);
            if (const auto *b = std::get_if<ChannelBatch>(&record)) {
                check(b->index == context.batches, "index");
                check(b->epoch >= context.epoch && b->epoch < 3, "epoch");
                check(b->replayed == context.replaying, "replayed only after the replay record");
                // A replayed batch was built by no worker.
                check(b->replayed || context.workers == 0
                          ? b->worker == -1
                          : b->worker >= 0 && b->worker < context.workers,
                      "worker");
                check(b->samples >= 1 && b->samples <= context.batchSize, "samples");
                check(b->version == context.version, "version in force");
                check(b->first == (b->epoch == context.epoch ? context.epochSamples : 0),
                      "first where the epoch was");
                // A replayed batch keeps its size past the epoch's order.
                check(b->replayed || b->first + b->samples <= context.datasetSamples,
                      "within the dataset");
                check(b->ids >= 0 && static_cast<std::uint64_t>(b->ids) < kEngineIdsModulus, "ids");
                check(!context.paused, "not paused");
                check(b->loadStartNs >= context.earliestNs && b->computeEndNs <= context.latestNs,
                      "times in range");
                check(b->loadStartNs <= b->collateStartNs && b->collateStartNs <= b->loadEndNs
                          && b->requestNs <= b->deliveryNs && b->deliveryNs <= b->computeStartNs
                          && b->computeStartNs <= b->computeEndNs,
                      "times in order");
                check(b->readNs >= 0 && b->decodeNs >= 0 && b->transformNs >= 0
                          && b->readNs + b->decodeNs + b->transformNs
                                 <= b->loadEndNs - b->loadStartNs,
                      "sums within the load");
            }
            if (const auto *replay = std::get_if<ChannelReplay>(&record)) {
                check(replay->index == context.batches && replay->batches >= 1
                          && replay->batches <= std::max<std::int64_t>(context.batches, 1)
                          && !context.replaying && !context.paused,
                      "replay");
            }
            if (const auto *r = std::get_if<ChannelReconfigured>(&record)) {
                check(r->version > context.answeredVersion && r->version <= 3, "version");
                check(r->batchSize >= 1 && r->batchSize <= kMaxEngineBatchSize && r->workers >= 0
                          && r->workers <= kMaxEngineWorkers,
                      "settings in range");
            }
            acceptEngineRecord(context, record);
            (void)quoteEngineLine(line);
        } catch (const ChannelError &) {
        }
    };
    const std::string_view stream(reinterpret_cast<const char *>(data), size);
    // In two pieces, as reads from a pipe come.
    const std::size_t half = size / 2;
    try {
        lines.feed(stream.substr(0, half), onLine);
        lines.feed(stream.substr(half), onLine);
    } catch (const ChannelError &) {
        check(lines.pending().size() <= 4096, "pending within the limit");
    }
    return 0;
}
