// Vision Transformer: patch embedding, pre-norm encoder blocks with multi-head self-attention
// and a GELU MLP, then a linear head on the class token.
#include "core/torch/vision_transformer.h"

#include <torch/nn/init.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/utils.h>

#include <cmath>
#include <memory>
#include <stdexcept>

namespace loaderlab::torchmodels {
namespace {

constexpr double kLayerNormEps = 1e-6;

torch::nn::LayerNorm layerNorm(std::int64_t dim)
{
    return torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim}).eps(kLayerNormEps));
}

// Conv projection weights are kept as plain parameters (not a Conv2d child) so that the
// parameter order matches torchvision: class_token, conv_proj, pos_embedding.
class EmbeddingImpl : public torch::nn::Module
{
public:
    explicit EmbeddingImpl(const VitConfig &c)
        : m_config(c)
    {
        const std::int64_t patches = (c.imageSize / c.patchSize) * (c.imageSize / c.patchSize);
        torch::NoGradGuard noGrad;
        m_classToken = register_parameter("class_token", torch::zeros({1, 1, c.hiddenDim}));
        // torchvision uses trunc_normal_(std) with absolute bounds [-2, 2]; with std <= 0.04
        // truncation never triggers, so normal + clamp is the same distribution.
        const double projStd = std::sqrt(1.0 / static_cast<double>(3 * c.patchSize * c.patchSize));
        m_projWeight = register_parameter("conv_proj_weight",
                                          torch::empty({c.hiddenDim, 3, c.patchSize, c.patchSize})
                                              .normal_(0.0, projStd)
                                              .clamp_(-2, 2));
        m_projBias = register_parameter("conv_proj_bias", torch::zeros({c.hiddenDim}));
        m_posEmbedding = register_parameter(
            "pos_embedding", torch::empty({1, patches + 1, c.hiddenDim}).normal_(0.0, 0.02));
    }

    torch::Tensor forward(torch::Tensor x)
    {
        TORCH_CHECK(x.dim() == 4 && x.size(1) == 3 && x.size(2) == m_config.imageSize
                        && x.size(3) == m_config.imageSize,
                    "vision transformer expects [N, 3, ", m_config.imageSize, ", ",
                    m_config.imageSize, "] input, got ", x.sizes());
        const std::int64_t n = x.size(0);
        x = torch::conv2d(x, m_projWeight, m_projBias, m_config.patchSize);
        x = x.flatten(2).transpose(1, 2); // [N, patches, hidden]
        x = torch::cat({m_classToken.expand({n, -1, -1}), x}, 1) + m_posEmbedding;
        return torch::dropout(x, m_config.dropout, is_training());
    }

private:
    VitConfig m_config;
    torch::Tensor m_classToken;
    torch::Tensor m_projWeight;
    torch::Tensor m_projBias;
    torch::Tensor m_posEmbedding;
};

// nn.MultiheadAttention(batch_first=True) restricted to self-attention without masks; same
// parameters (packed in_proj, out_proj) and initialisation.
class SelfAttentionImpl : public torch::nn::Module
{
public:
    SelfAttentionImpl(std::int64_t dim, std::int64_t heads, double dropout)
        : m_heads(heads)
        , m_dropout(dropout)
    {
        TORCH_CHECK(dim % heads == 0, "hidden dim ", dim, " not divisible by ", heads, " heads");
        torch::NoGradGuard noGrad;
        m_inProjWeight = register_parameter("in_proj_weight", torch::empty({3 * dim, dim}));
        torch::nn::init::xavier_uniform_(m_inProjWeight);
        m_inProjBias = register_parameter("in_proj_bias", torch::zeros({3 * dim}));
        m_outProj = register_module("out_proj", torch::nn::Linear(dim, dim));
        torch::nn::init::zeros_(m_outProj->bias);
    }

    torch::Tensor forward(const torch::Tensor &x)
    {
        const std::int64_t n = x.size(0);
        const std::int64_t seq = x.size(1);
        const std::int64_t dim = x.size(2);
        const std::int64_t headDim = dim / m_heads;
        // [N, S, 3D] -> [3, N, H, S, headDim]
        auto qkv = torch::linear(x, m_inProjWeight, m_inProjBias)
                       .view({n, seq, 3, m_heads, headDim})
                       .permute({2, 0, 3, 1, 4});
        auto q = qkv[0] * (1.0 / std::sqrt(static_cast<double>(headDim)));
        auto attention = torch::matmul(q, qkv[1].transpose(-2, -1)).softmax(-1);
        attention = torch::dropout(attention, m_dropout, is_training());
        auto out = torch::matmul(attention, qkv[2]).transpose(1, 2).reshape({n, seq, dim});
        return m_outProj->forward(out);
    }

private:
    std::int64_t m_heads;
    double m_dropout;
    torch::Tensor m_inProjWeight;
    torch::Tensor m_inProjBias;
    torch::nn::Linear m_outProj{nullptr};
};
TORCH_MODULE(SelfAttention);

