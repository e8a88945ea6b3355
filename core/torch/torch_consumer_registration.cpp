// registerTorchConsumer: hands core the LibTorch consumer's factory.
#include "core/torch/torch_consumer_registration.h"

#include "core/consumer/model_consumer_factory.h"
#include "core/torch/torch_consumer.h"

namespace loaderlab {

void registerTorchConsumer()
{
    setModelConsumerFactory(&torchmodels::makeTorchConsumer);
}

} // namespace loaderlab
