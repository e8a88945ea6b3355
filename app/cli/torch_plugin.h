#pragma once

// The LibTorch models, loaded from loaderlab_torch_plugin.so the first time a run, the
// window's "Find max batch", `bench-model` or `max-batch` asks for one
// (core/torch/torch_plugin_api.h says why). Torch-free.

#include "core/torch/torch_plugin_api.h"

#include <string>

namespace loaderlab {

// Loads the plugin on the first call (thread-safe; later calls return the same table).
// Throws std::runtime_error naming the file and the reason when it is missing, does not
// load, or is another LoaderLab version's; every later call throws the same.
const torchmodels::TorchPluginApi &torchPlugin();

// Where the plugin was found (loads it, as torchPlugin()) and, when it failed, why; for
// `loaderlab info` and bug reports.
struct TorchPluginStatus
{
    std::string path;
    std::string error; // empty: loaded
};
TorchPluginStatus torchPluginStatus();

// main(), before any run: hands core a model consumer factory and the window a max
// batch finder that load the plugin when first called. A CPU-only LibTorch's
// capabilities are known from the build, so nothing loads now; with a CUDA LibTorch
// the plugin is loaded here to ask for the GPUs.
void registerTorchPlugin();

} // namespace loaderlab
