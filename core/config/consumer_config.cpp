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

const char *consumerKindName(ConsumerKind kind)
{
    switch (kind) {
    case ConsumerKind::None:
        return "none";
    case ConsumerKind::Sleep:
        return "sleep";
    case ConsumerKind::Model:
        return "model";
    }
    return "";
}

std::optional<ConsumerKind> consumerKindFromName(const std::string &name)
{
    if (name == "none")
        return ConsumerKind::None;
    if (name == "sleep")
        return ConsumerKind::Sleep;
    if (name == "model")
        return ConsumerKind::Model;
    return std::nullopt;
}

const char *modelModeName(ModelMode mode)
{
    return mode == ModelMode::Train ? "train" : "inference";
}

std::optional<ModelMode> modelModeFromName(const std::string &name)
{
    if (name == "inference")
        return ModelMode::Inference;
    if (name == "train")
        return ModelMode::Train;
    return std::nullopt;
}

const char *modelPrecisionName(ModelPrecision precision)
{
    switch (precision) {
    case ModelPrecision::Float32:
        return "fp32";
    case ModelPrecision::BFloat16:
        return "bf16";
    case ModelPrecision::Float16:
        return "fp16";
    }
    return "";
}

std::optional<ModelPrecision> modelPrecisionFromName(const std::string &name)
{
    if (name == "fp32")
        return ModelPrecision::Float32;
    if (name == "bf16")
        return ModelPrecision::BFloat16;
    if (name == "fp16")
        return ModelPrecision::Float16;
    return std::nullopt;
}

} // namespace loaderlab
