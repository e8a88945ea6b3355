#pragma once

// The search behind `loaderlab max-batch`, without any model: the batch grows by
// doubling (1, 2, 4, ...) until a trial fails, then is bisected between the last batch
// that fitted and the first that did not, as Lightning's BatchSizeFinder does in its
// "binsearch" mode, within a largest batch and a number of attempts. What a trial is
// (a real model step, a fake in tests) belongs to the caller. The memory prediction
// that keeps a trial from allocating what would not fit lives here too (BudgetedTrial),
// so that both can be tested without LibTorch. See docs/max-batch.md.

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <stop_token>
#include <string>
#include <vector>

namespace loaderlab {

struct BatchAttempt
{
    std::int64_t batch = 0;
    bool fits = false;
    bool ran = false;                // a step ran; false: refused by the prediction
    std::string reason;              // why it did not fit; empty when it fits
    std::int64_t peakBytes = 0;      // measured peak of the step; 0 when none ran
    std::int64_t predictedBytes = 0; // predicted peak; 0 when nothing could be predicted
    double stepMs = 0.0;
};

enum class SearchEnd {
    Bracketed,   // largestFit fits and largestFit + 1 does not
    ReachedMax,  // the largest allowed batch fits; larger ones were not tried
    AttemptCap,  // out of attempts: the boundary lies between largestFit and smallestFailure
    Stopped,     // a stop was requested
    NothingFits, // not even batch 1
};
const char *searchEndName(SearchEnd end); // "bracketed", "reached-max", ...

struct SearchLimits
{
    std::int64_t maxBatch = 65536; // >= 1
    int maxAttempts = 40;          // >= 1; 17 doublings and 16 bisections reach 65536
};

struct SearchResult
{
    std::vector<BatchAttempt> attempts; // in the order they were made
    std::int64_t largestFit = 0;        // 0: none fitted
    std::int64_t smallestFailure = 0;   // 0: none failed
    SearchEnd end = SearchEnd::Stopped;
};

using BatchTrial = std::function<BatchAttempt(std::int64_t batch)>;
using AttemptCallback = std::function<void(const BatchAttempt &)>;

// Tries batch 1, then doubles (the last doubling is clamped to maxBatch) while trials
// fit; after the first failure bisects: next = low + (high - low) / 2 between the
// largest batch that fitted (low) and the smallest that failed (high), until
// high - low == 1. Checks `stop` before every attempt. `onAttempt` sees each attempt
// as soon as it is made. Throws std::invalid_argument for limits below 1.
SearchResult searchMaxBatch(const BatchTrial &trial, const SearchLimits &limits,
                            std::stop_token stop = {}, const AttemptCallback &onAttempt = {});

// The batch to use: 90 % of the largest that fits, rounded down, then down to a
// multiple of 8 when that is at least 8; at least 1 (0 when nothing fits).
std::int64_t suggestedBatch(std::int64_t largestFit);
// How suggestedBatch() got there: "90 %, multiple of 8", "90 %, rounded down".
std::string suggestionRule(std::int64_t largestFit);

// Memory of a step as a function of the batch, predicted from measured points:
// between two measured batches by interpolation, above them by extrapolating the line
// through the two largest (slope at least 0), from a single point in proportion to
// the batch (an upper bound when the step has a fixed part). 0 below every point
// (nothing to go on). Batch 1 is left out once a larger batch was measured (see add()).
class PeakPredictor
{
public:
    void add(std::int64_t batch, std::int64_t bytes);
    std::int64_t predict(std::int64_t batch) const;
    bool empty() const { return m_points.empty(); }

private:
    std::map<std::int64_t, std::int64_t> m_points;
};

// What one real step reports.
struct MeasuredStep
{
    bool ok = false;
    std::string error;          // first line of the failure, when !ok
    std::int64_t peakBytes = 0; // peak during the step; 0 when not measured
    double stepMs = 0.0;
    std::int64_t baseBytes = 0; // resident just before the step (its input not yet made)
};

// A trial kept within a memory budget. The step's own memory, its growth
// (peakBytes - baseBytes), is what scales with the batch; the rest (libraries, the
// model) is what is resident anyway. So before a step its peak is predicted as
// resident() now plus the larger of PeakPredictor's growth and inputBytes(batch)
// (needed whatever the model does), and the step is refused without running when that
// is over the budget; after a step, the measured peak is compared with the budget.
// A budget of kBytesUnbounded predicts nothing and runs every step.
class BudgetedTrial
{
public:
    using Step = std::function<MeasuredStep(std::int64_t batch)>;
    using Bytes = std::function<std::int64_t()>;
    using BatchBytes = std::function<std::int64_t(std::int64_t batch)>;

    BudgetedTrial(Step step, std::int64_t budgetBytes, Bytes resident = {},
                  BatchBytes inputBytes = {});
    BatchAttempt operator()(std::int64_t batch);

private:
    Step m_step;
    std::int64_t m_budget;
    Bytes m_resident;
    BatchBytes m_inputBytes;
    PeakPredictor m_growth;
};

// {"batch", "fits", "ran", "reason", "peak_bytes", "predicted_bytes", "step_ms"}
nlohmann::json attemptJson(const BatchAttempt &attempt);

} // namespace loaderlab
