#pragma once

// The Python side of LoaderLab that user code imports: the module loaderlab_probe
// (core/engine/pytorch/python/loaderlab_probe.py, embedded in the binary), which marks the
// stages of a pipeline file's samples and records a training loop's DataLoader
// (docs/your-pipeline.md).

#include <string>

namespace loaderlab {

// A folder holding this binary's loaderlab_probe.py (and loaderlab_ranks.py, the
// PyTorch engine's data-parallel ranks), written on first use under cacheDirectory()
// (python-<hash of the modules>/: binaries of other versions keep their own). What `loaderlab
// python-path` prints and the PyTorch engine puts on a pipeline file's sys.path. Throws
// std::runtime_error naming the folder and why it cannot be written.
std::string loaderlabPythonDir();

// The module's text, as embedded.
const char *loaderlabProbeModule();

} // namespace loaderlab
