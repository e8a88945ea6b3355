#pragma once

// ConsumerConfig: which consumer a run uses and how ("none", "sleep" or "model"),
// plain data without LibTorch types. The consumers themselves are in
// core/consumer/consumer.h.

#include "core/config/enum_names.h"

#include <optional>
#include <string>

namespace loaderlab {

enum class ConsumerKind { None, Sleep, Model };

inline constexpr EnumNames<ConsumerKind, 3> kConsumerKindNames{{
    {ConsumerKind::None, "none"},
    {ConsumerKind::Sleep, "sleep"},
    {ConsumerKind::Model, "model"},
}};

enum class ModelMode { Inference, Train };

inline constexpr EnumNames<ModelMode, 2> kModelModeNames{{
    {ModelMode::Inference, "inference"},
    {ModelMode::Train, "train"},
}};

enum class ModelPrecision { Float32, BFloat16, Float16 };

inline constexpr EnumNames<ModelPrecision, 3> kModelPrecisionNames{{
    {ModelPrecision::Float32, "fp32"},
    {ModelPrecision::BFloat16, "bf16"},
    {ModelPrecision::Float16, "fp16"},
}};

// What the "model" consumer runs and how. Plain data: no LibTorch types.
struct ModelConfig
{
    std::string name = "resnet18"; // a built-in model (core/torch/model_names.h)
    std::string scriptPath;        // a TorchScript file; when set it replaces `name`
    ModelMode mode = ModelMode::Inference;
    std::string device = "cpu"; // "cpu", "cuda" or "cuda:N"
    ModelPrecision precision = ModelPrecision::Float32;
    bool channelsLast = false;
    int threads = 0;               // intra-op threads; 0 = all cores
    bool checkpointing = false;    // activation checkpointing per stage (train)
    std::string optimizer = "sgd"; // "sgd" or "adam" (train)
    double learningRate = 0.01;
    int numClasses = 1000;

    bool operator==(const ModelConfig &) const = default;
};

struct ConsumerConfig
{
    ConsumerKind kind = ConsumerKind::None;
    double sleepPerBatchMs = 0.0;
    double sleepPerSampleMs = 0.0;
    ModelConfig model;

    bool operator==(const ConsumerConfig &) const = default;
};

// The step that settings imply when the kind itself is not given (the window has no
// kind control; `loaderlab run` without --consumer): the model when one is chosen,
// else the simulated step when its settings were given and take time, else
// `otherwise`.
ConsumerKind impliedConsumerKind(const ConsumerConfig &config, bool modelChosen, bool sleepChosen,
                                 ConsumerKind otherwise);

// The names in the tables above; each string lives for the program (a literal).
const char *consumerKindName(ConsumerKind kind);
std::optional<ConsumerKind> consumerKindFromName(const std::string &name);
const char *modelModeName(ModelMode mode);
std::optional<ModelMode> modelModeFromName(const std::string &name);
const char *modelPrecisionName(ModelPrecision precision);
std::optional<ModelPrecision> modelPrecisionFromName(const std::string &name);

} // namespace loaderlab
