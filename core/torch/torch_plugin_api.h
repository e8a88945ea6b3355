#pragma once

// The LibTorch models as a plugin: loaderlab_torch_plugin.so (core/torch/CMakeLists.txt)
// holds the model zoo, the "model" consumer, the max batch finder, the model bench and
// the ranks' gradient exchange (c10d), and the loaderlab executable loads it the first
// time one of them is asked for (app/cli/torch_plugin.h). Loading LibTorch costs a
// process 0.7 s of start-up (its operators register); a run with the simulated step,
// most commands and the window no longer pay it. Torch-free, so the executable includes
// it without LibTorch.
//
// The plugin resolves core's symbols from the executable (linked with ENABLE_EXPORTS),
// so there is one copy of core in the process: one model consumer registry, one logger.

#include "core/consumer/gradient_exchange.h"
#include "core/consumer/model_consumer_factory.h"
#include "core/torch/max_batch_finder.h"
#include "core/torch/model_bench.h"

namespace loaderlab::torchmodels {

struct TorchPluginApi
{
    // The LoaderLab version the plugin was built with: an executable loads only its own.
    const char *loaderlabVersion = nullptr;
    ModelCapabilities (*capabilities)() = nullptr;
    ModelConsumerFactory makeConsumer = nullptr;
    MaxBatchReport (*findMaxBatch)(const MaxBatchRequest &request, std::stop_token stop,
                                   const AttemptCallback &onAttempt) = nullptr;
    ModelBenchRow (*benchModelStep)(const ConsumerConfig &config, int batchSize, int imageSize,
                                    int warmup, int iterations) = nullptr;
    int (*intraOpThreads)() = nullptr;
    ExchangeGroupFactory makeExchangeGroup = nullptr;
};

} // namespace loaderlab::torchmodels

// The plugin's one exported entry point (looked up by this name with dlsym).
#define LOADERLAB_TORCH_PLUGIN_ENTRY "loaderlab_torch_plugin_api"
extern "C" const loaderlab::torchmodels::TorchPluginApi *loaderlab_torch_plugin_api();
