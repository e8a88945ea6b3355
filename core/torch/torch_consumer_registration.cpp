// registerTorchConsumer: hands core the LibTorch consumer's factory and what it can run.
#include "core/torch/torch_consumer_registration.h"

#include "core/consumer/model_consumer_factory.h"
#include "core/torch/gloo_exchange.h"
#include "core/torch/model_names.h"
#include "core/torch/torch_consumer.h"

#include <torch/cuda.h>
#include <torch/version.h>

#include <string>

namespace loaderlab {

ModelCapabilities torchCapabilities()
{
#ifdef LOADERLAB_TORCH_CUDA
    ModelCapabilities capabilities;
    capabilities.builtinModels = torchmodels::builtinModelNames();
    capabilities.cudaAvailable = torch::cuda::is_available();
    capabilities.cudaDevices = capabilities.cudaAvailable
                                   ? static_cast<int>(torch::cuda::device_count())
                                   : 0;
    if (!capabilities.cudaAvailable)
        capabilities.cudaUnavailableReason = "no CUDA GPU was found (LibTorch " TORCH_VERSION
                                             " has CUDA support; check the "
                                             "driver with nvidia-smi)";
    return capabilities;
#else
    return torchmodels::cpuOnlyCapabilities(TORCH_VERSION);
#endif
}

void registerTorchConsumer()
{
    setModelConsumerFactory(&torchmodels::makeTorchConsumer, torchCapabilities());
    setExchangeGroupFactory(&torchmodels::makeC10dExchangeGroup);
}

} // namespace loaderlab
