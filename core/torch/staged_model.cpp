// StagedModel: runs its registered stages in order.
#include "core/torch/staged_model.h"

#include <stdexcept>
#include <utility>

namespace loaderlab::torchmodels {

StagedModelImpl::StagedModelImpl(std::string name)
    : torch::nn::Module(std::move(name))
{
}

torch::Tensor StagedModelImpl::forward(torch::Tensor x)
{
    for (auto &stage : m_stages)
        x = stage.forward(std::move(x));
    return x;
}

torch::Tensor StagedModelImpl::forwardStage(std::size_t i, torch::Tensor x)
{
    if (i >= m_stages.size())
        throw std::out_of_range(name() + ": stage " + std::to_string(i)
                                + " out of range (model has " + std::to_string(m_stages.size())
                                + " stages)");
    return m_stages[i].forward(std::move(x));
}

std::size_t StagedModelImpl::stageCount() const
{
    return m_stages.size();
}

namespace {

thread_local const std::stop_token *t_buildStop = nullptr;

} // namespace

ScopedBuildStop::ScopedBuildStop(std::stop_token stop)
    : m_stop(std::move(stop))
    , m_previous(t_buildStop)
{
    t_buildStop = &m_stop;
}

ScopedBuildStop::~ScopedBuildStop()
{
    t_buildStop = m_previous;
}

void throwIfBuildStopped()
{
    if (t_buildStop && t_buildStop->stop_requested())
        throw BuildStopped();
}

void StagedModelImpl::addStage(const std::string &name, torch::nn::AnyModule stage)
{
    throwIfBuildStopped();
    register_module(name, stage.ptr());
    m_stages.push_back(std::move(stage));
}

} // namespace loaderlab::torchmodels
