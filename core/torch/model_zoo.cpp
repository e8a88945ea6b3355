// Model zoo: maps a model name to its family's factory.
#include "core/torch/model_zoo.h"

#include "core/torch/efficientnet_v2.h"
#include "core/torch/mobilenet_v2.h"
#include "core/torch/model_names.h"
#include "core/torch/resnet.h"
#include "core/torch/vision_transformer.h"

#include <stdexcept>

namespace loaderlab::torchmodels {

StagedModel makeModel(const std::string &name, std::int64_t numClasses)
{
    if (numClasses < 1)
        throw std::invalid_argument("model '" + name + "': numClasses must be >= 1, got "
                                    + std::to_string(numClasses));
    if (name.starts_with("resnet")) {
        const std::string depth = name.substr(6);
        for (const char *known : {"18", "34", "50", "101", "152"}) {
            if (depth == known)
                return makeResNet(std::stoi(depth), numClasses);
        }
    } else if (name == "mobilenet_v2") {
        return makeMobileNetV2(numClasses);
    } else if (name == "efficientnet_v2_s") {
        return makeEfficientNetV2S(numClasses);
    } else if (name.starts_with("vit_")) {
        const std::string variant = name.substr(4);
        for (const char *known : {"b_16", "b_32", "l_16", "l_32"}) {
            if (variant == known)
                return makeVisionTransformer(name, vitConfig(variant), numClasses);
        }
    }
    std::string known;
    for (const auto &builtin : builtinModelNames())
        known += (known.empty() ? "" : ", ") + builtin;
    throw std::invalid_argument("unknown model '" + name + "' (known: " + known + ")");
}

std::int64_t parameterCount(const torch::nn::Module &module)
{
    std::int64_t count = 0;
    for (const auto &parameter : module.parameters())
        count += parameter.numel();
    return count;
}

} // namespace loaderlab::torchmodels
