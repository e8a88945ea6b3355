// TorchConsumer: the "model" consumer. Runs a LibTorch model (a built-in one or a
// TorchScript file) on every delivered batch, for inference or as a training step,
// and stamps the host-to-device copy and the step into the batch's trace.
#pragma once

#include "core/consumer/consumer.h"
#include "core/torch/cpu_caching_allocator.h"
#include "core/torch/staged_model.h"
#include "core/torch/step_memory.h"

#include <torch/optim/optimizer.h>
#include <torch/script.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loaderlab::torchmodels {

class TorchConsumer final : public Consumer
{
public:
    // Builds the model and moves it to the device. Throws std::invalid_argument naming
    // the model or file and the reason (unknown model, missing or broken TorchScript
    // file, CUDA unavailable, fp16 on CPU, checkpointing without stages).
    TorchConsumer(const ConsumerConfig &config, std::int64_t originNs);
    ~TorchConsumer() override;

    std::string description() const override;
    void consume(const Batch &batch, TraceRecord &record, std::stop_token stop) override;
    std::int64_t peakMemoryBytes() const override { return m_memory.peakBytes(); }
    // The peak of the last step alone (what peakMemoryBytes() measures, for one step).
    std::int64_t lastStepPeakBytes() const { return m_memory.lastStepBytes(); }
    bool peakResetWorks() const { return m_memory.resetWorks(); }

    // One step on host tensors, as consume() does it: `input` [N, C, H, W] float32 or
    // uint8 (scaled by 1/255), `labels` int64 [N]. Returns the model's output on the
    // host (inference) or the loss (train, a scalar).
    torch::Tensor step(const torch::Tensor &input, const torch::Tensor &labels);

    // The model's parameters (their .grad() holds the last training step's gradients).
    std::vector<torch::Tensor> parameters() const;
    const ModelConfig &config() const { return m_config; }
    torch::Device device() const { return m_device; }
    std::string modelName() const; // built-in name or the script file

private:
    void checkInputShape(const torch::Tensor &input) const;
    torch::Tensor toDevice(const torch::Tensor &host, bool nonBlocking);
    torch::Tensor forward(const torch::Tensor &input);
    torch::Tensor forwardCheckpointed(const torch::Tensor &input);
    torch::Tensor computeStep(const torch::Tensor &input, const torch::Tensor &labels);

    CpuCacheScope m_cache; // first: emptied after the model and its tensors are gone
    ModelConfig m_config;
    std::int64_t m_originNs;
    torch::Device m_device;
    std::optional<StagedModel> m_builtin;
    std::optional<torch::jit::Module> m_script;
    std::unique_ptr<torch::optim::Optimizer> m_optimizer;
    torch::Tensor m_staging; // pinned host buffer reused across batches (CUDA only)
    StepMemory m_memory;
};

// The factory registered by registerTorchConsumer().
// Throws BuildStopped (core/torch/staged_model.h) when `stop` is requested mid-build.
std::unique_ptr<Consumer> makeTorchConsumer(const ConsumerConfig &config, std::int64_t originNs,
                                            std::stop_token stop);

} // namespace loaderlab::torchmodels
