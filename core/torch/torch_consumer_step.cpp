// TorchConsumer's per-batch work: wrapping the batch buffer, the host-to-device copy
// and the step, each stamped into the trace.
#include "core/torch/torch_consumer.h"

#include "core/loader/batch.h"
#include "core/system/clock.h"

#ifdef LOADERLAB_TORCH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#endif
#include <torch/cuda.h>

#include <optional>

namespace loaderlab::torchmodels {
namespace {

// The device-side input: uint8 scaled to [0, 1], channels-last if asked. On the CPU
// without either conversion the batch buffer itself is the model's input.
torch::Tensor prepareInput(const torch::Tensor &onDevice, bool channelsLast)
{
    torch::Tensor x = onDevice;
    if (x.scalar_type() == torch::kUInt8)
        x = x.to(torch::kFloat32).div_(255.0);
    if (channelsLast)
        x = x.contiguous(at::MemoryFormat::ChannelsLast);
    return x;
}

} // namespace

torch::Tensor TorchConsumer::step(const torch::Tensor &input, const torch::Tensor &labels)
{
    checkInputShape(input);
    const torch::Tensor x = prepareInput(toDevice(input.contiguous(), false),
                                         m_config.channelsLast);
    const torch::Tensor y = toDevice(labels.to(torch::kInt64).remainder(m_config.numClasses),
                                     false);
    m_memory.beginStep();
    torch::Tensor result = computeStep(x, y);
    if (m_device.is_cuda())
        torch::cuda::synchronize();
    m_memory.endStep();
    return result.to(torch::kCPU);
}

void TorchConsumer::consume(const Batch &batch, TraceRecord &record, std::stop_token)
{
    const SampleShape shape = batch.shape();
    const auto dtype = batch.dtype() == DType::UInt8 ? torch::kUInt8 : torch::kFloat32;
    // No copy: the tensor views the batch's buffer, which outlives the step, and
    // nothing writes through it (conversions make new tensors).
    void *data = const_cast<std::byte *>(batch.data().data());
    const torch::Tensor host = torch::from_blob(
        data, {batch.size(), shape.channels, shape.height, shape.width},
        torch::TensorOptions().dtype(dtype));
    checkInputShape(host);
    const torch::Tensor labels = torch::from_blob(const_cast<std::int64_t *>(batch.labels.data()),
                                                  {static_cast<std::int64_t>(batch.labels.size())},
                                                  torch::TensorOptions().dtype(torch::kInt64))
                                     .remainder(m_config.numClasses);

    record.copyStartNs = steadyNowNs() - m_originNs;
    torch::Tensor x;
    torch::Tensor y;
#ifdef LOADERLAB_TORCH_CUDA
    std::optional<at::cuda::CUDAEvent> copyStarted;
    std::optional<at::cuda::CUDAEvent> copyDone;
    std::int64_t stagedNs = 0;
#endif
    if (m_device.is_cuda()) {
#ifdef LOADERLAB_TORCH_CUDA
        // The transfer is asynchronous: CUDA events time it on the stream, and its end
        // is stamped once the step has synchronised.
        const auto stream = at::cuda::getCurrentCUDAStream(m_device.index());
        copyStarted.emplace(cudaEventDefault);
        copyDone.emplace(cudaEventDefault);
        copyStarted->record(stream);
        x = toDevice(host, true);
        y = toDevice(labels, true);
        copyDone->record(stream);
        stagedNs = steadyNowNs() - m_originNs - record.copyStartNs;
#else
        x = toDevice(host, true);
        y = toDevice(labels, true);
        torch::cuda::synchronize();
#endif
        x = prepareInput(x, m_config.channelsLast);
        record.copyEndNs = steadyNowNs() - m_originNs;
    } else {
        x = prepareInput(host, m_config.channelsLast);
        y = labels;
        // Equal stamps mean no copy: the model reads the batch buffer directly.
        record.copyEndNs = x.data_ptr() == host.data_ptr() ? record.copyStartNs
                                                           : steadyNowNs() - m_originNs;
    }

    m_memory.beginStep();
    record.computeStartNs = steadyNowNs() - m_originNs;
    computeStep(x, y);
    if (m_device.is_cuda())
        torch::cuda::synchronize();
    record.computeEndNs = steadyNowNs() - m_originNs;
    m_memory.endStep();
#ifdef LOADERLAB_TORCH_CUDA
    if (copyStarted) {
        const double copyMs = copyStarted->elapsed_time(*copyDone);
        record.copyEndNs = record.copyStartNs + stagedNs + static_cast<std::int64_t>(copyMs * 1e6);
    }
#endif
}

} // namespace loaderlab::torchmodels