// Linear children are named "0" and "3" like torchvision's MLPBlock (a Sequential with GELU and
// dropout in between).
class MlpImpl : public torch::nn::Module
{
public:
    MlpImpl(std::int64_t dim, std::int64_t mlpDim, double dropout)
        : m_dropout(dropout)
    {
        m_fc1 = register_module("0", torch::nn::Linear(dim, mlpDim));
        m_fc2 = register_module("3", torch::nn::Linear(mlpDim, dim));
        torch::NoGradGuard noGrad;
        for (auto *fc : {m_fc1.get(), m_fc2.get()}) {
            torch::nn::init::xavier_uniform_(fc->weight);
            torch::nn::init::normal_(fc->bias, 0.0, 1e-6);
        }
    }

    torch::Tensor forward(const torch::Tensor &x)
    {
        auto y = torch::dropout(torch::gelu(m_fc1->forward(x)), m_dropout, is_training());
        return torch::dropout(m_fc2->forward(y), m_dropout, is_training());
    }

private:
    double m_dropout;
    torch::nn::Linear m_fc1{nullptr};
    torch::nn::Linear m_fc2{nullptr};
};
TORCH_MODULE(Mlp);

class EncoderBlockImpl : public torch::nn::Module
{
public:
    explicit EncoderBlockImpl(const VitConfig &c)
        : m_dropout(c.dropout)
    {
        m_ln1 = register_module("ln_1", layerNorm(c.hiddenDim));
        m_attention = register_module("self_attention",
                                      SelfAttention(c.hiddenDim, c.heads, c.attentionDropout));
        m_ln2 = register_module("ln_2", layerNorm(c.hiddenDim));
        m_mlp = register_module("mlp", Mlp(c.hiddenDim, c.mlpDim, c.dropout));
    }

    torch::Tensor forward(torch::Tensor input)
    {
        auto x = m_attention->forward(m_ln1->forward(input));
        x = torch::dropout(x, m_dropout, is_training()) + input;
        return x + m_mlp->forward(m_ln2->forward(x));
    }

private:
    double m_dropout;
    torch::nn::LayerNorm m_ln1{nullptr};
    SelfAttention m_attention{nullptr};
    torch::nn::LayerNorm m_ln2{nullptr};
    Mlp m_mlp{nullptr};
};
TORCH_MODULE(EncoderBlock);

// LayerNorm is per token, so normalising only the class token equals torchvision's
// ln(all tokens)[:, 0] at a fraction of the cost.
class HeadImpl : public torch::nn::Module
{
public:
    HeadImpl(std::int64_t dim, std::int64_t numClasses)
    {
        m_ln = register_module("ln", layerNorm(dim));
        m_head = register_module("head", torch::nn::Linear(dim, numClasses));
        torch::NoGradGuard noGrad;
        torch::nn::init::zeros_(m_head->weight);
        torch::nn::init::zeros_(m_head->bias);
    }

    torch::Tensor forward(const torch::Tensor &x)
    {
        return m_head->forward(m_ln->forward(x.select(1, 0)));
    }

private:
    torch::nn::LayerNorm m_ln{nullptr};
    torch::nn::Linear m_head{nullptr};
};

class VisionTransformerImpl : public StagedModelImpl
{
public:
    VisionTransformerImpl(const std::string &name, const VitConfig &c, std::int64_t numClasses)
        : StagedModelImpl(name)
    {
        if (c.imageSize % c.patchSize != 0)
            throw std::invalid_argument(name + ": image size not divisible by patch size");
        addStage("embedding", torch::nn::AnyModule(std::make_shared<EmbeddingImpl>(c)));
        for (std::int64_t i = 0; i < c.layers; ++i)
            addStage("encoder_layer_" + std::to_string(i), torch::nn::AnyModule(EncoderBlock(c)));
        addStage("head", torch::nn::AnyModule(std::make_shared<HeadImpl>(c.hiddenDim, numClasses)));
    }
};

} // namespace

VitConfig vitConfig(const std::string &variant)
{
    VitConfig c;
    if (variant == "b_16" || variant == "b_32") {
        c.layers = 12;
        c.heads = 12;
        c.hiddenDim = 768;
        c.mlpDim = 3072;
    } else if (variant == "l_16" || variant == "l_32") {
        c.layers = 24;
        c.heads = 16;
        c.hiddenDim = 1024;
        c.mlpDim = 4096;
    } else {
        throw std::invalid_argument("unknown vision transformer variant '" + variant + "'");
    }
    c.patchSize = variant.ends_with("16") ? 16 : 32;
    return c;
}

StagedModel makeVisionTransformer(const std::string &name, const VitConfig &config,
                                  std::int64_t numClasses)
{
    // ModuleHolder's variadic constructor would take a derived pointer as constructor args.
    return StagedModel(std::shared_ptr<StagedModelImpl>(
        std::make_shared<VisionTransformerImpl>(name, config, numClasses)));
}

} // namespace loaderlab::torchmodels
