#pragma once

// The model alone, without the loader: the timed steps behind `loaderlab bench-model`.
// A torch-free header, so the command line (Qt code) can call it.

#include "core/consumer/consumer.h"

#include <cstdint>

namespace loaderlab::torchmodels {

struct ModelBenchRow
{
    int batchSize = 0;
    double batchMsMean = 0.0;
    double batchMsMin = 0.0;
    double itemMs = 0.0;
    double samplesPerSec = 0.0;
    std::int64_t peakMemoryBytes = 0;
    // The process's minor page faults (memory the kernel mapped in) a timed step.
    double pageFaultsPerStep = 0.0;
};

// Builds the model of `config`, runs `warmup` untimed and `iterations` timed steps on
// random input [batchSize, 3, imageSize, imageSize] (seed 0) and returns the figures.
// Throws std::invalid_argument for a model that cannot be built and
// std::runtime_error with the first line of LibTorch's message when a step fails.
ModelBenchRow benchModelStep(const ConsumerConfig &config, int batchSize, int imageSize, int warmup,
                             int iterations);

// LibTorch's intra-op thread count, as the steps ran with it.
int intraOpThreads();

} // namespace loaderlab::torchmodels
