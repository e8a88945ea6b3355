// The built-in model zoo: torchvision-equivalent architectures, randomly initialised (no weight
// downloads), built by name.
#pragma once

#include "core/torch/staged_model.h"

#include <torch/nn/module.h>

#include <cstdint>
#include <string>

namespace loaderlab::torchmodels {

// name is one of builtinModelNames(); throws std::invalid_argument
// ("unknown model 'x' (known: resnet18, ...)") otherwise.
StagedModel makeModel(const std::string &name, std::int64_t numClasses = 1000);

// Number of scalar parameters (not buffers), as sum(p.numel() for p in model.parameters()).
std::int64_t parameterCount(const torch::nn::Module &module);

} // namespace loaderlab::torchmodels
