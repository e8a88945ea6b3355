// Activation checkpointing per stage: the stage's forward runs without building a
// graph (only its input is kept); backward runs it again with grad enabled and
// backpropagates through that recomputation, as torch.utils.checkpoint does.
#pragma once

#include "core/torch/staged_model.h"

#include <cstddef>

namespace loaderlab::torchmodels {

// Runs stage `stage` of `model` on `input` under checkpointing. `input` must require
// grad (or come from a checkpointed stage) for the stage's parameters to get gradients.
// The CPU random generator's state is restored for the recomputation, so dropout
// masks match. Batch-norm running statistics are updated twice (as in PyTorch).
torch::Tensor checkpointStage(StagedModelImpl &model, std::size_t stage,
                              const torch::Tensor &input);

} // namespace loaderlab::torchmodels
