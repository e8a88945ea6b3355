#pragma once

// BatchBuilder: loads samples into their slots of a batch buffer and finishes the
// batch (compaction of skipped samples, labels, timing). Shared by every strategy
// and by the consumer thread when there are no workers.

#include "core/config/loader_config.h"
#include "core/dataset/dataset.h"
#include "core/loader/batch.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stop_token>
#include <vector>

namespace loaderlab {

// A batch whose samples are being built, possibly by several workers at once
// (sample-parallel). Each slot is written by exactly one thread; the shared
// counters are atomics, and the last slot to finish completes the batch.
struct PendingBatch
{
    PendingBatch(BatchPtr batch, std::vector<std::int64_t> indices, std::int64_t ordinal, int epoch,
                 int workers);

    BatchPtr batch;
    std::vector<std::int64_t> indices;
    std::vector<char> ok; // per slot: loaded successfully
    std::int64_t ordinal; // position in the epoch since (re)start
    int epoch;
    std::atomic<int> remaining;
    std::atomic<std::int64_t> readNs{0};
    std::atomic<std::int64_t> decodeNs{0};
    std::atomic<std::int64_t> transformNs{0};
    std::vector<std::int64_t> workerStartNs; // per worker, written only by that worker
    std::vector<std::int64_t> workerEndNs;
    std::mutex errorMutex; // guards batch->skipped and batch->failure
};

class BatchBuilder
{
public:
    BatchBuilder(const Dataset &dataset, const LoaderConfig &config, std::int64_t originNs);

    // Loads slot `slot` on worker `worker` (index into the per-worker span arrays).
    // Returns false when the batch must be abandoned (fail policy hit).
    bool loadSlot(PendingBatch &pending, int slot, int worker) const;

    // Compacts away skipped slots, fills labels and the trace's load figures.
    // `worker` is the trace's worker field.
    BatchPtr finish(PendingBatch &pending, int worker) const;

    // Loads a whole batch on one thread; nullptr if stopped mid-way.
    BatchPtr buildWhole(std::unique_ptr<PendingBatch> pending, int worker,
                        std::stop_token stop) const;

    std::int64_t now() const;

private:
    const Dataset &m_dataset;
    LoaderConfig m_config;
    std::int64_t m_originNs;
};

} // namespace loaderlab
