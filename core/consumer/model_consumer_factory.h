#pragma once

// The registration point for model consumers. core must not link LibTorch, so the
// LibTorch consumer (core/torch) registers a factory here at start-up
// (registerTorchConsumer(), core/torch/torch_consumer_registration.h, in tests; the
// loaderlab executable's registerTorchPlugin(), app/cli/torch_plugin.h, which loads the
// models when the factory is first called) and makeConsumer() calls it for
// ConsumerKind::Model.

#include "core/consumer/consumer.h"

#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

namespace loaderlab {

// `stop`: a model that takes seconds to build gives up (throws) once it is requested.
using ModelConsumerFactory = std::unique_ptr<Consumer> (*)(const ConsumerConfig &config,
                                                           std::int64_t originNs,
                                                           std::stop_token stop);

// What the registered model consumer can run, for pickers (the GUI's model panel):
// plain data, so Qt code learns it without LibTorch headers.
struct ModelCapabilities
{
    std::vector<std::string> builtinModels; // empty: no model consumer in this build
    bool cudaAvailable = false;
    int cudaDevices = 0;
    std::string cudaUnavailableReason; // why not, when !cudaAvailable

    bool available() const { return !builtinModels.empty(); }
};

// Thread-safe; nullptr unregisters (and forgets the capabilities).
void setModelConsumerFactory(ModelConsumerFactory factory, ModelCapabilities capabilities = {});
ModelConsumerFactory modelConsumerFactory();
// Those given with the factory; empty when none is registered.
ModelCapabilities modelCapabilities();

} // namespace loaderlab
