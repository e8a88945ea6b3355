// StagedModel: a vision model expressed as an ordered list of stages (stem, blocks..., head).
// Exposing the stages lets the training step checkpoint activations per block instead of
// per model, and lets tests run a model piecewise.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/container/any.h>
#include <torch/nn/pimpl.h>

#include <cstddef>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

namespace loaderlab::torchmodels {

// Building a large model takes seconds (vit_l_16: about 5 s on 2 cores), too long for
// a stop to wait. While a ScopedBuildStop lives on a thread, models built there check
// its token at every stage and while initialising weights, and throw BuildStopped once
// a stop is requested.
class BuildStopped : public std::runtime_error
{
public:
    BuildStopped()
        : std::runtime_error("model build stopped")
    {
    }
};

class ScopedBuildStop
{
public:
    explicit ScopedBuildStop(std::stop_token stop);
    ~ScopedBuildStop();
    ScopedBuildStop(const ScopedBuildStop &) = delete;
    ScopedBuildStop &operator=(const ScopedBuildStop &) = delete;

private:
    std::stop_token m_stop;
    const std::stop_token *m_previous;
};

// Throws BuildStopped when the innermost ScopedBuildStop of this thread was stopped.
void throwIfBuildStopped();

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

protected:
    // Registers the stage as a child module, so parameters appear in stage order.
    void addStage(const std::string &name, torch::nn::AnyModule stage);

private:
    std::vector<torch::nn::AnyModule> m_stages;
};
TORCH_MODULE(StagedModel);

} // namespace loaderlab::torchmodels
