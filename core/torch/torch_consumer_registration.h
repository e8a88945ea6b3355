// Registers the LibTorch model consumer with core's makeConsumer(), and c10d's gradient
// exchange with makeExchangeGroup(). Torch-free on purpose: the app and tests call it
// without seeing LibTorch headers.
#pragma once

#include "core/consumer/model_consumer_factory.h"

namespace loaderlab {

// The built-in models and whether CUDA is there to run them (asks LibTorch).
ModelCapabilities torchCapabilities();

// Idempotent; call once before a run with ConsumerKind::Model or a gradient exchange
// starts.
void registerTorchConsumer();

} // namespace loaderlab
