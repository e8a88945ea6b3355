#include "core/system/torch_info.h"

#ifdef LOADERLAB_WITH_TORCH
#include <torch/cuda.h>
#include <torch/version.h>
#endif

namespace loaderlab {

TorchInfo torchInfo()
{
#ifdef LOADERLAB_WITH_TORCH
    return {true, TORCH_VERSION, torch::cuda::is_available(),
            static_cast<int>(torch::cuda::device_count())};
#else
    return {};
#endif
}

} // namespace loaderlab
