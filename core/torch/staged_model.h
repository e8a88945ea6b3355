// StagedModel: a vision model expressed as an ordered list of stages (stem, blocks..., head).
// Exposing the stages lets the training step checkpoint activations per block instead of
// per model, and lets tests run a model piecewise.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/container/any.h>
#include <torch/nn/pimpl.h>

#include <cstddef>
#include <string>
#include <vector>

namespace loaderlab::torchmodels {

// A model as a sequence of stages (stem, blocks..., head); each stage maps a tensor to a tensor.
// Stages are the unit of activation checkpointing in the training step. name() (inherited from
// torch::nn::Module) returns the model name given to the constructor, e.g. "resnet50".
class StagedModelImpl : public torch::nn::Module
{
public:
    explicit StagedModelImpl(std::string name);

    torch::Tensor forward(torch::Tensor x); // all stages in order
    torch::Tensor forwardStage(std::size_t i, torch::Tensor x);
    std::size_t stageCount() const;
    std::string stageName(std::size_t i) const;

protected:
    // Registers the stage as a child module, so parameters appear in stage order.
    void addStage(const std::string &name, torch::nn::AnyModule stage);

private:
    std::vector<torch::nn::AnyModule> m_stages;
    std::vector<std::string> m_stageNames;
};
TORCH_MODULE(StagedModel);

} // namespace loaderlab::torchmodels
