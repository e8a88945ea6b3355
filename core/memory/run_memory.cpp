// Run memory estimate: what Loader, the datasets and the transforms allocate for a
// given configuration, and the refusal of a configuration over the budget. Every
// product saturates, so absurd settings give "more than 8 EiB", never a wrapped
// small number that would pass the check.

#include "core/memory/run_memory.h"

#include "core/system/memory_budget.h"

#include <algorithm>
#include <stdexcept>
#include <thread>
#include <utility>

namespace loaderlab {
namespace {

// Bytes of one entry of the epoch's sample order (std::int64_t).
constexpr std::int64_t kIndexBytes = 8;

// Defaults the "dominant setting" is judged against (LoaderConfig's, 3x224x224 float32).
constexpr double kDefaultBatchSize = 32.0;
constexpr double kDefaultSampleBytes = 3.0 * 224 * 224 * 4;
constexpr double kDefaultInFlight = 5.0;

std::string sampleText(const SampleShape &shape, DType dtype)
{
    return shapeToString(shape) + " " + dtypeName(dtype);
}

// A resize or crop of a kind with the image transform that the decoder could never
// have produced: the image after the transform would already be over the
// decompression-bomb guard.
void checkImageSizes(const DatasetConfig &config)
{
    if (!datasetKindInfo(config.kind).imageTransform)
        return;
    const std::pair<const char *, int> sizes[] = {{"dataset.resize", config.resizeSize},
                                                  {"dataset.crop", config.cropSize}};
    for (const auto &[setting, side] : sizes) {
        const std::int64_t pixels = saturatingMul(side, side);
        if (pixels > config.maxImagePixels) {
            throw std::invalid_argument(std::string(setting) + " " + std::to_string(side)
                                        + ": an image of " + std::to_string(side) + "x"
                                        + std::to_string(side) + " has " + std::to_string(pixels)
                                        + " pixels, over dataset.max_image_pixels "
                                        + std::to_string(config.maxImagePixels)
                                        + " (the largest image the decoder accepts)");
        }
    }
}

// Which setting makes the estimate large: the part that dominates the total and,
// for batch buffers, the factor furthest above its default.
std::string dominantSetting(const LoaderConfig &loader, const DatasetFootprint &dataset,
                            const MemoryEstimate &e)
{
    const std::int64_t largest = std::max(
        {e.batchBuffersBytes, e.datasetBytes, e.scratchBytes, e.indexBytes});
    if (largest == e.datasetBytes && e.datasetBytes > 0)
        return dataset.shapeSetting + " (held in memory)";
    if (largest == e.indexBytes && e.indexBytes > 0)
        return std::to_string(dataset.samples) + " samples";
    if (largest == e.scratchBytes && e.scratchBytes > 0)
        return "loader.num_workers " + std::to_string(loader.numWorkers);
    const double batchRatio = loader.batchSize / kDefaultBatchSize;
    const double sampleRatio = static_cast<double>(e.sampleBytes) / kDefaultSampleBytes;
    const double inFlightRatio = static_cast<double>(e.batchesInFlight) / kDefaultInFlight;
    if (inFlightRatio >= batchRatio && inFlightRatio >= sampleRatio && inFlightRatio > 1.0) {
        return "loader.num_workers " + std::to_string(loader.numWorkers)
               + " x loader.prefetch_factor " + std::to_string(loader.prefetchFactor)
               + (loader.pinMemory ? " with loader.pin_memory" : "");
    }
    if (batchRatio >= sampleRatio)
        return "loader.batch_size " + std::to_string(loader.batchSize);
    return dataset.shapeSetting;
}

std::string describe(const LoaderConfig &loader, int devices, std::int64_t replayBatches,
                     const DatasetFootprint &dataset, const MemoryEstimate &e)
{
    std::string text = "batch buffers: loader.batch_size " + std::to_string(loader.batchSize)
                       + " x " + sampleText(dataset.shape, dataset.dtype) + " ("
                       + formatBytes(e.sampleBytes) + ") = " + formatBytes(e.batchBytes)
                       + " per batch x " + std::to_string(e.batchesInFlight) + " in flight (";
    if (loader.numWorkers > 0) {
        text += "loader.num_workers " + std::to_string(loader.numWorkers)
                + " x loader.prefetch_factor " + std::to_string(loader.prefetchFactor)
                + " + 1 held by the consumer";
    } else {
        text += "loader.num_workers 0: the one the consumer loads";
    }
    if (devices > 1)
        text += ", x devices " + std::to_string(devices);
    text += std::string(loader.pinMemory ? ", x 2 for pin_memory copies" : "");
    if (replayBatches > 0)
        text += ", + replay_batches " + std::to_string(replayBatches);
    text += ") = " + formatBytes(e.batchBuffersBytes);
    if (e.datasetBytes > 0)
        text += "; dataset in memory " + formatBytes(e.datasetBytes);
    if (e.scratchBytes > 0)
        text += "; per-thread transform scratch " + formatBytes(e.scratchBytes);
    if (e.indexBytes > 0)
        text += "; sample order " + formatBytes(e.indexBytes);
    return text;
}

void checkEstimate(const RunConfig &config, const DatasetFootprint &dataset,
                   std::int64_t budgetBytes)
{
    const MemoryEstimate e = estimateRunMemory(config.loader, dataset, config.devices,
                                               config.replayBatches);
    if (e.totalBytes <= budgetBytes)
        return;
    const std::int64_t replay = config.replayBatches;
    const bool replayDominates = replay > 0 && replay * 2 >= e.batchesInFlight
                                 && e.batchBuffersBytes * 2 >= e.totalBytes;
    throw std::invalid_argument(
        (replayDominates ? "replay_batches " + std::to_string(replay)
                         : dominantSetting(config.loader, dataset, e))
        + ": the run needs about " + formatBytes(e.totalBytes)
        + " of host memory, over the memory budget of " + formatBytes(budgetBytes)
        + " (set --memory-budget MB or memory_budget_mb in the config). Estimate: "
        + describe(config.loader, config.devices, replay, dataset, e));
}

} // namespace

MemoryEstimate estimateRunMemory(const LoaderConfig &loader, const DatasetFootprint &dataset,
                                 int devices, std::int64_t replayBatches)
{
    MemoryEstimate e;
    e.sampleBytes = sampleBytesOf(dataset.shape, dataset.dtype);
    e.batchBytes = saturatingMul(std::max(loader.batchSize, 0), e.sampleBytes);
    // Loader dispatches W x prefetch_factor batches, each holding a pooled buffer from
    // dispatch to delivery, and refills the window as it hands one over, so the
    // consumer's batch is one more. With pin_memory every one of them may also hold
    // its page-locked copy (the pinned pool has the same bound).
    const std::int64_t workers = std::max(loader.numWorkers, 0);
    const std::int64_t window = saturatingMul(workers, std::max(loader.prefetchFactor, 0));
    // Every data-parallel rank has a loader of its own.
    e.batchesInFlight = saturatingMul(
        saturatingMul(workers > 0 ? saturatingAdd(window, 1) : 1, loader.pinMemory ? 2 : 1),
        std::max(devices, 1));
    // A replay keeps its batches while the loader's window is still in flight.
    e.batchesInFlight = saturatingAdd(e.batchesInFlight, std::max<std::int64_t>(replayBatches, 0));
    e.batchBuffersBytes = saturatingMul(e.batchesInFlight, e.batchBytes);
    e.datasetBytes = dataset.residentBytes;
    e.scratchBytes = saturatingMul(
        saturatingMul(std::max<std::int64_t>(workers, 1), std::max(devices, 1)),
        dataset.scratchPerThreadBytes);
    e.indexBytes = saturatingMul(dataset.samples, kIndexBytes);
    e.totalBytes = saturatingAdd(saturatingAdd(e.batchBuffersBytes, e.datasetBytes),
                                 saturatingAdd(e.scratchBytes, e.indexBytes));
    return e;
}

ThreadEstimate estimateRunThreads(const RunConfig &config)
{
    const std::int64_t devices = std::max(config.devices, 1);
    const std::int64_t workers = std::max(config.loader.numWorkers, 0);
    const std::int64_t perRank = workers + (config.loader.pinMemory ? 1 : 0) + 1;
    std::int64_t model = 0;
    if (config.consumer.kind == ConsumerKind::Model) {
        model = config.consumer.model.threads > 0
                    ? config.consumer.model.threads
                    : std::max<std::int64_t>(1, std::thread::hardware_concurrency());
    }
    ThreadEstimate e;
    e.total = saturatingAdd(saturatingAdd(saturatingMul(devices, perRank), model),
                            kRunHelperThreads);
    e.text = "devices " + std::to_string(devices) + " x (loader.num_workers "
             + std::to_string(workers) + (config.loader.pinMemory ? " + 1 pin thread" : "")
             + " + 1 stepping thread)";
    if (model > 0)
        e.text += " + consumer.model.threads " + std::to_string(model)
                  + (config.consumer.model.threads > 0 ? "" : " (0: one per core)");
    e.text += " + " + std::to_string(kRunHelperThreads) + " run-wide = " + std::to_string(e.total)
              + " threads";
    return e;
}

void checkRunThreads(const RunConfig &config, const SystemLimit &limit)
{
    const ThreadEstimate e = estimateRunThreads(config);
    if (limit.value <= 0 || e.total <= limit.value)
        return;
    throw std::invalid_argument(
        "devices " + std::to_string(config.devices) + " with loader.num_workers "
        + std::to_string(config.loader.numWorkers) + ": the run would start "
        + std::to_string(e.total) + " threads, over the limit of " + std::to_string(limit.value)
        + " (" + limit.source + "). Threads: " + e.text + ". Use fewer workers or fewer devices.");
}

void checkRunMemory(const RunConfig &config, std::int64_t budgetBytes)
{
    checkRunThreads(config, threadLimit());
    checkImageSizes(config.dataset);
    if (const auto footprint = peekDatasetFootprint(config.dataset))
        checkEstimate(config, *footprint, budgetBytes);
}

void checkRunMemory(const RunConfig &config, const Dataset &dataset, std::int64_t budgetBytes)
{
    checkRunThreads(config, threadLimit());
    checkImageSizes(config.dataset);
    checkEstimate(config, datasetFootprint(config.dataset, dataset), budgetBytes);
}

} // namespace loaderlab
