// Shared layers and initialisation for the built-in model zoo.
#include "core/torch/layers.h"

#include "core/torch/staged_model.h"

#include <torch/nn/init.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

namespace loaderlab::torchmodels {

torch::Tensor applyActivation(torch::Tensor x, Activation activation)
{
    switch (activation) {
    case Activation::None:
        return x;
    case Activation::ReLU:
        return x.relu_();
    case Activation::ReLU6:
        return torch::hardtanh_(x, 0.0, 6.0);
    case Activation::SiLU:
        return torch::silu_(x);
    }
    return x;
}

ConvNormActImpl::ConvNormActImpl(const ConvNormActOptions &options)
    : m_activation(options.activation)
{
    m_conv = register_module(
        "0", torch::nn::Conv2d(torch::nn::Conv2dOptions(options.in, options.out, options.kernel)
                                   .stride(options.stride)
                                   .padding((options.kernel - 1) / 2)
                                   .groups(options.groups)
                                   .bias(false)));
    m_bn = register_module(
        "1", torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(options.out).eps(options.bnEps)));
}

torch::Tensor ConvNormActImpl::forward(torch::Tensor x)
{
    return applyActivation(m_bn->forward(m_conv->forward(x)), m_activation);
}

ClassifierHeadImpl::ClassifierHeadImpl(std::int64_t in, std::int64_t lastChannel,
                                       std::int64_t numClasses, double bnEps, Activation activation)
{
    m_conv = register_module(
        "conv", ConvNormAct(ConvNormActOptions{in, lastChannel, 1, 1, 1, bnEps, activation}));
    m_classifier = register_module("classifier", torch::nn::Linear(lastChannel, numClasses));
}

torch::Tensor ClassifierHeadImpl::forward(torch::Tensor x)
{
    x = torch::adaptive_avg_pool2d(m_conv->forward(x), {1, 1}).flatten(1);
    return m_classifier->forward(torch::dropout(x, kDropout, is_training()));
}

std::int64_t makeDivisible(double value, std::int64_t divisor)
{
    const auto d = static_cast<double>(divisor);
    auto rounded = std::max(divisor,
                            static_cast<std::int64_t>(value + d / 2.0) / divisor * divisor);
    if (static_cast<double>(rounded) < 0.9 * value)
        rounded += divisor;
    return rounded;
}

torch::Tensor stochasticDepth(const torch::Tensor &x, double p, bool training)
{
    if (p < 0.0 || p > 1.0)
        throw std::invalid_argument("stochastic depth probability must be in [0, 1], got "
                                    + std::to_string(p));
    if (!training || p == 0.0)
        return x;
    const double survival = 1.0 - p;
    std::vector<std::int64_t> size(static_cast<std::size_t>(x.dim()), 1);
    size[0] = x.size(0);
    auto noise = torch::empty(size, x.options()).bernoulli_(survival);
    if (survival > 0.0)
        noise.div_(survival);
    return x * noise;
}

void initConvNet(torch::nn::Module &module, LinearInit linearInit)
{
    torch::NoGradGuard noGrad;
    // include_self=false: called from constructors, before the model is owned by a shared_ptr.
    for (const auto &child : module.modules(/*include_self=*/false)) {
        throwIfBuildStopped();
        if (auto *conv = child->as<torch::nn::Conv2d>()) {
            torch::nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
            if (conv->bias.defined())
                torch::nn::init::zeros_(conv->bias);
        } else if (auto *bn = child->as<torch::nn::BatchNorm2d>()) {
            torch::nn::init::ones_(bn->weight);
            torch::nn::init::zeros_(bn->bias);
        } else if (auto *gn = child->as<torch::nn::GroupNorm>()) {
            torch::nn::init::ones_(gn->weight);
            torch::nn::init::zeros_(gn->bias);
        } else if (auto *linear = child->as<torch::nn::Linear>()) {
            if (linearInit == LinearInit::Normal001) {
                torch::nn::init::normal_(linear->weight, 0.0, 0.01);
                torch::nn::init::zeros_(linear->bias);
            } else if (linearInit == LinearInit::UniformFanOut) {
                const double range = 1.0 / std::sqrt(static_cast<double>(linear->weight.size(0)));
                torch::nn::init::uniform_(linear->weight, -range, range);
                torch::nn::init::zeros_(linear->bias);
            }
        }
    }
}

} // namespace loaderlab::torchmodels
