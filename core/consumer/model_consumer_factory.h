#pragma once

// The registration point for model consumers. core must not link LibTorch, so the
// LibTorch consumer (core/torch) registers a factory here at start-up
// (registerTorchConsumer(), core/torch/torch_consumer_registration.h) and
// makeConsumer() calls it for ConsumerKind::Model.

#include "core/consumer/consumer.h"

#include <cstdint>
#include <memory>

namespace loaderlab {

using ModelConsumerFactory = std::unique_ptr<Consumer> (*)(const ConsumerConfig &config,
                                                           std::int64_t originNs);

// Thread-safe; nullptr unregisters.
void setModelConsumerFactory(ModelConsumerFactory factory);
ModelConsumerFactory modelConsumerFactory();

} // namespace loaderlab
