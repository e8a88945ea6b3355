// ResNet family: stem, BasicBlock/Bottleneck residual blocks and the pooling + fc head.
#include "core/torch/resnet.h"

#include "core/torch/layers.h"

#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include <array>
#include <memory>
#include <stdexcept>
#include <string>

namespace loaderlab::torchmodels {
namespace {

torch::nn::Conv2d conv(std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride)
{
    return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel)
                                 .stride(stride)
                                 .padding((kernel - 1) / 2)
                                 .bias(false));
}

torch::nn::BatchNorm2d batchNorm(std::int64_t channels)
{
    return torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(channels));
}

class StemImpl : public torch::nn::Module
{
public:
    StemImpl()
    {
        m_conv1 = register_module("conv1", conv(3, 64, 7, 2));
        m_bn1 = register_module("bn1", batchNorm(64));
    }
    torch::Tensor forward(torch::Tensor x)
    {
        x = m_bn1->forward(m_conv1->forward(x)).relu_();
        return torch::max_pool2d(x, {3, 3}, {2, 2}, {1, 1});
    }

private:
    torch::nn::Conv2d m_conv1{nullptr};
    torch::nn::BatchNorm2d m_bn1{nullptr};
};

// BasicBlock (expansion 1, two 3x3 convs) or Bottleneck (expansion 4, 1x1-3x3-1x1).
class ResidualBlockImpl : public torch::nn::Module
{
public:
    ResidualBlockImpl(bool bottleneck, std::int64_t inplanes, std::int64_t planes,
                      std::int64_t stride)
        : m_bottleneck(bottleneck)
    {
        const std::int64_t outplanes = planes * (bottleneck ? 4 : 1);
        if (bottleneck) {
            m_conv1 = register_module("conv1", conv(inplanes, planes, 1, 1));
            m_bn1 = register_module("bn1", batchNorm(planes));
            m_conv2 = register_module("conv2", conv(planes, planes, 3, stride));
            m_bn2 = register_module("bn2", batchNorm(planes));
            m_conv3 = register_module("conv3", conv(planes, outplanes, 1, 1));
            m_bn3 = register_module("bn3", batchNorm(outplanes));
        } else {
            m_conv1 = register_module("conv1", conv(inplanes, planes, 3, stride));
            m_bn1 = register_module("bn1", batchNorm(planes));
            m_conv2 = register_module("conv2", conv(planes, planes, 3, 1));
            m_bn2 = register_module("bn2", batchNorm(planes));
        }
        if (stride != 1 || inplanes != outplanes) {
            m_downsample = register_module(
                "downsample",
                torch::nn::Sequential(conv(inplanes, outplanes, 1, stride), batchNorm(outplanes)));
        }
    }

    torch::Tensor forward(torch::Tensor x)
    {
        auto out = m_bn1->forward(m_conv1->forward(x)).relu_();
        out = m_bn2->forward(m_conv2->forward(out));
        if (m_bottleneck)
            out = m_bn3->forward(m_conv3->forward(out.relu_()));
        out += m_downsample.is_empty() ? x : m_downsample->forward(x);
        return out.relu_();
    }

private:
    bool m_bottleneck;
    torch::nn::Conv2d m_conv1{nullptr};
    torch::nn::BatchNorm2d m_bn1{nullptr};
    torch::nn::Conv2d m_conv2{nullptr};
    torch::nn::BatchNorm2d m_bn2{nullptr};
    torch::nn::Conv2d m_conv3{nullptr};
    torch::nn::BatchNorm2d m_bn3{nullptr};
    torch::nn::Sequential m_downsample{nullptr};
};
TORCH_MODULE(ResidualBlock);

class ResNetHeadImpl : public torch::nn::Module
{
public:
    ResNetHeadImpl(std::int64_t features, std::int64_t numClasses)
    {
        m_fc = register_module("fc", torch::nn::Linear(features, numClasses));
    }
    torch::Tensor forward(torch::Tensor x)
    {
        return m_fc->forward(torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1));
    }

private:
    torch::nn::Linear m_fc{nullptr};
};

class ResNetImpl : public StagedModelImpl
{
public:
    ResNetImpl(int depth, std::int64_t numClasses)
        : StagedModelImpl("resnet" + std::to_string(depth))
    {
        std::array<int, 4> blocks{};
        const bool bottleneck = depth >= 50;
        switch (depth) {
        case 18:
            blocks = {2, 2, 2, 2};
            break;
        case 34:
            blocks = {3, 4, 6, 3};
            break;
        case 50:
            blocks = {3, 4, 6, 3};
            break;
        case 101:
            blocks = {3, 4, 23, 3};
            break;
        case 152:
            blocks = {3, 8, 36, 3};
            break;
        default:
            throw std::invalid_argument("unsupported ResNet depth " + std::to_string(depth));
        }
        addStage("stem", torch::nn::AnyModule(std::make_shared<StemImpl>()));
        std::int64_t inplanes = 64;
        for (std::size_t layer = 0; layer < blocks.size(); ++layer) {
            const std::int64_t planes = std::int64_t{64} << layer;
            for (int b = 0; b < blocks[layer]; ++b) {
                const std::int64_t stride = (layer > 0 && b == 0) ? 2 : 1;
                addStage("layer" + std::to_string(layer + 1) + "_" + std::to_string(b),
                         torch::nn::AnyModule(ResidualBlock(bottleneck, inplanes, planes, stride)));
                inplanes = planes * (bottleneck ? 4 : 1);
            }
        }
        addStage("head",
                 torch::nn::AnyModule(std::make_shared<ResNetHeadImpl>(inplanes, numClasses)));
        initConvNet(*this, LinearInit::Default);
    }
};

} // namespace

StagedModel makeResNet(int depth, std::int64_t numClasses)
{
    // ModuleHolder's variadic constructor would take a derived pointer as constructor args.
    return StagedModel(
        std::shared_ptr<StagedModelImpl>(std::make_shared<ResNetImpl>(depth, numClasses)));
}

} // namespace loaderlab::torchmodels
