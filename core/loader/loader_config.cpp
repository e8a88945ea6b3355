#include "core/loader/loader_config.h"

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
    if (config.prefetchFactor < 1)
        throw std::invalid_argument("prefetch factor must be at least 1 (got "
                                    + std::to_string(config.prefetchFactor) + ")");
}

} // namespace loaderlab
