#pragma once

// EngineCancel: asked now and then during a long start (the PyTorch engine's import
// check): true to give up.

#include <functional>

namespace loaderlab {

using EngineCancel = std::function<bool()>;

} // namespace loaderlab
