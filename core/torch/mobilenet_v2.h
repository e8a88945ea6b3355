// MobileNetV2 (width 1.0) as in torchvision 0.14.
#pragma once

#include "core/torch/staged_model.h"

#include <cstdint>

namespace loaderlab::torchmodels {

// Stages: stem (first conv), every inverted-residual block, head (last 1x1 conv, pooling,
// dropout 0.2, classifier).
StagedModel makeMobileNetV2(std::int64_t numClasses);

} // namespace loaderlab::torchmodels
