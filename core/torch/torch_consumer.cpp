// TorchConsumer: model construction, the host-to-device hand-over and the step.
#include "core/torch/torch_consumer.h"

#include "core/system/regular_file.h"
#include "core/torch/checkpoint.h"
#include "core/torch/model_zoo.h"

#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <torch/cuda.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>
#include <torch/optim/sgd.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <thread>

namespace loaderlab::torchmodels {
namespace {

std::string shapeText(torch::IntArrayRef sizes)
{
    std::string text;
    for (const auto size : sizes)
        text += (text.empty() ? "" : "x") + std::to_string(size);
    return text;
}

torch::Device parseDevice(const std::string &name)
{
    if (name != "cpu" && name != "cuda" && !name.starts_with("cuda:"))
        throw std::invalid_argument("device '" + name + "': expected cpu, cuda or cuda:N");
    try {
        const torch::Device device(name);
        if (device.is_cuda() && !torch::cuda::is_available())
            throw std::invalid_argument("device '" + name
                                        + "': CUDA is not available (CPU-only LibTorch or no GPU)");
        if (device.is_cuda() && device.index() >= static_cast<int>(torch::cuda::device_count()))
            throw std::invalid_argument("device '" + name + "': no such GPU");
        return device;
    } catch (const c10::Error &e) {
        throw std::invalid_argument("device '" + name + "': " + e.what_without_backtrace());
    }
}

torch::jit::Module loadScript(const std::string &path)
{
    // torch::jit::load opens the path itself and would block forever on a FIFO.
    if (const std::string problem = regularFileProblem(path); !problem.empty()) {
        throw std::invalid_argument(
            path + ": model file "
            + (problem == "no such file or directory" ? "not found" : problem));
    }
    try {
        return torch::jit::load(path);
    } catch (const std::exception &e) {
        std::string reason = e.what();
        reason = reason.substr(0, reason.find('\n'));
        throw std::invalid_argument(path + ": not a TorchScript module (" + reason + ")");
    }
}

// Autocast for the forward pass: bf16 on CPU, fp16/bf16 on CUDA. LibTorch 1.13's C++
// API has no autocast guard class, so this sets the thread-local state and restores it.
class AutocastScope
{
public:
    AutocastScope(const torch::Device &device, ModelPrecision precision)
        : m_active(precision != ModelPrecision::Float32)
        , m_cuda(device.is_cuda())
    {
        if (!m_active)
            return;
        const auto dtype = precision == ModelPrecision::BFloat16 ? at::kBFloat16 : at::kHalf;
        if (m_cuda) {
            at::autocast::set_enabled(true);
            at::autocast::set_autocast_gpu_dtype(dtype);
        } else {
            at::autocast::set_cpu_enabled(true);
            at::autocast::set_autocast_cpu_dtype(dtype);
        }
        at::autocast::increment_nesting();
    }
    ~AutocastScope()
    {
        if (!m_active)
            return;
        if (at::autocast::decrement_nesting() == 0)
            at::autocast::clear_cache();
        if (m_cuda)
            at::autocast::set_enabled(false);
        else
            at::autocast::set_cpu_enabled(false);
    }
    AutocastScope(const AutocastScope &) = delete;
    AutocastScope &operator=(const AutocastScope &) = delete;

private:
    bool m_active;
    bool m_cuda;
};

} // namespace

TorchConsumer::TorchConsumer(const ConsumerConfig &config, std::int64_t originNs)
    : m_config(config.model)
    , m_originNs(originNs)
    , m_device(parseDevice(config.model.device))
    , m_memory(m_device.is_cuda() ? m_device.index() < 0 ? 0 : m_device.index() : -1)
{
    const ModelConfig &c = m_config;
    if (c.precision == ModelPrecision::Float16 && !m_device.is_cuda())
        throw std::invalid_argument("precision fp16 needs a CUDA device; use bf16 on the CPU");
    if (c.optimizer != "sgd" && c.optimizer != "adam")
        throw std::invalid_argument("optimizer '" + c.optimizer + "': expected sgd or adam");
    // Debian's LibTorch starts with one intra-op thread: always set the count.
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    at::set_num_threads(c.threads > 0 ? c.threads : static_cast<int>(cores));

    std::vector<torch::Tensor> params;
    if (!c.scriptPath.empty()) {
        if (c.checkpointing && c.mode == ModelMode::Train)
            throw std::invalid_argument(c.scriptPath
                                        + ": checkpointing needs a built-in model "
                                          "(a TorchScript module has no stages)");
        m_script = loadScript(c.scriptPath);
        m_script->to(m_device);
        if (c.mode == ModelMode::Train)
            m_script->train();
        else
            m_script->eval();
        for (const auto &p : m_script->parameters())
            params.push_back(p);
    } else {
        m_builtin = makeModel(c.name, c.numClasses);
        (*m_builtin)->to(m_device);
        (*m_builtin)->train(c.mode == ModelMode::Train);
        params = (*m_builtin)->parameters();
    }
    if (c.channelsLast) {
        torch::NoGradGuard noGrad;
        for (auto &p : params) {
            if (p.dim() == 4)
                p.set_data(p.contiguous(at::MemoryFormat::ChannelsLast));
        }
    }
    if (c.mode == ModelMode::Train) {
        if (c.optimizer == "adam")
            m_optimizer = std::make_unique<torch::optim::Adam>(
                params, torch::optim::AdamOptions(c.learningRate));
        else
            m_optimizer = std::make_unique<torch::optim::SGD>(
                params, torch::optim::SGDOptions(c.learningRate));
    }
}

TorchConsumer::~TorchConsumer() = default;

std::string TorchConsumer::modelName() const
{
    return m_config.scriptPath.empty() ? m_config.name : m_config.scriptPath;
}

std::string TorchConsumer::description() const
{
    std::ostringstream out;
    out << modelName() << ' ' << modelModeName(m_config.mode) << ' ' << m_device.str() << ' '
        << modelPrecisionName(m_config.precision);
    if (m_config.channelsLast)
        out << " channels-last";
    if (m_config.checkpointing && m_config.mode == ModelMode::Train)
        out << " checkpointing";
    return out.str();
}

std::vector<torch::Tensor> TorchConsumer::parameters() const
{
    if (m_builtin)
        return (*m_builtin)->parameters();
    std::vector<torch::Tensor> params;
    for (const auto &p : m_script->parameters())
        params.push_back(p);
    return params;
}

void TorchConsumer::checkInputShape(const torch::Tensor &input) const
{
    if (!m_builtin)
        return; // a TorchScript module's expectations are unknown: forward() reports them
    const bool vit = m_config.name.starts_with("vit_");
    const auto sizes = input.sizes();
    if (sizes.size() == 4 && sizes[1] == 3 && (!vit || (sizes[2] == 224 && sizes[3] == 224)))
        return;
    throw std::invalid_argument("model '" + m_config.name + "' expects input Nx3x"
                                + std::string(vit ? "224x224" : "HxW") + ", got a batch of "
                                + shapeText(sizes));
}

torch::Tensor TorchConsumer::toDevice(const torch::Tensor &host, bool nonBlocking)
{
    if (!m_device.is_cuda())
        return host;
    // One pinned staging buffer, grown when needed and reused: pinning per batch costs
    // more than the copy it speeds up.
    const auto bytes = static_cast<std::int64_t>(host.nbytes());
    if (!m_staging.defined() || m_staging.numel() < bytes)
        m_staging = torch::empty({bytes},
                                 torch::TensorOptions().dtype(torch::kUInt8).pinned_memory(true));
    std::memcpy(m_staging.data_ptr(), host.data_ptr(), host.nbytes());
    const torch::Tensor staged =
        m_staging.narrow(0, 0, bytes).view(host.scalar_type()).view(host.sizes());
    return staged.to(m_device, nonBlocking);
}

torch::Tensor TorchConsumer::forward(const torch::Tensor &input)
{
    try {
        if (m_script)
            return m_script->forward({input}).toTensor();
        if (m_config.checkpointing && m_config.mode == ModelMode::Train)
            return forwardCheckpointed(input);
        return (*m_builtin)->forward(input);
    } catch (const c10::Error &e) {
        std::string reason = e.what_without_backtrace();
        reason = reason.substr(0, reason.find('\n'));
        throw std::invalid_argument("model '" + modelName() + "' failed on a batch of "
                                    + shapeText(input.sizes()) + ": " + reason);
    }
}

torch::Tensor TorchConsumer::forwardCheckpointed(const torch::Tensor &input)
{
    // The first stage's input must require grad, or no stage's output would (the
    // checkpoint Function only tracks tensor inputs); this costs one input gradient.
    torch::Tensor x = input.detach().requires_grad_(true);
    auto &model = **m_builtin;
    for (std::size_t i = 0; i < model.stageCount(); ++i)
        x = checkpointStage(model, i, x);
    return x;
}

torch::Tensor TorchConsumer::computeStep(const torch::Tensor &input, const torch::Tensor &labels)
{
    if (m_config.mode == ModelMode::Inference) {
        torch::InferenceMode inference;
        AutocastScope autocast(m_device, m_config.precision);
        return forward(input);
    }
    m_optimizer->zero_grad();
    torch::Tensor output;
    {
        AutocastScope autocast(m_device, m_config.precision);
        output = forward(input);
    }
    torch::Tensor loss = torch::nn::functional::cross_entropy(output.to(torch::kFloat32), labels);
    loss.backward();
    m_optimizer->step();
    return loss.detach();
}

std::unique_ptr<Consumer> makeTorchConsumer(const ConsumerConfig &config, std::int64_t originNs,
                                            std::stop_token stop)
{
    const ScopedBuildStop buildStop(std::move(stop));
    return std::make_unique<TorchConsumer>(config, originNs);
}

} // namespace loaderlab::torchmodels
