// Vision Transformer (ViT-B/16, B/32, L/16, L/32) as in torchvision 0.14, for 224x224 images.
#pragma once

#include "core/torch/staged_model.h"

#include <cstdint>
#include <string>

namespace loaderlab::torchmodels {

struct VitConfig
{
    std::int64_t patchSize = 16;
    std::int64_t layers = 12;
    std::int64_t heads = 12;
    std::int64_t hiddenDim = 768;
    std::int64_t mlpDim = 3072;
    std::int64_t imageSize = 224;
    double dropout = 0.0;
    double attentionDropout = 0.0;
};

// variant is "b_16", "b_32", "l_16" or "l_32"; throws std::invalid_argument otherwise.
VitConfig vitConfig(const std::string &variant);

// Stages: embedding (patch projection, class token, position embedding, dropout), every
// encoder block, head (final LayerNorm on the class token, Linear).
StagedModel makeVisionTransformer(const std::string &name, const VitConfig &config,
                                  std::int64_t numClasses);

} // namespace loaderlab::torchmodels
