#include "core/config/consumer_config.h"

namespace loaderlab {

ConsumerKind impliedConsumerKind(const ConsumerConfig &config, bool modelChosen, bool sleepChosen,
                                 ConsumerKind otherwise)
{
    if (modelChosen)
        return ConsumerKind::Model;
    if (sleepChosen && (config.sleepPerBatchMs > 0.0 || config.sleepPerSampleMs > 0.0))
        return ConsumerKind::Sleep;
    return otherwise;
}

// The tables' names are literals, so their data is NUL-terminated.
const char *consumerKindName(ConsumerKind kind)
{
    return enumName(kConsumerKindNames, kind).data();
}

std::optional<ConsumerKind> consumerKindFromName(const std::string &name)
{
    return enumFromName(kConsumerKindNames, name);
}

const char *modelModeName(ModelMode mode)
{
    return enumName(kModelModeNames, mode).data();
}

std::optional<ModelMode> modelModeFromName(const std::string &name)
{
    return enumFromName(kModelModeNames, name);
}

const char *modelPrecisionName(ModelPrecision precision)
{
    return enumName(kModelPrecisionNames, precision).data();
}

std::optional<ModelPrecision> modelPrecisionFromName(const std::string &name)
{
    return enumFromName(kModelPrecisionNames, name);
}

} // namespace loaderlab
