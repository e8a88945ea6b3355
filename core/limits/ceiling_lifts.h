#pragma once

// What lifting a ceiling would give the whole job, predicted by the loader model
// (core/predict/loader_model.h) from the ceilings measured: the decode's CPU time a
// sample, the hand-over's time a batch and the step's, with the run's workers, batch
// size, prefetch and strategy on the free cores. Each lift changes one thing: a worker
// more, a core more, preprocessed tensors instead of decoding, a step twice as fast.
// The storage ceiling is not in the model (it models no disk): a prediction above it is
// cut to it, and says so.

#include "core/config/run_config.h"
#include "core/limits/ceilings.h"

#include <vector>

namespace loaderlab {

// The job as set first, then each lift the measured ceilings allow; empty when the
// decode or the step was not measured (nothing to predict from).
std::vector<PredictedLift> predictLifts(const CeilingReport &report, const RunConfig &config);

} // namespace loaderlab
