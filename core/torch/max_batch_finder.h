// MaxBatchFinder: the largest batch a model's step fits in, found with real steps
// (TorchConsumer::step, the step the "model" consumer runs) on random input, by the
// search of core/memory/max_batch_search.h. On the CPU a step "fails" when its peak
// resident memory is over the memory budget: a step predicted to go over it is never
// run, so the search cannot end LoaderLab by exhausting the machine's memory. On CUDA
// the caching allocator's out-of-memory error is the failure. Free of LibTorch types,
// so the CLI includes it without LibTorch's headers. See docs/max-batch.md.
#pragma once

#include "core/consumer/consumer.h"
#include "core/memory/max_batch_search.h"

#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>

namespace loaderlab::torchmodels {

struct MaxBatchRequest
{
    ModelConfig model;
    std::int64_t channels = 3; // one sample's shape, C x H x W
    std::int64_t height = 224;
    std::int64_t width = 224;
    std::int64_t memoryBudgetBytes = 0; // host memory; 0: defaultMemoryBudgetBytes()
    SearchLimits limits;
};

struct MaxBatchReport
{
    std::string description;        // the step: model, mode, device, precision, ...
    bool cuda = false;              // on CUDA the budget only bounds the host-side input
    std::int64_t budgetBytes = 0;   // the host memory budget
    std::int64_t baselineBytes = 0; // resident memory once the model was built
    bool peakResetWorks = true;     // false: CPU peaks are the process's lifetime peak
    SearchResult search;            // every attempt; largestFit; how the search ended
    std::int64_t suggested = 0;     // suggestedBatch(search.largestFit)
};

class MaxBatchFinder
{
public:
    // Builds the model as TorchConsumer does: throws std::invalid_argument naming the
    // model and the reason; a stop requested during the build throws
    // torchmodels::BuildStopped (a std::runtime_error).
    explicit MaxBatchFinder(const MaxBatchRequest &request, std::stop_token stop = {});
    ~MaxBatchFinder();
    MaxBatchFinder(const MaxBatchFinder &) = delete;
    MaxBatchFinder &operator=(const MaxBatchFinder &) = delete;

    std::string description() const;
    bool cuda() const;
    std::int64_t budgetBytes() const;
    std::int64_t baselineBytes() const;

    // One step at `batch` on random input, without any budget check (the first call
    // runs an unmeasured step at batch 1 before, so that one-time initialisation is not
    // counted). Errors from the step (c10::Error, std::bad_alloc, a CUDA out-of-memory)
    // come back as a failed MeasuredStep with the message's first line; every tensor of
    // the step is freed before it returns, and freed host memory is handed back to the
    // system (malloc_trim), or the CUDA cache emptied after a failure.
    MeasuredStep step(std::int64_t batch);

    // One attempt within the budget: refused without running when its predicted peak
    // (at least the resident memory plus the input) is over the budget.
    BatchAttempt attempt(std::int64_t batch);

    // The whole search: attempt() at the batches searchMaxBatch() chooses.
    MaxBatchReport run(std::stop_token stop = {}, const AttemptCallback &onAttempt = {});

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Builds the finder and runs it. A stop requested while the model is built gives a
// report with no attempts and SearchEnd::Stopped. Throws std::invalid_argument for a
// model that cannot be built or limits below 1.
MaxBatchReport findMaxBatch(const MaxBatchRequest &request, std::stop_token stop = {},
                            const AttemptCallback &onAttempt = {});

} // namespace loaderlab::torchmodels
