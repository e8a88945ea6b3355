#pragma once

// A run whose best setting is known in advance, for the autotuner's tests on real
// runs: tiny synthetic samples (loading costs next to nothing) and a fixed sleep per
// batch whatever its size, so samples/s grows with the batch size; from 1 worker and
// batch 8, the tuner may change the batch size within 8..32 and nothing else.

#include "core/autotune/autotuner.h"
#include "core/config/run_config.h"

namespace knownbest {

inline loaderlab::RunConfig run(loaderlab::EngineKind engine, double stepMs)
{
    loaderlab::RunConfig config;
    config.engine = engine;
    config.dataset.syntheticShape = {3, 8, 8};
    config.loader.numWorkers = 1;
    config.loader.batchSize = 8;
    config.consumer.kind = loaderlab::ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = stepMs;
    config.epochs = 0;
    return config;
}

inline loaderlab::AutotuneOptions options(bool model)
{
    loaderlab::AutotuneOptions options;
    options.model = model;
    options.tuneBatch = true;
    options.maxWorkers = 1;
    options.minBatch = 8;
    options.maxBatch = 32;
    return options;
}

} // namespace knownbest
