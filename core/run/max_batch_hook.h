#pragma once

// Where the max batch finder registers for code that cannot link LibTorch (the window's
// Experiments view). core/torch/max_batch_finder.h is free of LibTorch types but its
// code lives in core/torch, which the loaderlab executable loads as a plugin when a
// model is first asked for (app/cli/torch_plugin.h); so main() hands over a finder that
// loads it, as it registers the model consumer (core/consumer/model_consumer_factory.h),
// and the window asks for it.

#include "core/torch/max_batch_finder.h"

#include <functional>
#include <stop_token>

namespace loaderlab {

// Same contract as torchmodels::findMaxBatch: throws std::invalid_argument for a model
// that cannot be built; a stop gives a report with SearchEnd::Stopped.
using MaxBatchFinderHook = std::function<torchmodels::MaxBatchReport(
    const torchmodels::MaxBatchRequest &request, std::stop_token stop,
    const AttemptCallback &onAttempt)>;

// Thread-safe; an empty hook unregisters.
void setMaxBatchFinderHook(MaxBatchFinderHook hook);
// Empty in a build (or a process) without LibTorch.
MaxBatchFinderHook maxBatchFinderHook();

} // namespace loaderlab
