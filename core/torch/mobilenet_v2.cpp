// MobileNetV2: inverted residual blocks with linear bottlenecks and ReLU6.
#include "core/torch/mobilenet_v2.h"

#include "core/torch/layers.h"

#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include <array>
#include <cmath>
#include <memory>
#include <string>

namespace loaderlab::torchmodels {
namespace {

class InvertedResidualImpl : public torch::nn::Module
{
public:
    InvertedResidualImpl(std::int64_t in, std::int64_t out, std::int64_t stride,
                         std::int64_t expandRatio)
        : m_useResidual(stride == 1 && in == out)
    {
        const auto hidden = static_cast<std::int64_t>(
            std::round(static_cast<double>(in) * static_cast<double>(expandRatio)));
        torch::nn::Sequential layers;
        if (expandRatio != 1)
            layers->push_back(
                ConvNormAct(ConvNormActOptions{in, hidden, 1, 1, 1, 1e-5, Activation::ReLU6}));
        layers->push_back(ConvNormAct(
            ConvNormActOptions{hidden, hidden, 3, stride, hidden, 1e-5, Activation::ReLU6}));
        layers->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(hidden, out, 1).bias(false)));
        layers->push_back(torch::nn::BatchNorm2d(out));
        m_conv = register_module("conv", layers);
    }

    torch::Tensor forward(torch::Tensor x)
    {
        return m_useResidual ? x + m_conv->forward(x) : m_conv->forward(x);
    }

private:
    bool m_useResidual;
    torch::nn::Sequential m_conv{nullptr};
};
TORCH_MODULE(InvertedResidual);

class MobileNetV2Impl : public StagedModelImpl
{
public:
    explicit MobileNetV2Impl(std::int64_t numClasses)
        : StagedModelImpl("mobilenet_v2")
    {
        struct Setting
        {
            std::int64_t expand, channels, repeats, stride;
        };
        const std::array<Setting, 7> settings{{{1, 16, 1, 1},
                                               {6, 24, 2, 2},
                                               {6, 32, 3, 2},
                                               {6, 64, 4, 2},
                                               {6, 96, 3, 1},
                                               {6, 160, 3, 2},
                                               {6, 320, 1, 1}}};
        std::int64_t in = makeDivisible(32.0);
        addStage("stem", torch::nn::AnyModule(ConvNormAct(
                             ConvNormActOptions{3, in, 3, 2, 1, 1e-5, Activation::ReLU6})));
        int index = 1;
        for (const auto &s : settings) {
            const std::int64_t out = makeDivisible(static_cast<double>(s.channels));
            for (std::int64_t i = 0; i < s.repeats; ++i) {
                addStage("features_" + std::to_string(index++),
                         torch::nn::AnyModule(
                             InvertedResidual(in, out, i == 0 ? s.stride : 1, s.expand)));
                in = out;
            }
        }
        addStage("head", torch::nn::AnyModule(std::make_shared<ClassifierHeadImpl>(
                             in, makeDivisible(1280.0), numClasses, 1e-5, Activation::ReLU6)));
        initConvNet(*this, LinearInit::Normal001);
    }
};

} // namespace

StagedModel makeMobileNetV2(std::int64_t numClasses)
{
    // ModuleHolder's variadic constructor would take a derived pointer as constructor args.
    return StagedModel(
        std::shared_ptr<StagedModelImpl>(std::make_shared<MobileNetV2Impl>(numClasses)));
}

} // namespace loaderlab::torchmodels
