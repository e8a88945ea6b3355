// ResNet-18/34/50/101/152 as in torchvision 0.14 (v1.5: stride on the 3x3 conv of bottlenecks).
#pragma once

#include "core/torch/staged_model.h"

#include <cstdint>

namespace loaderlab::torchmodels {

// depth is 18, 34, 50, 101 or 152; throws std::invalid_argument otherwise.
// Stages: stem, every residual block ("layer1_0", ...), head.
StagedModel makeResNet(int depth, std::int64_t numClasses);

} // namespace loaderlab::torchmodels
