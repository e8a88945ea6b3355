// The single list of built-in model names, shared by the model zoo and the UI, and what a
// CPU-only LibTorch can run.
#include "core/torch/model_names.h"

namespace loaderlab::torchmodels {

std::vector<std::string> builtinModelNames()
{
    return {"resnet18",          "resnet34", "resnet50", "resnet101", "resnet152", "mobilenet_v2",
            "efficientnet_v2_s", "vit_b_16", "vit_b_32", "vit_l_16",  "vit_l_32"};
}

ModelCapabilities cpuOnlyCapabilities(const std::string &torchVersion)
{
    ModelCapabilities capabilities;
    capabilities.builtinModels = builtinModelNames();
    capabilities.cudaUnavailableReason = "this LibTorch build (" + torchVersion
                                         + ") has no CUDA support";
    return capabilities;
}

} // namespace loaderlab::torchmodels
