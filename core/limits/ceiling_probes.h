#pragma once

// The probes behind measureCeilings() (core/limits/ceilings.h), one a stage: each runs
// for about `seconds` (fewer when the data runs out) and returns its ceiling, or a
// ceiling with no rate and the reason in its basis. Each ends promptly on `stop`.

#include "core/config/run_config.h"
#include "core/dataset/dataset.h"
#include "core/limits/ceilings.h"

#include <stop_token>
#include <string>

namespace loaderlab {

// What the machine left to the run while a probe ran.
struct FreeCores
{
    int cores = 0;
    double free = 0.0; // cores less other programs' busy cores and the host's steal
};

Ceiling probeStorage(const Dataset &dataset, double seconds, std::stop_token stop);
Ceiling probeDecode(const Dataset &dataset, double seconds, std::stop_token stop,
                    FreeCores &freeCores);
Ceiling probeHandover(const LoaderConfig &loader, double seconds, std::stop_token stop);
Ceiling probeStep(const DatasetPtr &dataset, const RunConfig &config, double seconds,
                  std::stop_token stop);
Ceiling probePreprocessed(const DatasetConfig &dataset, std::int64_t images,
                          const FreeCores &freeCores, double seconds,
                          const std::string &keepTensorFile, std::stop_token stop);

// What the calling thread loaded of `dataset` in about `seconds` (at least 3 samples
// after 2 of warm-up), visiting its samples spread over the whole dataset from `first`,
// and the CPU time that took.
struct ThreadLoads
{
    std::int64_t samples = 0;
    double cpuSeconds = 0.0;

    double perCpuSecond() const
    {
        return cpuSeconds > 0.0 ? static_cast<double>(samples) / cpuSeconds : 0.0;
    }
};
ThreadLoads timedLoads(const Dataset &dataset, double seconds, std::stop_token stop,
                       std::int64_t first = 0);

} // namespace loaderlab
