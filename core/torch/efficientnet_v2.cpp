// EfficientNetV2: FusedMBConv blocks in the early high-resolution stages (where depthwise convs
// are slow), MBConv blocks with squeeze-excitation later, and stochastic depth growing linearly
// with block index.
#include "core/torch/efficientnet_v2.h"

#include "core/torch/layers.h"

#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>

namespace loaderlab::torchmodels {
namespace {

constexpr double kBnEps = 1e-3;

struct BlockConfig
{
    bool fused;
    std::int64_t expandRatio;
    std::int64_t kernel;
    std::int64_t stride;
    std::int64_t in;
    std::int64_t out;
    std::int64_t layers;
};

class SqueezeExcitationImpl : public torch::nn::Module
{
public:
    SqueezeExcitationImpl(std::int64_t channels, std::int64_t squeezeChannels)
    {
        m_fc1 = register_module(
            "fc1", torch::nn::Conv2d(torch::nn::Conv2dOptions(channels, squeezeChannels, 1)));
        m_fc2 = register_module(
            "fc2", torch::nn::Conv2d(torch::nn::Conv2dOptions(squeezeChannels, channels, 1)));
    }

    torch::Tensor forward(torch::Tensor x)
    {
        auto scale = m_fc1->forward(torch::adaptive_avg_pool2d(x, {1, 1}));
        torch::silu_(scale);
        return torch::sigmoid(m_fc2->forward(scale)) * x;
    }

private:
    torch::nn::Conv2d m_fc1{nullptr};
    torch::nn::Conv2d m_fc2{nullptr};
};
TORCH_MODULE(SqueezeExcitation);

// MBConv (expand 1x1, depthwise, SE, project) or FusedMBConv (expand kxk, project).
class MbConvImpl : public torch::nn::Module
{
public:
    MbConvImpl(const BlockConfig &c, double stochasticDepthProb)
        : m_useResidual(c.stride == 1 && c.in == c.out)
        , m_stochasticDepthProb(stochasticDepthProb)
    {
        const std::int64_t expanded = makeDivisible(static_cast<double>(c.in * c.expandRatio));
        torch::nn::Sequential block;
        if (c.fused) {
            if (expanded != c.in) {
                block->push_back(ConvNormAct(ConvNormActOptions{c.in, expanded, c.kernel, c.stride,
                                                                1, kBnEps, Activation::SiLU}));
                block->push_back(ConvNormAct(
                    ConvNormActOptions{expanded, c.out, 1, 1, 1, kBnEps, Activation::None}));
            } else {
                block->push_back(ConvNormAct(ConvNormActOptions{c.in, c.out, c.kernel, c.stride, 1,
                                                                kBnEps, Activation::SiLU}));
            }
        } else {
            if (expanded != c.in)
                block->push_back(ConvNormAct(
                    ConvNormActOptions{c.in, expanded, 1, 1, 1, kBnEps, Activation::SiLU}));
            block->push_back(ConvNormAct(ConvNormActOptions{expanded, expanded, c.kernel, c.stride,
                                                            expanded, kBnEps, Activation::SiLU}));
            block->push_back(SqueezeExcitation(expanded, std::max<std::int64_t>(1, c.in / 4)));
            block->push_back(ConvNormAct(
                ConvNormActOptions{expanded, c.out, 1, 1, 1, kBnEps, Activation::None}));
        }
        m_block = register_module("block", block);
    }

    torch::Tensor forward(torch::Tensor x)
    {
        auto result = m_block->forward(x);
        if (m_useResidual) {
            result = stochasticDepth(result, m_stochasticDepthProb, is_training());
            result += x;
        }
        return result;
    }

private:
    bool m_useResidual;
    double m_stochasticDepthProb;
    torch::nn::Sequential m_block{nullptr};
};
TORCH_MODULE(MbConv);

class EfficientNetV2Impl : public StagedModelImpl
{
public:
    explicit EfficientNetV2Impl(std::int64_t numClasses)
        : StagedModelImpl("efficientnet_v2_s")
    {
        // torchvision's _efficientnet_conf("efficientnet_v2_s").
        const std::array<BlockConfig, 6> settings{{{true, 1, 3, 1, 24, 24, 2},
                                                   {true, 4, 3, 2, 24, 48, 4},
                                                   {true, 4, 3, 2, 48, 64, 4},
                                                   {false, 4, 3, 2, 64, 128, 6},
                                                   {false, 6, 3, 1, 128, 160, 9},
                                                   {false, 6, 3, 2, 160, 256, 15}}};
        constexpr double kStochasticDepthProb = 0.2;
        constexpr std::int64_t kLastChannel = 1280;

        addStage("stem", torch::nn::AnyModule(ConvNormAct(ConvNormActOptions{
                             3, settings.front().in, 3, 2, 1, kBnEps, Activation::SiLU})));
        std::int64_t totalBlocks = 0;
        for (const auto &s : settings)
            totalBlocks += s.layers;
        std::int64_t blockId = 0;
        for (std::size_t stage = 0; stage < settings.size(); ++stage) {
            for (std::int64_t i = 0; i < settings[stage].layers; ++i) {
                BlockConfig c = settings[stage];
                if (i > 0) {
                    c.in = c.out;
                    c.stride = 1;
                }
                const double sdProb = kStochasticDepthProb * static_cast<double>(blockId)
                                      / static_cast<double>(totalBlocks);
                addStage("features_" + std::to_string(stage + 1) + "_" + std::to_string(i),
                         torch::nn::AnyModule(MbConv(c, sdProb)));
                ++blockId;
            }
        }
        addStage("head",
                 torch::nn::AnyModule(std::make_shared<ClassifierHeadImpl>(
                     settings.back().out, kLastChannel, numClasses, kBnEps, Activation::SiLU)));
        initConvNet(*this, LinearInit::UniformFanOut);
    }
};

} // namespace

StagedModel makeEfficientNetV2S(std::int64_t numClasses)
{
    // ModuleHolder's variadic constructor would take a derived pointer as constructor args.
    return StagedModel(
        std::shared_ptr<StagedModelImpl>(std::make_shared<EfficientNetV2Impl>(numClasses)));
}

} // namespace loaderlab::torchmodels
