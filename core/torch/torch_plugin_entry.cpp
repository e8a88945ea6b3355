// loaderlab_torch_plugin_api: what the LibTorch plugin hands the executable.
#include "core/torch/torch_plugin_api.h"

#include "core/torch/gloo_exchange.h"
#include "core/torch/torch_consumer.h"
#include "core/torch/torch_consumer_registration.h"

extern "C" __attribute__((visibility("default"))) const loaderlab::torchmodels::TorchPluginApi *
loaderlab_torch_plugin_api()
{
    namespace tm = loaderlab::torchmodels;
    static const tm::TorchPluginApi api{LOADERLAB_VERSION,         &loaderlab::torchCapabilities,
                                        &tm::makeTorchConsumer,    &tm::findMaxBatch,
                                        &tm::benchModelStep,       &tm::intraOpThreads,
                                        &tm::makeC10dExchangeGroup};
    return &api;
}
