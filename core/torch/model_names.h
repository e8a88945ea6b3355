// Names of the built-in LibTorch models. Deliberately torch-free so Qt code (model pickers,
// CLI help) can list the models without pulling in LibTorch headers.
#pragma once

#include <string>
#include <vector>

namespace loaderlab::torchmodels {

// In display order; every name is accepted by makeModel() (core/torch/model_zoo.h).
std::vector<std::string> builtinModelNames();

} // namespace loaderlab::torchmodels
