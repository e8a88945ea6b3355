// MaxBatchFinder: real steps of a TorchConsumer at the batches the search asks for,
// kept within the memory budget, with every tensor freed between attempts.
#include "core/torch/max_batch_finder.h"

#include "core/system/memory_budget.h"
#include "core/torch/staged_model.h"
#include "core/torch/torch_consumer.h"

#ifdef LOADERLAB_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif
#include <torch/torch.h>

#include <chrono>
#include <new>
#include <optional>
#include <stdexcept>

#include <malloc.h>

namespace loaderlab::torchmodels {
namespace {

std::string firstLine(const std::string &text)
{
    return text.substr(0, text.find('\n'));
}

} // namespace

struct MaxBatchFinder::Impl
{
    MaxBatchRequest request;
    std::optional<TorchConsumer> consumer;
    std::int64_t budget = 0;
    std::int64_t baseline = 0;
    bool warmedUp = false;
    std::optional<BudgetedTrial> trial;

    // Bytes of the input and labels of one batch: needed whatever the model does.
    std::int64_t inputBytes(std::int64_t batch) const
    {
        const std::int64_t sample = saturatingMul(
            saturatingMul(saturatingMul(request.channels, request.height), request.width),
            std::int64_t{4});
        return saturatingMul(saturatingAdd(sample, std::int64_t{8}), batch);
    }

    // Runs one step; `measured`, when given, receives its time, peak and base.
    void runStep(std::int64_t batch, MeasuredStep *measured)
    {
        if (measured)
            measured->baseBytes = consumer->device().is_cuda() ? 0 : StepMemory::processRss();
        const auto &shape = request;
        torch::Tensor input = torch::rand({batch, shape.channels, shape.height, shape.width});
        torch::Tensor labels = torch::randint(0, request.model.numClasses, {batch},
                                              torch::TensorOptions().dtype(torch::kInt64));
        const auto start = std::chrono::steady_clock::now();
        consumer->step(input, labels);
        if (!measured)
            return;
        measured->stepMs = std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - start)
                               .count();
        measured->peakBytes = consumer->lastStepPeakBytes();
    }

    // Hands freed memory back, so that the next attempt starts where the first did:
    // glibc keeps freed heap memory resident, and the CPU and CUDA allocators keep
    // their caches.
    void release(bool failed) const
    {
        if (consumer->device().is_cuda()) {
#ifdef LOADERLAB_TORCH_CUDA
            if (failed)
                c10::cuda::CUDACachingAllocator::emptyCache();
#endif
            return;
        }
        static_cast<void>(failed);
        emptyCpuCache();
        malloc_trim(0);
    }

    MeasuredStep step(std::int64_t batch)
    {
        MeasuredStep result;
        try {
            if (!warmedUp) {
                warmedUp = true;
                runStep(1, nullptr);
            }
            runStep(batch, &result);
            result.ok = true;
        } catch (const c10::Error &e) {
            result.error = firstLine(e.what_without_backtrace());
        } catch (const std::bad_alloc &) {
            result.error = "out of memory (std::bad_alloc)";
        } catch (const std::exception &e) {
            result.error = firstLine(e.what());
        }
        release(!result.ok);
        return result;
    }

    BatchAttempt attempt(std::int64_t batch)
    {
        // On CUDA the budget is not the device's: only the host-side input is bounded.
        if (consumer->device().is_cuda() && inputBytes(batch) > budget) {
            BatchAttempt refused;
            refused.batch = batch;
            refused.predictedBytes = inputBytes(batch);
            refused.reason = "the input alone takes " + formatBytes(refused.predictedBytes)
                             + ", over the host memory budget of " + formatBytes(budget);
            return refused;
        }
        return (*trial)(batch);
    }
};

MaxBatchFinder::MaxBatchFinder(const MaxBatchRequest &request, std::stop_token stop)
    : m_impl(std::make_unique<Impl>())
{
    Impl &d = *m_impl;
    d.request = request;
    if (request.channels < 1 || request.height < 1 || request.width < 1)
        throw std::invalid_argument("input shape: every side must be at least 1");
    d.budget = request.memoryBudgetBytes > 0 ? request.memoryBudgetBytes
                                             : defaultMemoryBudgetBytes();
    ConsumerConfig config;
    config.kind = ConsumerKind::Model;
    config.model = request.model;
    {
        const ScopedBuildStop buildStop(std::move(stop));
        d.consumer.emplace(config, 0);
    }
    malloc_trim(0);
    d.baseline = StepMemory::processRss();
    // The input is the least a step needs on top of what is resident, and all there is
    // to go on for batch 1.
    d.trial.emplace([&d](std::int64_t batch) { return d.step(batch); },
                    d.consumer->device().is_cuda() ? kBytesUnbounded : d.budget,
                    [] { return StepMemory::processRss(); },
                    [&d](std::int64_t batch) { return d.inputBytes(batch); });
}

MaxBatchFinder::~MaxBatchFinder() = default;

std::string MaxBatchFinder::description() const
{
    const auto &r = m_impl->request;
    return m_impl->consumer->description() + ", input " + std::to_string(r.channels) + "x"
           + std::to_string(r.height) + "x" + std::to_string(r.width);
}

bool MaxBatchFinder::cuda() const
{
    return m_impl->consumer->device().is_cuda();
}

std::int64_t MaxBatchFinder::budgetBytes() const
{
    return m_impl->budget;
}

std::int64_t MaxBatchFinder::baselineBytes() const
{
    return m_impl->baseline;
}

MeasuredStep MaxBatchFinder::step(std::int64_t batch)
{
    return m_impl->step(batch);
}

BatchAttempt MaxBatchFinder::attempt(std::int64_t batch)
{
    return m_impl->attempt(batch);
}

MaxBatchReport MaxBatchFinder::run(std::stop_token stop, const AttemptCallback &onAttempt)
{
    MaxBatchReport report;
    report.description = description();
    report.cuda = cuda();
    report.budgetBytes = budgetBytes();
    report.baselineBytes = baselineBytes();
    report.search = searchMaxBatch([this](std::int64_t batch) { return attempt(batch); },
                                   m_impl->request.limits, std::move(stop), onAttempt);
    report.peakResetWorks = m_impl->consumer->peakResetWorks();
    report.suggested = suggestedBatch(report.search.largestFit);
    return report;
}

MaxBatchReport findMaxBatch(const MaxBatchRequest &request, std::stop_token stop,
                            const AttemptCallback &onAttempt)
{
    // Checked before minutes of model building, not after.
    if (request.limits.maxBatch < 1 || request.limits.maxAttempts < 1)
        searchMaxBatch({}, request.limits); // throws std::invalid_argument naming the limit
    std::optional<MaxBatchFinder> finder;
    try {
        finder.emplace(request, stop);
    } catch (const BuildStopped &) {
        MaxBatchReport stopped;
        stopped.search.end = SearchEnd::Stopped;
        return stopped;
    }
    return finder->run(std::move(stop), onAttempt);
}

} // namespace loaderlab::torchmodels
