// checkpointStage: a custom autograd Function whose backward recomputes the stage.
#include "core/torch/checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/autograd.h>

#include <cstdint>
#include <mutex>

namespace loaderlab::torchmodels {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct CheckpointFunction : public torch::autograd::Function<CheckpointFunction>
{
    // The model travels as an address: saved_data holds IValues only, and the model
    // outlives the graph (the step that builds it also runs its backward).
    static torch::Tensor forward(AutogradContext *ctx, torch::Tensor input, std::int64_t model,
                                 std::int64_t stage)
    {
        ctx->saved_data["model"] = model;
        ctx->saved_data["stage"] = stage;
        {
            auto generator = at::detail::getDefaultCPUGenerator();
            std::lock_guard lock(generator.mutex());
            ctx->saved_data["rng"] = generator.get_state();
        }
        ctx->save_for_backward({input});
        torch::NoGradGuard noGrad;
        return modelFrom(ctx)->forwardStage(static_cast<std::size_t>(stage), input);
    }

    static variable_list backward(AutogradContext *ctx, variable_list gradOutputs)
    {
        const torch::Tensor input = ctx->get_saved_variables()[0].detach().requires_grad_(true);
        auto generator = at::detail::getDefaultCPUGenerator();
        torch::Tensor now;
        {
            std::lock_guard lock(generator.mutex());
            now = generator.get_state();
            generator.set_state(ctx->saved_data["rng"].toTensor());
        }
        torch::Tensor output;
        {
            torch::AutoGradMode enableGrad(true);
            output = modelFrom(ctx)->forwardStage(
                static_cast<std::size_t>(ctx->saved_data["stage"].toInt()), input);
        }
        {
            std::lock_guard lock(generator.mutex());
            generator.set_state(now);
        }
        // Accumulates into the stage's parameters' .grad, like a plain backward would.
        torch::autograd::backward({output}, {gradOutputs[0]});
        return {input.grad(), torch::Tensor(), torch::Tensor()};
    }

    static StagedModelImpl *modelFrom(AutogradContext *ctx)
    {
        return reinterpret_cast<StagedModelImpl *>(
            static_cast<std::intptr_t>(ctx->saved_data["model"].toInt()));
    }
};

} // namespace

torch::Tensor checkpointStage(StagedModelImpl &model, std::size_t stage, const torch::Tensor &input)
{
    const auto address = static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(&model));
    return CheckpointFunction::apply(input, address, static_cast<std::int64_t>(stage));
}

} // namespace loaderlab::torchmodels
