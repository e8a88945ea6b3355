#pragma once

// What LibTorch reports about itself. Declared without LibTorch headers so Qt code
// may include it; the implementation is the only file that sees torch.

#include <string>

namespace loaderlab {

struct TorchInfo
{
    bool linked = false; // built with LibTorch
    std::string version;
    bool cudaAvailable = false;
    int cudaDevices = 0;
};

TorchInfo torchInfo();

} // namespace loaderlab
