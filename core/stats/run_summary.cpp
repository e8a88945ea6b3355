#include "core/stats/run_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>

namespace loaderlab {
namespace {

constexpr double kNsPerMs = 1e6;
constexpr double kNsPerS = 1e9;

} // namespace

const char *inputBoundBandName(InputBoundBand band)
{
    switch (band) {
    case InputBoundBand::NotInputBound:
        return "not input-bound";
    case InputBoundBand::Moderately:
        return "moderately input-bound";
    case InputBoundBand::Highly:
        return "highly input-bound";
    }
    return "";
}

double percentile(std::vector<double> values, double q)
{
    if (values.empty())
        return 0.0;
    std::sort(values.begin(), values.end());
    const double rank = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
    const auto low = static_cast<std::size_t>(std::floor(rank));
    const auto high = std::min(low + 1, values.size() - 1);
    return values[low] + (values[high] - values[low]) * (rank - static_cast<double>(low));
}

InputBoundBand bandForShare(double share)
{
    if (share < 0.05)
        return InputBoundBand::NotInputBound;
    if (share < 0.20)
        return InputBoundBand::Moderately;
    return InputBoundBand::Highly;
}

RunSummary summarize(const std::vector<TraceRecord> &records, const std::vector<WorkerSpan> &spans,
                     int numWorkers, int warmupBatches, std::int64_t skippedSamples)
{
    RunSummary s;
    s.batches = static_cast<std::int64_t>(records.size());
    s.skippedSamples = skippedSamples;
    if (records.empty())
        return s;
    for (const auto &r : records)
        s.samples += r.samples;
    s.firstBatchLatencyMs = static_cast<double>(records.front().deliveryNs) / kNsPerMs;
    s.wallSeconds = static_cast<double>(records.back().computeEndNs) / kNsPerS;

    // Keep at least one batch even when the run is shorter than the warm-up.
    const auto warmup = static_cast<std::size_t>(
        std::clamp<std::int64_t>(warmupBatches, 0, s.batches - 1));
    s.warmupBatches = static_cast<std::int64_t>(warmup);
    const auto steady = std::span(records).subspan(warmup);

    std::vector<double> waits;
    std::int64_t steadySamples = 0;
    double waitSum = 0.0;
    double computeSum = 0.0;
    double copySum = 0.0;
    for (const auto &r : steady) {
        const double wait = static_cast<double>(r.waitNs());
        waits.push_back(wait / kNsPerMs);
        waitSum += wait;
        computeSum += static_cast<double>(r.computeNs());
        copySum += static_cast<double>(r.copyEndNs - r.copyStartNs);
        steadySamples += r.samples;
    }
    // Median throughput over rounds of W batches (one batch per worker), so the
    // one-slow-then-W-fast pattern does not make single-batch rates meaningless.
    std::vector<double> rates;
    const std::size_t round = static_cast<std::size_t>(std::max(numWorkers, 1));
    for (std::size_t i = 0; i + round <= steady.size(); i += round) {
        std::int64_t samples = 0;
        for (std::size_t k = i; k < i + round; ++k)
            samples += steady[k].samples;
        const std::int64_t end = i + round < steady.size() ? steady[i + round].requestNs
                                                          : steady[i + round - 1].computeEndNs;
        const auto step = static_cast<double>(end - steady[i].requestNs);
        if (step > 0)
            rates.push_back(static_cast<double>(samples) / (step / kNsPerS));
    }
    const auto window = static_cast<double>(steady.back().computeEndNs - steady.front().requestNs);
    if (window > 0) {
        s.samplesPerSecMean = steadySamples / (window / kNsPerS);
        s.inputBoundShare = std::clamp(waitSum / window, 0.0, 1.0);
    }
    s.samplesPerSecMedian = percentile(rates, 50);
    s.waitP50Ms = percentile(waits, 50);
    s.waitP95Ms = percentile(waits, 95);
    s.waitP99Ms = percentile(waits, 99);
    s.waitMaxMs = waits.empty() ? 0.0 : *std::max_element(waits.begin(), waits.end());
    s.waitMeanMs = waitSum / kNsPerMs / static_cast<double>(steady.size());
    s.computeMeanMs = computeSum / kNsPerMs / static_cast<double>(steady.size());
    s.copyMeanMs = copySum / kNsPerMs / static_cast<double>(steady.size());
    s.band = bandForShare(s.inputBoundShare);

    // Utilisation over the loading wall time: from the first dispatch to the last
    // batch ready, so idle time after the run's last batch does not count.
    if (numWorkers > 0) {
        std::int64_t begin = records.front().dispatchNs;
        std::int64_t end = 0;
        for (const auto &r : records) {
            begin = std::min(begin, r.dispatchNs);
            end = std::max(end, r.loadEndNs);
        }
        s.workerUtilisation.assign(static_cast<std::size_t>(numWorkers), 0.0);
        for (const auto &span : spans) {
            if (span.worker >= 0 && span.worker < numWorkers)
                s.workerUtilisation[static_cast<std::size_t>(span.worker)] +=
                    static_cast<double>(span.endNs - span.startNs);
        }
        const double wall = static_cast<double>(std::max<std::int64_t>(end - begin, 1));
        double total = 0.0;
        for (auto &u : s.workerUtilisation) {
            u = std::clamp(u / wall, 0.0, 1.0);
            total += u;
        }
        s.meanWorkerUtilisation = total / numWorkers;
    }
    return s;
}

std::string adviceFor(const RunSummary &summary)
{
    char text[160];
    const double pct = summary.inputBoundShare * 100.0;
    switch (summary.band) {
    case InputBoundBand::NotInputBound:
        std::snprintf(text, sizeof text, "input-bound %.0f %%: the loader keeps up; the model step is the limit", pct);
        break;
    case InputBoundBand::Moderately:
        std::snprintf(text, sizeof text, "input-bound %.0f %%: a few more workers or a larger prefetch may help", pct);
        break;
    case InputBoundBand::Highly:
        std::snprintf(text, sizeof text, "input-bound %.0f %%: add workers or preprocess offline", pct);
        break;
    }
    return text;
}

} // namespace loaderlab
