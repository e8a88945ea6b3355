// The summary computed the straightforward way, from the whole stored trace, as
// RunSummary's definitions read (docs/metrics.md). test_summary_accumulator checks
// that SummaryAccumulator, which summarize() uses and which keeps no trace, gives
// the same figures.

#include "reference_summary.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace loaderlab {
namespace {

constexpr double kNsPerMs = 1e6;
constexpr double kNsPerS = 1e9;

} // namespace

namespace {

using Records = std::span<const TraceRecord>;

// Throughput of rounds of W consecutive batches (one per worker; single batches
// when W = 0), so the one-slow-then-W-fast pattern does not make single-batch rates
// meaningless. `next`: the request of the batch after the span, or 0 at the end.
void roundRates(Records steady, int numWorkers, std::int64_t next, std::vector<double> &rates)
{
    // Fewer batches than one round (a short run after warm-up): one partial round,
    // rather than no figure at all.
    const std::size_t round = std::min(static_cast<std::size_t>(std::max(numWorkers, 1)),
                                       std::max<std::size_t>(steady.size(), 1));
    for (std::size_t i = 0; i + round <= steady.size(); i += round) {
        std::int64_t samples = 0;
        for (std::size_t k = i; k < i + round; ++k)
            samples += steady[k].samples;
        const std::int64_t end = i + round < steady.size() ? steady[i + round].requestNs
                                 : next > 0                ? next
                                                           : steady[i + round - 1].computeEndNs;
        const auto step = static_cast<double>(end - steady[i].requestNs);
        if (step > 0)
            rates.push_back(static_cast<double>(samples) / (step / kNsPerS));
    }
}

// Busy time per worker over one segment's loading wall time: from its first
// dispatch to its last batch ready, so idle time after the last batch does not count.
struct Utilisation
{
    std::vector<double> busyNs; // one per worker
    double wallNs = 0.0;
};

Utilisation utilisation(Records segment, std::span<const WorkerSpan> spans, int numWorkers)
{
    Utilisation u;
    if (numWorkers <= 0 || segment.empty())
        return u;
    std::int64_t begin = segment.front().dispatchNs;
    std::int64_t end = 0;
    for (const auto &r : segment) {
        begin = std::min(begin, r.dispatchNs);
        end = std::max(end, r.loadEndNs);
    }
    u.wallNs = static_cast<double>(std::max<std::int64_t>(end - begin, 1));
    u.busyNs.assign(static_cast<std::size_t>(numWorkers), 0.0);
    for (const auto &span : spans) {
        if (span.worker >= 0 && span.worker < numWorkers)
            u.busyNs[static_cast<std::size_t>(span.worker)] += static_cast<double>(span.endNs
                                                                                   - span.startNs);
    }
    return u;
}

// Spans of the batches [first, last] (spans are in batch order).
std::span<const WorkerSpan> spansOf(std::span<const WorkerSpan> spans, std::int64_t first,
                                    std::int64_t last)
{
    const auto lo = std::lower_bound(
        spans.begin(), spans.end(), first,
        [](const WorkerSpan &s, std::int64_t b) { return s.batch < b; });
    const auto hi = std::upper_bound(
        lo, spans.end(), last, [](std::int64_t b, const WorkerSpan &s) { return b < s.batch; });
    return {lo, hi};
}

struct WaitFigures
{
    std::vector<double> waitsMs;
    double waitSumNs = 0.0;
    double windowNs = 0.0;
    std::int64_t samples = 0;
};

WaitFigures waitFigures(Records steady)
{
    WaitFigures f;
    for (const auto &r : steady) {
        f.waitsMs.push_back(static_cast<double>(r.waitNs()) / kNsPerMs);
        f.waitSumNs += static_cast<double>(r.waitNs());
        f.samples += r.samples;
    }
    if (!steady.empty())
        f.windowNs = static_cast<double>(steady.back().computeEndNs - steady.front().requestNs);
    return f;
}

} // namespace

