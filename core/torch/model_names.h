// Names of the built-in LibTorch models and what a CPU-only LibTorch can run. Deliberately
// torch-free so Qt code (model pickers, CLI help) and the executable, before it loads the
// LibTorch plugin, know the models without LibTorch.
#pragma once

#include "core/consumer/model_consumer_factory.h"

#include <string>
#include <vector>

namespace loaderlab::torchmodels {

// In display order; every name is accepted by makeModel() (core/torch/model_zoo.h).
std::vector<std::string> builtinModelNames();

// The built-in models, no CUDA: what a LibTorch built without CUDA (Debian's, version
// `torchVersion`) can run, known from the build.
ModelCapabilities cpuOnlyCapabilities(const std::string &torchVersion);

} // namespace loaderlab::torchmodels
