#include "core/config/loader_config.h"

#include "core/system/memory_budget.h"

#include <stdexcept>

namespace loaderlab {

const char *strategyName(Strategy strategy)
{
    return strategy == Strategy::PerWorkerBatch ? "per-worker" : "sample-parallel";
}

std::optional<Strategy> strategyFromName(const std::string &name)
{
    if (name == "per-worker")
        return Strategy::PerWorkerBatch;
    if (name == "sample-parallel")
        return Strategy::SampleParallel;
    return std::nullopt;
}

const char *badSamplePolicyName(BadSamplePolicy policy)
{
    return policy == BadSamplePolicy::Skip ? "skip" : "fail";
}

std::optional<BadSamplePolicy> badSamplePolicyFromName(const std::string &name)
{
    if (name == "skip")
        return BadSamplePolicy::Skip;
    if (name == "fail")
        return BadSamplePolicy::Fail;
    return std::nullopt;
}

void validate(const LoaderConfig &config)
{
    if (config.batchSize < 1)
        throw std::invalid_argument("batch size must be at least 1 (got "
                                    + std::to_string(config.batchSize) + ")");
    if (config.numWorkers < 0 || config.numWorkers > 1024)
        throw std::invalid_argument("number of workers must be 0..1024 (got "
                                    + std::to_string(config.numWorkers) + ")");
    // The loader's own threads (workers, the pin thread) and the thread that takes
    // the batches; the whole run's count is checked by checkRunThreads.
    const SystemLimit &threads = threadLimit();
    const std::int64_t loaderThreads = std::int64_t{config.numWorkers} + (config.pinMemory ? 1 : 0)
                                       + 1;
    if (loaderThreads > threads.value)
        throw std::invalid_argument("number of workers " + std::to_string(config.numWorkers)
                                    + ": the loader would start " + std::to_string(loaderThreads)
                                    + " threads, over the limit of " + std::to_string(threads.value)
                                    + " (" + threads.source + ")");
    if (config.prefetchFactor < 1)
        throw std::invalid_argument("prefetch factor must be at least 1 (got "
                                    + std::to_string(config.prefetchFactor) + ")");
}

} // namespace loaderlab
