// The max batch size search: doubling, then bisection; the linear peak prediction and
// the budget check around a trial.
#include "core/memory/max_batch_search.h"

#include "core/system/memory_budget.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <utility>

// Marks the suggestion rules for lupdate (context "MaxBatch"): the window translates
// them (widgets/experiments/max_batch_panel.cpp).
#define QT_TRANSLATE_NOOP(scope, text) text

namespace loaderlab {
namespace {

// "predicted 348 MiB over the budget of 320 MiB"; where both round to the same text,
// by how much: "... of 320 MiB (by 96.0 KiB)".
std::string overBudget(const char *what, std::int64_t bytes, std::int64_t budget)
{
    std::string text = std::string(what) + " " + formatBytes(bytes) + " over the budget of "
                       + formatBytes(budget);
    if (formatBytes(bytes) == formatBytes(budget))
        text += " (by " + formatBytes(bytes - budget) + ")";
    return text;
}

} // namespace

const char *searchEndName(SearchEnd end)
{
    switch (end) {
    case SearchEnd::Bracketed:
        return "bracketed";
    case SearchEnd::ReachedMax:
        return "reached-max";
    case SearchEnd::AttemptCap:
        return "attempt-cap";
    case SearchEnd::Stopped:
        return "stopped";
    case SearchEnd::NothingFits:
        return "nothing-fits";
    }
    return "stopped";
}

SearchResult searchMaxBatch(const BatchTrial &trial, const SearchLimits &limits,
                            std::stop_token stop, const AttemptCallback &onAttempt)
{
    if (limits.maxBatch < 1)
        throw std::invalid_argument("max batch: expected at least 1, got "
                                    + std::to_string(limits.maxBatch));
    if (limits.maxAttempts < 1)
        throw std::invalid_argument("max attempts: expected at least 1, got "
                                    + std::to_string(limits.maxAttempts));
    SearchResult result;
    std::int64_t batch = 1;
    for (;;) {
        if (stop.stop_requested()) {
            result.end = SearchEnd::Stopped;
            return result;
        }
        if (static_cast<int>(result.attempts.size()) >= limits.maxAttempts) {
            result.end = SearchEnd::AttemptCap;
            return result;
        }
        BatchAttempt attempt = trial(batch);
        attempt.batch = batch;
        if (attempt.fits)
            result.largestFit = batch; // bisection only ever tries above the largest fit
        else
            result.smallestFailure = batch; // ... and below the smallest failure
        result.attempts.push_back(std::move(attempt));
        if (onAttempt)
            onAttempt(result.attempts.back());

        const std::int64_t low = result.largestFit;
        const std::int64_t high = result.smallestFailure;
        if (high == 0) {
            if (low >= limits.maxBatch) {
                result.end = SearchEnd::ReachedMax;
                return result;
            }
            batch = std::min(low * 2, limits.maxBatch);
        } else if (high - low <= 1) {
            result.end = low == 0 ? SearchEnd::NothingFits : SearchEnd::Bracketed;
            return result;
        } else {
            batch = low + (high - low) / 2;
        }
    }
}

std::int64_t suggestedBatch(std::int64_t largestFit)
{
    if (largestFit <= 0)
        return 0;
    const std::int64_t ninety = largestFit / 10 * 9 + largestFit % 10 * 9 / 10;
    if (ninety >= 8)
        return ninety / 8 * 8;
    return std::max<std::int64_t>(ninety, 1);
}

std::string suggestionRule(std::int64_t largestFit)
{
    if (largestFit <= 0)
        return QT_TRANSLATE_NOOP("MaxBatch", "nothing fits");
    const std::int64_t ninety = largestFit / 10 * 9 + largestFit % 10 * 9 / 10;
    if (ninety >= 8)
        return QT_TRANSLATE_NOOP("MaxBatch", "90 %, multiple of 8");
    return ninety >= 1 ? QT_TRANSLATE_NOOP("MaxBatch", "90 %, rounded down")
                       : QT_TRANSLATE_NOOP("MaxBatch", "at least 1");
}

void PeakPredictor::add(std::int64_t batch, std::int64_t bytes)
{
    if (batch < 1 || bytes <= 0)
        return;
    // A single sample often takes another path than a batch (no parallelism over the
    // batch, no per-thread buffers) and lacks part of the step's fixed memory: a line
    // through batch 1 and 2 then overshoots by far. Batch 1 only stands in until a
    // larger batch was measured.
    if (batch == 1 && m_points.upper_bound(1) != m_points.end())
        return;
    if (batch > 1)
        m_points.erase(1);
    m_points[batch] = bytes;
}

std::int64_t PeakPredictor::predict(std::int64_t batch) const
{
    const auto above = m_points.lower_bound(batch);
    if (above != m_points.end() && above->first == batch)
        return above->second;
    if (above == m_points.begin())
        return 0;
    const auto below = std::prev(above);
    // The line through (b0, p0) and (b1, p1), evaluated at `batch`, in doubles: bytes
    // times batches can leave 64 bits.
    const auto line = [batch](auto p0, auto p1) {
        const double b0 = static_cast<double>(p0->first);
        const double b1 = static_cast<double>(p1->first);
        const double slope = std::max(0.0,
                                      static_cast<double>(p1->second - p0->second) / (b1 - b0));
        return static_cast<double>(p1->second) + slope * (static_cast<double>(batch) - b1);
    };
    double predicted = 0.0;
    if (above != m_points.end())
        predicted = line(below, above);
    else if (below != m_points.begin())
        predicted = line(std::prev(below), below);
    else
        predicted = static_cast<double>(below->second) * static_cast<double>(batch)
                    / static_cast<double>(below->first);
    if (predicted >= 9.2e18)
        return kBytesUnbounded;
    return static_cast<std::int64_t>(predicted);
}

BudgetedTrial::BudgetedTrial(Step step, std::int64_t budgetBytes, Bytes resident,
                             BatchBytes inputBytes)
    : m_step(std::move(step))
    , m_budget(budgetBytes)
    , m_resident(std::move(resident))
    , m_inputBytes(std::move(inputBytes))
{
}

BatchAttempt BudgetedTrial::operator()(std::int64_t batch)
{
    BatchAttempt attempt;
    attempt.batch = batch;
    if (m_budget != kBytesUnbounded) {
        const std::int64_t growth = std::max(m_growth.predict(batch),
                                             m_inputBytes ? m_inputBytes(batch) : std::int64_t{0});
        attempt.predictedBytes = saturatingAdd(m_resident ? m_resident() : 0, growth);
        if (attempt.predictedBytes > m_budget) {
            attempt.reason = overBudget("predicted", attempt.predictedBytes, m_budget);
            return attempt;
        }
    }
    const MeasuredStep step = m_step(batch);
    attempt.ran = true;
    attempt.peakBytes = step.peakBytes;
    attempt.stepMs = step.stepMs;
    if (!step.ok) {
        attempt.reason = step.error.empty() ? std::string("the step failed") : step.error;
        return attempt;
    }
    m_growth.add(batch, step.peakBytes - std::min(step.baseBytes, step.peakBytes));
    if (m_budget != kBytesUnbounded && step.peakBytes > m_budget) {
        attempt.reason = overBudget("measured", step.peakBytes, m_budget);
        return attempt;
    }
    attempt.fits = true;
    return attempt;
}

nlohmann::json attemptJson(const BatchAttempt &attempt)
{
    return {{"batch", attempt.batch},
            {"fits", attempt.fits},
            {"ran", attempt.ran},
            {"reason", attempt.reason},
            {"peak_bytes", attempt.peakBytes},
            {"predicted_bytes", attempt.predictedBytes},
            {"step_ms", attempt.stepMs}};
}

} // namespace loaderlab
