#include "core/loader/batch_builder.h"

#include "core/system/clock.h"

#include <algorithm>
#include <cstring>

namespace loaderlab {

PendingBatch::PendingBatch(BatchPtr batchIn, std::vector<std::int64_t> indicesIn,
                           std::int64_t ordinalIn, int epochIn, int workers)
    : batch(std::move(batchIn))
    , indices(std::move(indicesIn))
    , ok(indices.size(), 0)
    , ordinal(ordinalIn)
    , epoch(epochIn)
    , remaining(static_cast<int>(indices.size()))
    , workerStartNs(static_cast<std::size_t>(std::max(workers, 1)), 0)
    , workerEndNs(static_cast<std::size_t>(std::max(workers, 1)), 0)
{
}

BatchBuilder::BatchBuilder(const Dataset &dataset, const LoaderConfig &config,
                           std::int64_t originNs)
    : m_dataset(dataset)
    , m_config(config)
    , m_originNs(originNs)
{
}

std::int64_t BatchBuilder::now() const
{
    return steadyNowNs() - m_originNs;
}

bool BatchBuilder::loadSlot(PendingBatch &pending, int slot, int worker) const
{
    const auto w = static_cast<std::size_t>(std::max(worker, 0));
    const std::int64_t start = now();
    if (pending.workerStartNs[w] == 0)
        pending.workerStartNs[w] = start;
    SampleContext context{m_config.seed, pending.epoch, {}};
    const std::int64_t index = pending.indices[static_cast<std::size_t>(slot)];
    std::string error;
    std::string source;
    try {
        pending.batch->labels[static_cast<std::size_t>(slot)] = m_dataset.load(
            index, pending.batch->sampleSlot(slot), context);
        pending.ok[static_cast<std::size_t>(slot)] = 1;
    } catch (const SampleError &e) {
        source = e.source();
        error = e.reason();
    } catch (const std::exception &e) {
        // A dataset bug or an allocation failure must not kill the worker either.
        source = m_dataset.description() + " sample " + std::to_string(index);
        error = e.what();
    }
    pending.readNs.fetch_add(context.timing.readNs, std::memory_order_relaxed);
    pending.decodeNs.fetch_add(context.timing.decodeNs, std::memory_order_relaxed);
    pending.transformNs.fetch_add(context.timing.transformNs, std::memory_order_relaxed);
    pending.workerEndNs[w] = now();
    if (error.empty())
        return true;
    std::lock_guard lock(pending.errorMutex);
    pending.batch->skipped.push_back({0, index, source, error});
    if (m_config.badSamples == BadSamplePolicy::Fail) {
        if (pending.batch->failure.empty())
            pending.batch->failure = source + ": " + error;
        return false;
    }
    return true;
}

BatchPtr BatchBuilder::finish(PendingBatch &pending, int worker) const
{
    Batch &batch = *pending.batch;
    const std::int64_t collateStart = now();
    // Samples were decoded straight into their slots; collating only closes the
    // gaps that skipped samples left, so a clean batch is never copied.
    const std::size_t bytes = batch.sampleBytes();
    int kept = 0;
    for (int slot = 0; slot < static_cast<int>(pending.ok.size()); ++slot) {
        if (!pending.ok[static_cast<std::size_t>(slot)])
            continue;
        if (kept != slot) {
            std::memmove(batch.sampleSlot(kept).data(), batch.sampleSlot(slot).data(), bytes);
            batch.labels[static_cast<std::size_t>(kept)] =
                batch.labels[static_cast<std::size_t>(slot)];
        }
        batch.sampleIndices.push_back(pending.indices[static_cast<std::size_t>(slot)]);
        ++kept;
    }
    batch.labels.resize(static_cast<std::size_t>(kept));
    const std::int64_t end = now();

    TraceRecord &trace = batch.trace;
    trace.epoch = pending.epoch;
    trace.worker = worker;
    trace.samples = kept;
    trace.skipped = static_cast<int>(batch.skipped.size());
    trace.loadStartNs = end;
    for (std::size_t w = 0; w < pending.workerStartNs.size(); ++w) {
        if (pending.workerStartNs[w] == 0)
            continue;
        trace.loadStartNs = std::min(trace.loadStartNs, pending.workerStartNs[w]);
        const int spanWorker = worker == kAllWorkers ? static_cast<int>(w) : worker;
        batch.spans.push_back({0, spanWorker, 0, pending.workerStartNs[w], pending.workerEndNs[w]});
    }
    trace.loadEndNs = end;
    trace.readNs = pending.readNs.load(std::memory_order_relaxed);
    trace.decodeNs = pending.decodeNs.load(std::memory_order_relaxed);
    trace.transformNs = pending.transformNs.load(std::memory_order_relaxed);
    trace.collateNs = end - collateStart;
    return std::move(pending.batch);
}

BatchPtr BatchBuilder::buildWhole(std::unique_ptr<PendingBatch> pending, int worker,
                                  std::stop_token stop) const
{
    const int count = static_cast<int>(pending->indices.size());
    for (int slot = 0; slot < count; ++slot) {
        if (stop.stop_requested())
            return nullptr;
        if (!loadSlot(*pending, slot, 0))
            break;
    }
    return finish(*pending, worker);
}

} // namespace loaderlab
