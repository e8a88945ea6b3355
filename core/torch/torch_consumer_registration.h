// Registers the LibTorch model consumer with core's makeConsumer(). Torch-free on
// purpose: the app and tests call it without seeing LibTorch headers.
#pragma once

namespace loaderlab {

// Idempotent; call once before a run with ConsumerKind::Model starts.
void registerTorchConsumer();

} // namespace loaderlab
