#include "core/system/torch_info.h"

#ifdef LOADERLAB_WITH_TORCH
#include <torch/version.h>
#endif
#ifdef LOADERLAB_TORCH_CUDA
#include <torch/cuda.h>
#endif

namespace loaderlab {

TorchInfo torchInfo()
{
#if defined(LOADERLAB_TORCH_CUDA)
    return {true, TORCH_VERSION, torch::cuda::is_available(),
            static_cast<int>(torch::cuda::device_count())};
#elif defined(LOADERLAB_WITH_TORCH)
    // A CPU-only LibTorch (core/CMakeLists.txt): no CUDA, known from the build.
    return {true, TORCH_VERSION, false, 0};
#else
    return {};
#endif
}

} // namespace loaderlab
