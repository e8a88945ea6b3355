// EfficientNetV2-S as in torchvision 0.14 (BatchNorm eps 1e-3, SiLU, stochastic depth 0.2).
#pragma once

#include "core/torch/staged_model.h"

#include <cstdint>

namespace loaderlab::torchmodels {

// Stages: stem, every FusedMBConv / MBConv block, head (last 1x1 conv, pooling, dropout 0.2,
// classifier). Stochastic depth is active only in training mode.
StagedModel makeEfficientNetV2S(std::int64_t numClasses);

} // namespace loaderlab::torchmodels