RunSummary referenceSummarize(const std::vector<TraceRecord> &records,
                              const std::vector<WorkerSpan> &spans,
                              const std::vector<int> &workersByVersion, int warmupBatches,
                              std::int64_t skippedSamples)
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
    const auto workersOf = [&workersByVersion](std::int32_t version) {
        if (workersByVersion.empty())
            return 0;
        const auto v = static_cast<std::size_t>(std::max(version, 0));
        return workersByVersion[std::min(v, workersByVersion.size() - 1)];
    };

    // Keep at least one batch even when the run is shorter than the warm-up.
    const auto warmup = static_cast<std::size_t>(
        std::clamp<std::int64_t>(warmupBatches, 0, s.batches - 1));
    s.warmupBatches = static_cast<std::int64_t>(warmup);
    const Records all(records);

    std::vector<double> rates;
    std::vector<double> busyNs;     // per worker, over the whole run
    std::vector<double> capacityNs; // per worker: loading time of segments that had it
    double busyTotal = 0.0;
    double capacityTotal = 0.0;
    for (std::size_t b = 0; b < records.size();) {
        std::size_t e = b + 1;
        while (e < records.size() && records[e].configVersion == records[b].configVersion)
            ++e;
        const Records segment = all.subspan(b, e - b);
        const std::size_t steadyBegin = std::clamp(warmup, b, e);
        const Records steady = all.subspan(steadyBegin, e - steadyBegin);
        SegmentSummary seg;
        seg.configVersion = records[b].configVersion;
        seg.firstBatch = records[b].index;
        seg.batches = static_cast<std::int64_t>(segment.size());
        for (const auto &r : segment)
            seg.samples += r.samples;
        seg.numWorkers = workersOf(seg.configVersion);
        seg.seconds = static_cast<double>(segment.back().computeEndNs - segment.front().requestNs)
                      / kNsPerS;

        const std::int64_t next = e < records.size() ? records[e].requestNs : 0;
        std::vector<double> segmentRates;
        roundRates(steady, seg.numWorkers, next, segmentRates);
        rates.insert(rates.end(), segmentRates.begin(), segmentRates.end());
        seg.samplesPerSecMedian = percentile(segmentRates, 50);
        const WaitFigures w = waitFigures(steady);
        if (w.windowNs > 0) {
            seg.samplesPerSecMean = static_cast<double>(w.samples) / (w.windowNs / kNsPerS);
            seg.inputBoundShare = std::clamp(w.waitSumNs / w.windowNs, 0.0, 1.0);
        }
        if (!steady.empty())
            seg.waitMeanMs = w.waitSumNs / kNsPerMs / static_cast<double>(steady.size());
        seg.waitP95Ms = percentile(w.waitsMs, 95);

        const Utilisation u = utilisation(
            segment, spansOf(spans, segment.front().index, segment.back().index), seg.numWorkers);
        if (busyNs.size() < u.busyNs.size()) {
            busyNs.resize(u.busyNs.size(), 0.0);
            capacityNs.resize(u.busyNs.size(), 0.0);
        }
        for (std::size_t k = 0; k < u.busyNs.size(); ++k) {
            seg.workerUtilisation.push_back(std::clamp(u.busyNs[k] / u.wallNs, 0.0, 1.0));
            seg.meanWorkerUtilisation += seg.workerUtilisation.back()
                                         / static_cast<double>(u.busyNs.size());
            busyNs[k] += u.busyNs[k];
            capacityNs[k] += u.wallNs;
            busyTotal += u.busyNs[k];
            capacityTotal += u.wallNs;
        }
        s.segments.push_back(std::move(seg));
        b = e;
    }

    const Records steady = all.subspan(warmup);
    const WaitFigures w = waitFigures(steady);
    if (w.windowNs > 0) {
        s.samplesPerSecMean = static_cast<double>(w.samples) / (w.windowNs / kNsPerS);
        s.inputBoundShare = std::clamp(w.waitSumNs / w.windowNs, 0.0, 1.0);
    }
    double computeSum = 0.0;
    double copySum = 0.0;
    bool stepped = false;
    for (const auto &r : steady) {
        computeSum += static_cast<double>(r.computeNs());
        copySum += static_cast<double>(r.copyEndNs - r.copyStartNs);
        stepped = stepped || r.computeNs() != 0;
    }
    s.samplesPerSecMedian = percentile(rates, 50);
    s.waitP50Ms = percentile(w.waitsMs, 50);
    s.waitP95Ms = percentile(w.waitsMs, 95);
    s.waitP99Ms = percentile(w.waitsMs, 99);
    s.waitMaxMs = w.waitsMs.empty() ? 0.0 : *std::max_element(w.waitsMs.begin(), w.waitsMs.end());
    const auto n = static_cast<double>(steady.size());
    s.waitMeanMs = w.waitSumNs / kNsPerMs / n;
    s.computeMeanMs = computeSum / kNsPerMs / n;
    s.copyMeanMs = copySum / kNsPerMs / n;
    // No verdict without a sample delivered, nor without a step after warm-up.
    s.band = s.samples == 0 ? InputBoundBand::NoSamples
             : !stepped     ? InputBoundBand::NoStep
                            : bandForShare(s.inputBoundShare);

    for (std::size_t k = 0; k < busyNs.size(); ++k)
        s.workerUtilisation.push_back(std::clamp(busyNs[k] / capacityNs[k], 0.0, 1.0));
    if (capacityTotal > 0)
        s.meanWorkerUtilisation = std::clamp(busyTotal / capacityTotal, 0.0, 1.0);
    return s;
}

} // namespace loaderlab
