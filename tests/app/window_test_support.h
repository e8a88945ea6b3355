#pragma once

// What the window tests share: a fast run (small synthetic samples, a 1 ms simulated
// step). Named children: childNamed<T> (tests/support/widget_child.h).

#include "core/config/run_config.h"

#include "tests/support/widget_child.h"

namespace windowtest {

// Small synthetic samples: the engine runs flat out, the window must keep up.
inline loaderlab::RunConfig fastConfig(int workers, int samples)
{
    loaderlab::RunConfig config;
    config.dataset.kind = loaderlab::DatasetKind::Synthetic;
    config.dataset.syntheticShape = {3, 32, 32};
    config.dataset.syntheticSamples = samples;
    config.loader.numWorkers = workers;
    config.loader.batchSize = 16;
    config.consumer.kind = loaderlab::ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 1.0;
    return config;
}

} // namespace windowtest
