#include "core/lessons/lesson_setup_rule.h"

#include "core/lessons/verdict_support.h"

#include <algorithm>
#include <cmath>

namespace loaderlab {
namespace {

double setupMedian(std::vector<double> v)
{
    if (v.empty())
        return 0.0;
    const auto middle = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), middle, v.end());
    if (v.size() % 2 == 1)
        return *middle;
    const double upper = *middle;
    return (upper + *std::max_element(v.begin(), middle)) / 2.0;
}

// Batches an epoch of `samples` makes at `batch` (the last one short).
std::int64_t batchesPerEpoch(std::int64_t samples, int batch)
{
    return batch > 0 ? (samples + batch - 1) / batch : 0;
}

// The largest batch with at least `needed` batches in an epoch of `samples`; 0 when
// even a batch of 1 makes fewer.
int largestBatchFor(std::int64_t samples, std::int64_t needed)
{
    if (needed <= 1)
        return kMaxSetupBatch;
    // ceil(samples / b) >= needed  <=>  b < samples / (needed - 1)
    const std::int64_t b = (samples + needed - 2) / (needed - 1) - 1;
    return static_cast<int>(std::clamp<std::int64_t>(b, 0, kMaxSetupBatch));
}

} // namespace

LoaderMeasurement measureLoader(const std::vector<TraceRecord> &records, int workers, int batchSize)
{
    LoaderMeasurement m;
    m.workers = workers;
    m.batchSize = batchSize;
    // The first round starts the workers and reads the files for the first time.
    const auto round = static_cast<std::size_t>(std::max(workers, 1));
    const std::size_t from = records.size() > round ? round : 0;
    std::vector<double> perSample;
    double step = 0.0;
    for (std::size_t i = from; i < records.size(); ++i) {
        const TraceRecord &r = records[i];
        const std::int32_t samples = r.samples + r.skipped;
        step += static_cast<double>(r.computeNs()) / 1e6;
        // A batch of only unreadable files says nothing of what loading costs.
        if (r.loadEndNs > r.loadStartNs && r.samples > 0)
            perSample.push_back(static_cast<double>(r.loadNs()) / 1e6 / samples);
    }
    m.batches = static_cast<std::int64_t>(perSample.size());
    if (!perSample.empty())
        m.slowestSampleLoadMs = *std::max_element(perSample.begin(), perSample.end());
    m.sampleLoadMs = setupMedian(perSample);
    m.batchLoadMs = m.sampleLoadMs * batchSize;
    if (records.size() > from)
        m.ownStepMs = step / static_cast<double>(records.size() - from);
    // An epoch's samples, when the run went past its end.
    if (!records.empty()) {
        const std::int32_t first = records.front().epoch;
        std::int64_t samples = 0;
        for (const TraceRecord &r : records) {
            if (r.epoch != first && m.epochSamples == 0)
                m.epochSamples = samples;
            samples += r.samples + r.skipped;
        }
        m.samplesSeen = samples;
    }
    return m;
}

std::int64_t periodEpochBatches(int workers)
{
    const std::int64_t w = std::max(workers, 1);
    return 4 * w + 1;
}

std::int64_t setupBatches(int workers)
{
    const int w = std::max(workers, 1);
    return std::max<std::int64_t>(periodEpochBatches(w), w + 6);
}

StepChoice chooseLessonStep(StepNeed need, bool periodWithinEpochs, int workers,
                            const LoaderMeasurement &m, bool batchFixed)
{
    using verdict::format;
    StepChoice c;
    const int w = std::max(workers, 1);
    c.batchSize = m.batchSize;
    const double perSample = m.sampleLoadMs;
    const std::int64_t needed = periodEpochBatches(w);
    if (need == StepNeed::LoaderLimits && periodWithinEpochs && perSample > 0) {
        // An epoch that did not end in the measuring run holds at least what it read,
        // and may hold no more: a larger batch must leave `needed` batches in that.
        const std::int64_t epochAtLeast = m.epochSamples > 0 ? m.epochSamples : m.samplesSeen;
        const int most = epochAtLeast > 0 ? largestBatchFor(epochAtLeast, needed) : kMaxSetupBatch;
        const bool shortEpochs = m.epochSamples > 0
                                 && batchesPerEpoch(m.epochSamples, m.batchSize) < needed;
        if (shortEpochs) {
            const auto perEpoch = static_cast<long long>(
                batchesPerEpoch(m.epochSamples, m.batchSize));
            const auto samples = static_cast<long long>(m.epochSamples);
            const auto wanted = static_cast<long long>(needed);
            if (!batchFixed && most >= 1 && perSample * most >= kMinSpikeBatchMs) {
                c.batchSize = most;
            } else if (batchFixed) {
                c.problem = format("at batch %d an epoch of %lld samples holds %lld batches, "
                                   "fewer than the %lld a period of %d needs",
                                   m.batchSize, samples, perEpoch, wanted, w);
            } else if (most < 1) {
                c.problem = format("an epoch of %lld samples cannot make the %lld batches a "
                                   "period of %d needs",
                                   samples, wanted, w);
            } else {
                c.problem = format("an epoch of %lld samples makes the %lld batches a period of "
                                   "%d needs only at batch %d or less, and such a batch loads in "
                                   "%.2f ms, too little for spikes to stand out",
                                   samples, wanted, w, most, perSample * most);
            }
            c.readable = c.problem.empty();
        } else if (m.batchLoadMs < kMinSpikeBatchMs) {
            const auto larger = static_cast<int>(std::ceil(kMinSpikeBatchMs / perSample));
            if (!batchFixed && larger <= most) {
                c.batchSize = larger;
            } else {
                c.readable = false;
                c.problem = format("a batch of %d loads in %.2f ms, too little for spikes to "
                                   "stand out",
                                   m.batchSize, m.batchLoadMs);
                const auto wanted = static_cast<long long>(needed);
                const auto samples = static_cast<long long>(epochAtLeast);
                if (!batchFixed && m.epochSamples > 0)
                    c.problem += format(", and a batch of %d that would (%.2f ms) leaves an "
                                        "epoch of %lld samples fewer than the %lld batches a "
                                        "period of %d needs",
                                        larger, perSample * larger, samples, wanted, w);
                else if (!batchFixed)
                    c.problem += format(", and a batch of %d that would (%.2f ms) may leave an "
                                        "epoch fewer than the %lld batches a period of %d needs "
                                        "(the measuring run read %lld samples and no epoch "
                                        "ended)",
                                        larger, perSample * larger, wanted, w, samples);
            }
        }
    }
    c.batchChanged = c.batchSize != m.batchSize;
    if (periodWithinEpochs && m.epochSamples > 0)
        c.epochBatches = batchesPerEpoch(m.epochSamples, c.batchSize);
    c.batchLoadMs = perSample * c.batchSize;
    c.intervalMs = c.batchLoadMs / w;
    c.slowestIntervalMs = std::max(m.slowestSampleLoadMs, perSample) * c.batchSize / w;
    if (need == StepNeed::LoaderLimits)
        c.stepMs = std::max(0.1, std::floor(kLoaderLimitShare * c.intervalMs * 10.0) / 10.0);
    else if (need == StepNeed::StepHides)
        c.stepMs = std::max(1.0, std::ceil(kStepHidesFactor * c.slowestIntervalMs));
    return c;
}

} // namespace loaderlab
