// c10d's ProcessGroupGloo for LoaderLab's rank threads: each rank thread makes its own
// process group (rank r of N) over one in-process HashStore, where gloo's ranks
// exchange their loopback addresses; the gradient is a CPU float32 tensor, summed by
// gloo's ring all-reduce and divided by N, as DDP averages gradients.
#include "core/torch/gloo_exchange.h"

#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/torch.h>
#include <torch/version.h>

#include <stdexcept>
#include <vector>

namespace loaderlab::torchmodels {

namespace {

class GlooExchange : public GradientExchange
{
public:
    GlooExchange(c10::intrusive_ptr<c10d::ProcessGroupGloo> group, int rank, int ranks)
        : m_group(std::move(group))
        , m_rank(rank)
        , m_ranks(ranks)
    {
    }

    void allReduce(std::int64_t bytes) override
    {
        const std::int64_t elements = std::max<std::int64_t>(1, bytes / 4);
        if (!m_gradient.defined() || m_gradient.numel() != elements)
            m_gradient = torch::full({elements}, static_cast<float>(m_rank + 1));
        std::vector<at::Tensor> tensors{m_gradient};
        m_group->allreduce(tensors)->wait();
        m_gradient.div_(m_ranks);
    }

    double sampleValue() const override
    {
        return m_gradient.defined() ? m_gradient[0].item<double>() : m_rank + 1.0;
    }

private:
    c10::intrusive_ptr<c10d::ProcessGroupGloo> m_group;
    int m_rank;
    int m_ranks;
    at::Tensor m_gradient;
};

class GlooGroup : public ExchangeGroup
{
public:
    GlooGroup(int ranks, std::chrono::milliseconds timeout)
        : m_ranks(ranks)
        , m_timeout(timeout)
        , m_store(c10::make_intrusive<c10d::HashStore>())
    {
        m_store->setTimeout(timeout);
    }

    std::unique_ptr<GradientExchange> join(int rank) override
    {
        auto options = c10d::ProcessGroupGloo::Options::create(m_timeout);
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
        // One thread runs this rank's collectives: the step's thread waits for it.
        options->threads = 1;
        try {
            auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(m_store, rank, m_ranks,
                                                                     options);
            return std::make_unique<GlooExchange>(std::move(group), rank, m_ranks);
        } catch (const std::exception &e) {
            throw std::runtime_error("rank " + std::to_string(rank) + " of "
                                     + std::to_string(m_ranks)
                                     + " could not join the gloo group on 127.0.0.1: " + e.what());
        }
    }

    std::string description() const override { return "gloo (c10d) over loopback TCP"; }

private:
    int m_ranks;
    std::chrono::milliseconds m_timeout;
    c10::intrusive_ptr<c10d::HashStore> m_store;
};

} // namespace

std::unique_ptr<ExchangeGroup> makeC10dExchangeGroup(int ranks, const std::string &backend,
                                                     std::chrono::milliseconds timeout)
{
    if (backend == "nccl") {
#ifdef LOADERLAB_TORCH_CUDA
        throw std::runtime_error("the NCCL gradient exchange needs one process per GPU "
                                 "(torch.distributed's launch); LoaderLab's rank threads "
                                 "exchange with gloo: --comm-backend gloo");
#else
        throw std::runtime_error("the NCCL gradient exchange needs CUDA GPUs, and this "
                                 "LibTorch (" TORCH_VERSION ") is built without CUDA: use "
                                 "--comm-backend gloo");
#endif
    }
    if (backend != "gloo")
        throw std::invalid_argument("no gradient exchange backend '" + backend
                                    + "' (gloo or nccl)");
    if (ranks < 2)
        throw std::invalid_argument("a gradient exchange needs 2 ranks or more");
    return std::make_unique<GlooGroup>(ranks, timeout);
}

} // namespace loaderlab::torchmodels
