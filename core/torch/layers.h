// Building blocks shared by the model families: torchvision's Conv2dNormActivation, its
// weight-initialisation schemes, _make_divisible and StochasticDepth ("row" mode).
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

namespace loaderlab::torchmodels {

enum class Activation {
    None,
    ReLU,
    ReLU6,
    SiLU,
};

// Applies the activation in place (the input is a fresh conv/BN output, never a stage input).
torch::Tensor applyActivation(torch::Tensor x, Activation activation);

struct ConvNormActOptions
{
    std::int64_t in = 0;
    std::int64_t out = 0;
    std::int64_t kernel = 3;
    std::int64_t stride = 1;
    std::int64_t groups = 1;
    double bnEps = 1e-5;
    Activation activation = Activation::ReLU;
};

// Conv2d (no bias, "same" padding for odd kernels) + BatchNorm2d + optional activation. Children
// are named "0" and "1" like torchvision's Sequential, so parameter order matches.
class ConvNormActImpl : public torch::nn::Module
{
public:
    explicit ConvNormActImpl(const ConvNormActOptions &options);
    torch::Tensor forward(torch::Tensor x);

private:
    torch::nn::Conv2d m_conv{nullptr};
    torch::nn::BatchNorm2d m_bn{nullptr};
    Activation m_activation;
};
TORCH_MODULE(ConvNormAct);

// The head of MobileNetV2 and EfficientNetV2: a 1x1 ConvNormAct to `lastChannel`, global
// average pooling, dropout 0.2 and the classifier (children "conv", "classifier").
class ClassifierHeadImpl : public torch::nn::Module
{
public:
    ClassifierHeadImpl(std::int64_t in, std::int64_t lastChannel, std::int64_t numClasses,
                       double bnEps, Activation activation);
    torch::Tensor forward(torch::Tensor x);

private:
    static constexpr double kDropout = 0.2;
    ConvNormAct m_conv{nullptr};
    torch::nn::Linear m_classifier{nullptr};
};

// torchvision's _make_divisible: round to the nearest multiple of divisor, never dropping more
// than 10% below value.
std::int64_t makeDivisible(double value, std::int64_t divisor = 8);

// Per-sample drop path (torchvision StochasticDepth, mode "row"); identity when not training.
torch::Tensor stochasticDepth(const torch::Tensor &x, double p, bool training);

enum class LinearInit {
    Default,       // keep torch's kaiming-uniform default (ResNet)
    Normal001,     // N(0, 0.01), zero bias (MobileNetV2)
    UniformFanOut, // U(-1/sqrt(out), 1/sqrt(out)), zero bias (EfficientNet)
};

// torchvision's CNN init: kaiming-normal (fan_out, relu) convs with zero bias, BN/GroupNorm
// weight 1 and bias 0, and the given scheme for Linear layers. Walks every submodule.
void initConvNet(torch::nn::Module &module, LinearInit linearInit);

} // namespace loaderlab::torchmodels
