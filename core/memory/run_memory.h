#pragma once

// The host memory a run will need at its peak, estimated from its settings and
// the dataset's sample size, and the check that refuses a run whose estimate is
// over the memory budget, before the loader allocates anything. The formula is
// documented in docs/limits.md (Memory); it follows what Loader allocates:
//
//   batch buffer          = batch_size x sample bytes (C x H x W x dtype size)
//   batches in flight     = num_workers x prefetch_factor + 1 (held by the consumer),
//                           or 1 with num_workers 0; doubled with pin_memory (each
//                           may also hold its page-locked copy); plus replay_batches
//   dataset in memory     = synthetic pool (min(samples, 64) samples), IDX pixels,
//                           CIFAR-10 records
//   worker scratch        = per loading thread: the image folder's transformed image
//   sample index list     = 8 bytes per dataset sample (the epoch's order)

#include "core/config/run_config.h"
#include "core/dataset/dataset.h"
#include "core/memory/dataset_footprint.h"
#include "core/system/memory_budget.h"

#include <cstdint>
#include <string>

namespace loaderlab {

// Peak host memory of a run, in parts, each saturated at kBytesUnbounded.
struct MemoryEstimate
{
    std::int64_t sampleBytes = 0;
    std::int64_t batchBytes = 0;
    std::int64_t batchesInFlight = 0; // buffers alive at the peak, pinned copies included
    std::int64_t batchBuffersBytes = 0;
    std::int64_t datasetBytes = 0;
    std::int64_t scratchBytes = 0;
    std::int64_t indexBytes = 0;
    std::int64_t totalBytes = 0;
};

// `devices`: data-parallel ranks, each with its own loader (buffers and scratch).
// `replayBatches`: the batches a replay keeps (RunConfig::replayBatches).
MemoryEstimate estimateRunMemory(const LoaderConfig &loader, const DatasetFootprint &dataset,
                                 int devices = 1, std::int64_t replayBatches = 0);

// The threads a run starts, from its settings (docs/limits.md, "Memory budget and
// thread limits"):
//
//   devices x (num_workers + 1 pin thread with pin_memory + 1 thread that steps)
//   + the model's intra-op threads (consumer.model.threads, 0: one per core)
//   + kRunHelperThreads run-wide (the time limit, the CSV writer, the autotuner)
inline constexpr std::int64_t kRunHelperThreads = 3;
struct ThreadEstimate
{
    std::int64_t total = 0;
    std::string text; // the formula with this run's settings
};
ThreadEstimate estimateRunThreads(const RunConfig &config);

// Throws std::invalid_argument naming the settings, the count and the limit when the
// run would start more threads than `limit` allows.
void checkRunThreads(const RunConfig &config, const SystemLimit &limit);

// Throws std::invalid_argument naming the setting that dominates, the estimate and
// the budget when the run's estimate is over `budgetBytes`, and for an image-folder
// resize or crop whose image alone would be over dataset.max_image_pixels. Both
// forms also check the thread count against threadLimit() (checkRunThreads).
// The first form runs before openDataset (a synthetic dataset allocates its pool
// and an IDX dataset inflates its file when opened); the second once the dataset
// is open.
void checkRunMemory(const RunConfig &config, std::int64_t budgetBytes);
void checkRunMemory(const RunConfig &config, const Dataset &dataset, std::int64_t budgetBytes);

} // namespace loaderlab
