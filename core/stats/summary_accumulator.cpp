#include "core/stats/summary_accumulator.h"

#include <algorithm>
#include <utility>

namespace loaderlab {
namespace {

constexpr double kNsPerMs = 1e6;
constexpr double kNsPerS = 1e9;
// Values kept exactly per sketch before it becomes a histogram: 8 MiB each. Only the
// open segment and the run hold sketches, so the accumulator stays under 32 MiB.
constexpr std::size_t kExactLimit = std::size_t{1} << 20;
// RunConfig::devices' maximum. A record's rank is clamped into 0..kMaxRanks - 1 before
// anything is sized or indexed by it: a corrupt file read back must not crash or
// allocate per rank it names (core/io/run_reader.cpp refuses such files first).
constexpr int kMaxRanks = 64;

} // namespace

SummaryAccumulator::SummaryAccumulator(int warmupBatches, std::vector<int> workersByVersion)
    : m_warmup(std::max(warmupBatches, 0))
    , m_workersByVersion(std::move(workersByVersion))
    , m_steady(kExactLimit)
    , m_rates(kExactLimit)
{
}

void SummaryAccumulator::setWorkers(std::int32_t version, int workers)
{
    const auto v = static_cast<std::size_t>(std::max(version, 0));
    if (v >= m_workersByVersion.size())
        m_workersByVersion.resize(v + 1,
                                  m_workersByVersion.empty() ? 0 : m_workersByVersion.back());
    m_workersByVersion[v] = workers;
}

void SummaryAccumulator::setRanks(int ranks)
{
    m_ranks = std::clamp(std::max(m_ranks, ranks), 1, kMaxRanks);
}

int SummaryAccumulator::workersOf(std::int32_t version) const
{
    if (m_workersByVersion.empty())
        return 0;
    const auto v = static_cast<std::size_t>(std::max(version, 0));
    return m_workersByVersion[std::min(v, m_workersByVersion.size() - 1)];
}

void SummaryAccumulator::Steady::add(const TraceRecord &r)
{
    // Min and max: batches of several ranks are not in time order.
    firstRequestNs = count == 0 ? r.requestNs : std::min(firstRequestNs, r.requestNs);
    ++count;
    samples += r.samples;
    lastComputeEndNs = std::max(lastComputeEndNs, r.computeEndNs);
    waitSumNs += static_cast<double>(r.waitNs());
    computeSumNs += static_cast<double>(r.computeNs());
    stepped = stepped || r.computeNs() != 0;
    copySumNs += static_cast<double>(r.copyEndNs - r.copyStartNs);
    waitsMs.add(static_cast<double>(r.waitNs()) / kNsPerMs);
}

void SummaryAccumulator::addSpan(const WorkerSpan &span)
{
    m_pendingSpans.push_back(span);
}

void SummaryAccumulator::closeRound(Segment &segment, std::int64_t endNs)
{
    Rounds &r = segment.rounds;
    const std::int64_t end = endNs > 0 ? endNs : r.lastComputeEndNs;
    const auto step = static_cast<double>(end - r.startNs);
    if (step > 0)
        segment.rates.add(static_cast<double>(r.samples) / (step / kNsPerS));
    r.size = 0;
    r.samples = 0;
}

void SummaryAccumulator::addSteady(Segment &segment, const TraceRecord &r, int ranks)
{
    segment.steady.add(r);
    Rounds &rounds = segment.rounds;
    const int roundSize = std::max(segment.out.numWorkers, 1) * ranks;
    if (rounds.size == roundSize)
        closeRound(segment, r.requestNs);
    if (rounds.size == 0)
        rounds.startNs = r.requestNs;
    ++rounds.size;
    rounds.samples += r.samples;
    rounds.lastComputeEndNs = std::max(rounds.lastComputeEndNs, r.computeEndNs);
    if (rounds.size == roundSize)
        ++rounds.completed;
}

void SummaryAccumulator::addRecord(const TraceRecord &r)
{
    if (m_batches == 0)
        m_firstDeliveryNs = r.deliveryNs;
    const int rank = std::clamp(r.rank, 0, kMaxRanks - 1);
    setRanks(rank + 1);
    if (m_rankTallies.size() < static_cast<std::size_t>(m_ranks))
        m_rankTallies.resize(static_cast<std::size_t>(m_ranks));
    RankTally &tally = m_rankTallies[static_cast<std::size_t>(rank)];
    // The warm-up is each rank's own: every rank's first batch is a cold start.
    const bool steady = tally.batches >= m_warmup;
    m_replay.add(r, steady);
    ++tally.batches;
    tally.samples += r.samples;
    if (steady) {
        tally.firstRequestNs = tally.steadyCount == 0 ? r.requestNs
                                                      : std::min(tally.firstRequestNs, r.requestNs);
        ++tally.steadyCount;
        tally.steadySamples += r.samples;
        tally.lastStepEndNs = std::max(
            {tally.lastStepEndNs, r.computeEndNs, r.syncEndNs, r.exchangeEndNs});
        tally.waitSumNs += static_cast<double>(r.waitNs());
        tally.syncSumNs += static_cast<double>(r.syncWaitNs());
        tally.exchangeSumNs += static_cast<double>(r.exchangeNs());
    }
    // Versions only grow; a data-parallel rank that applies a change a batch after the
    // others counts in the newer segment.
    if (m_open.empty() || m_open.back().out.configVersion < r.configVersion) {
        if (!m_open.empty()) {
            finish(m_open.back(), r.requestNs, m_rates, m_busyNs, m_capacityNs, m_ranks);
            m_finished.push_back(std::move(m_open.back().out));
            m_open.clear();
        }
        Segment &seg = m_open.emplace_back(kExactLimit);
        seg.out.configVersion = r.configVersion;
        seg.out.firstBatch = r.index;
        seg.out.numWorkers = workersOf(r.configVersion);
        seg.firstRequestNs = r.requestNs;
        seg.dispatchMinNs = r.dispatchNs;
        seg.busyNs.assign(static_cast<std::size_t>(std::max(seg.out.numWorkers, 0) * m_ranks), 0.0);
    }
    Segment &seg = m_open.back();
    ++seg.out.batches;
    seg.out.samples += r.samples;
    seg.lastComputeEndNs = std::max(seg.lastComputeEndNs, r.computeEndNs);
    // A replayed batch was loaded by no one: the workers' loading time ends before it.
    if (!m_replay.replayed(r.index)) {
        seg.dispatchMinNs = std::min(seg.dispatchMinNs, r.dispatchNs);
        seg.loadEndMaxNs = std::max(seg.loadEndMaxNs, r.loadEndNs);
    }
    for (const WorkerSpan &span : m_pendingSpans) {
        if (span.batch != r.index || span.worker < 0 || span.worker >= seg.out.numWorkers
            || span.rank < 0 || span.rank >= m_ranks)
            continue;
        const std::size_t lane = static_cast<std::size_t>(span.rank)
                                     * static_cast<std::size_t>(seg.out.numWorkers)
                                 + static_cast<std::size_t>(span.worker);
        if (lane < seg.busyNs.size())
            seg.busyNs[lane] += static_cast<double>(span.endNs - span.startNs);
    }
    m_pendingSpans.clear();
    if (steady) {
        m_steady.add(r);
        addSteady(seg, r, m_ranks);
    }
    ++m_batches;
    m_samples += r.samples;
    m_last = r;
    m_lastComputeEndNs = std::max(m_lastComputeEndNs, r.computeEndNs);
}

void SummaryAccumulator::finish(Segment &segment, std::int64_t nextRequestNs, QuantileSketch &rates,
                                std::vector<double> &busyNs, std::vector<double> &capacityNs,
                                int ranks)
{
    const Rounds &rounds = segment.rounds;
    const int roundSize = std::max(segment.out.numWorkers, 1) * ranks;
    // A full round waiting for the next request; or, when the segment had fewer
    // steady batches than one round, one partial round rather than no figure.
    if (rounds.size == roundSize || (rounds.completed == 0 && rounds.size > 0))
        closeRound(segment, nextRequestNs);

    SegmentSummary &out = segment.out;
    out.seconds = static_cast<double>(segment.lastComputeEndNs - segment.firstRequestNs) / kNsPerS;
    out.samplesPerSecMedian = segment.rates.quantile(50);
    rates.merge(segment.rates);

    const Steady &steady = segment.steady;
    const auto windowNs = static_cast<double>(steady.lastComputeEndNs - steady.firstRequestNs);
    if (steady.count > 0 && windowNs > 0) {
        out.samplesPerSecMean = static_cast<double>(steady.samples) / (windowNs / kNsPerS);
        // Every rank waits within the window: the mean share per rank.
        out.inputBoundShare = std::clamp(steady.waitSumNs / windowNs / ranks, 0.0, 1.0);
    }
    if (steady.count > 0)
        out.waitMeanMs = steady.waitSumNs / kNsPerMs / static_cast<double>(steady.count);
    out.waitP95Ms = steady.waitsMs.quantile(95);

    // Each worker's busy time over the segment's loading wall time: first dispatch
    // to last batch ready, so idle time after the last batch does not count.
    if (segment.busyNs.empty())
        return;
    const auto wallNs = static_cast<double>(
        std::max<std::int64_t>(segment.loadEndMaxNs - segment.dispatchMinNs, 1));
    if (busyNs.size() < segment.busyNs.size()) {
        busyNs.resize(segment.busyNs.size(), 0.0);
        capacityNs.resize(segment.busyNs.size(), 0.0);
    }
    for (std::size_t k = 0; k < segment.busyNs.size(); ++k) {
        out.workerUtilisation.push_back(std::clamp(segment.busyNs[k] / wallNs, 0.0, 1.0));
        out.meanWorkerUtilisation += out.workerUtilisation.back()
                                     / static_cast<double>(segment.busyNs.size());
        busyNs[k] += segment.busyNs[k];
        capacityNs[k] += wallNs;
    }
}

std::vector<RankSummary> SummaryAccumulator::rankSummaries() const
{
    std::vector<RankSummary> out;
    for (std::size_t k = 0; k < m_rankTallies.size(); ++k) {
        const RankTally &t = m_rankTallies[k];
        RankSummary r;
        r.rank = static_cast<int>(k);
        r.batches = t.batches;
        r.samples = t.samples;
        const auto windowNs = static_cast<double>(t.lastStepEndNs - t.firstRequestNs);
        if (t.steadyCount > 0 && windowNs > 0) {
            r.samplesPerSecMean = static_cast<double>(t.steadySamples) / (windowNs / kNsPerS);
            r.inputBoundShare = std::clamp(t.waitSumNs / windowNs, 0.0, 1.0);
            r.waitMeanMs = t.waitSumNs / kNsPerMs / static_cast<double>(t.steadyCount);
            const auto steps = static_cast<double>(t.steadyCount);
            r.syncWaitMeanMs = t.syncSumNs / kNsPerMs / steps;
            r.exchangeMeanMs = t.exchangeSumNs / kNsPerMs / steps;
            r.syncWaitShare = std::clamp(t.syncSumNs / windowNs, 0.0, 1.0);
            r.exchangeShare = std::clamp(t.exchangeSumNs / windowNs, 0.0, 1.0);
        }
        out.push_back(r);
    }
    return out;
}

RunSummary SummaryAccumulator::summary(std::int64_t skippedSamples) const
{
    RunSummary s;
    s.batches = m_batches;
    s.skippedSamples = skippedSamples;
    if (m_batches == 0)
        return s;
    s.samples = m_samples;
    s.firstBatchLatencyMs = static_cast<double>(m_firstDeliveryNs) / kNsPerMs;
    s.wallSeconds = static_cast<double>(m_lastComputeEndNs) / kNsPerS;
    // Keep at least one batch even when the run is shorter than the warm-up: then
    // the last batch alone is the steady part (of the run and of its segment).
    const bool allWarmup = m_steady.count == 0;
    s.warmupBatches = allWarmup ? m_batches - 1 : m_batches - m_steady.count;

    Segment open = m_open.back();
    Steady lastOnly(1);
    if (allWarmup) {
        lastOnly.add(m_last);
        addSteady(open, m_last, m_ranks);
    }
    QuantileSketch rates = m_rates;
    std::vector<double> busyNs = m_busyNs;
    std::vector<double> capacityNs = m_capacityNs;
    finish(open, 0, rates, busyNs, capacityNs, m_ranks);
    s.replay = m_replay.summary();
    s.segments = m_finished;
    s.segments.push_back(std::move(open.out));

    const Steady &steady = allWarmup ? lastOnly : m_steady;
    const auto windowNs = static_cast<double>(steady.lastComputeEndNs - steady.firstRequestNs);
    if (windowNs > 0) {
        s.samplesPerSecMean = static_cast<double>(steady.samples) / (windowNs / kNsPerS);
        s.inputBoundShare = std::clamp(steady.waitSumNs / windowNs / m_ranks, 0.0, 1.0);
    }
    const auto n = static_cast<double>(steady.count);
    s.samplesPerSecMedian = rates.quantile(50);
    s.waitP50Ms = steady.waitsMs.quantile(50);
    s.waitP95Ms = steady.waitsMs.quantile(95);
    s.waitP99Ms = steady.waitsMs.quantile(99);
    s.waitMaxMs = steady.waitsMs.max();
    s.waitMeanMs = steady.waitSumNs / kNsPerMs / n;
    s.computeMeanMs = steady.computeSumNs / kNsPerMs / n;
    s.copyMeanMs = steady.copySumNs / kNsPerMs / n;
    // No verdict over no samples, nor over a consumer that never stepped.
    s.band = m_samples == 0    ? InputBoundBand::NoSamples
             : !steady.stepped ? InputBoundBand::NoStep
                               : bandForShare(s.inputBoundShare);

    double busyTotal = 0.0;
    double capacityTotal = 0.0;
    for (std::size_t k = 0; k < busyNs.size(); ++k) {
        s.workerUtilisation.push_back(std::clamp(busyNs[k] / capacityNs[k], 0.0, 1.0));
        busyTotal += busyNs[k];
        capacityTotal += capacityNs[k];
    }
    if (capacityTotal > 0)
        s.meanWorkerUtilisation = std::clamp(busyTotal / capacityTotal, 0.0, 1.0);
    if (m_ranks > 1)
        s.ranks = rankSummaries();
    return s;
}

} // namespace loaderlab
