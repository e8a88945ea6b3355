#pragma once

// SummaryAccumulator: the run's summary (core/stats/run_summary.h) computed as the
// batches arrive, in memory that does not grow with the run: every figure is exact
// except the percentiles, which are exact for the first 1,048,576 batches and
// within 0.5 % after that (core/stats/quantile_sketch.h). summarize() is this class
// fed from a stored trace, so a stored trace and a streamed one give one answer.
//
// Feed each batch's worker spans, then its record, in batch order. Segments split
// where the config version changes; a segment's worker count comes from
// `workersByVersion` (versions past its end use its last entry).

#include "core/record/trace_record.h"
#include "core/stats/quantile_sketch.h"
#include "core/stats/replay_summary.h"
#include "core/stats/run_summary.h"

#include <cstdint>
#include <vector>

namespace loaderlab {

class SummaryAccumulator
{
public:
    explicit SummaryAccumulator(int warmupBatches = 0, std::vector<int> workersByVersion = {});

    // The worker count of `version` (a version added while the run goes on).
    void setWorkers(std::int32_t version, int workers);
    // Data-parallel ranks whose batches are interleaved in the record order (a record's
    // `rank` past the count raises it). The warm-up then applies to each rank, rounds
    // span W x ranks batches, and worker k of rank r is worker r x W + k. At most 64
    // ranks (RunConfig::devices' maximum): a record's rank is clamped into 0..63.
    void setRanks(int ranks);
    // A span of the batch whose record comes next; spans of other batches are ignored.
    void addSpan(const WorkerSpan &span);
    void addRecord(const TraceRecord &record);
    // The run replays its kept batches from `firstBatch` on (ReplayTally::start).
    void startReplay(std::int64_t firstBatch) { m_replay.start(firstBatch); }

    std::int64_t batches() const { return m_batches; }
    ReplaySummary replay() const { return m_replay.summary(); }
    // The summary as if the run ended after the last record added.
    RunSummary summary(std::int64_t skippedSamples = 0) const;

private:
    // Figures of the batches after warm-up: of the whole run, or of one segment.
    struct Steady
    {
        explicit Steady(std::size_t exactLimit)
            : waitsMs(exactLimit)
        {
        }
        std::int64_t count = 0;
        std::int64_t samples = 0;
        std::int64_t firstRequestNs = 0;
        std::int64_t lastComputeEndNs = 0;
        double waitSumNs = 0.0;
        double computeSumNs = 0.0;
        double copySumNs = 0.0;
        bool stepped = false; // a step took time (consumer "none" stamps 0 ns)
        QuantileSketch waitsMs;
        void add(const TraceRecord &r);
    };
    // Throughput over rounds of W consecutive steady batches of one segment; a round
    // ends at the request of the batch after it (RunSummary's definition).
    struct Rounds
    {
        std::int64_t startNs = 0;
        std::int64_t samples = 0;
        std::int64_t lastComputeEndNs = 0;
        int size = 0;      // batches in the open round
        int completed = 0; // rounds measured so far
    };
    struct Segment
    {
        explicit Segment(std::size_t exactLimit)
            : steady(exactLimit)
            , rates(exactLimit)
        {
        }
        SegmentSummary out; // identity and counts; figures are filled by finish()
        std::int64_t firstRequestNs = 0;
        std::int64_t lastComputeEndNs = 0;
        std::int64_t dispatchMinNs = 0;
        std::int64_t loadEndMaxNs = 0;
        std::vector<double> busyNs; // per worker
        Steady steady;
        Rounds rounds;
        QuantileSketch rates;
    };

    // One rank's own figures.
    struct RankTally
    {
        std::int64_t batches = 0;
        std::int64_t samples = 0;
        std::int64_t steadyCount = 0;
        std::int64_t steadySamples = 0;
        std::int64_t firstRequestNs = 0;
        std::int64_t lastStepEndNs = 0; // its step's end: compute, synchronisation or exchange
        double waitSumNs = 0.0;
        double syncSumNs = 0.0;
        double exchangeSumNs = 0.0;
    };

    int workersOf(std::int32_t version) const;
    std::vector<RankSummary> rankSummaries() const;
    static void addSteady(Segment &segment, const TraceRecord &r, int ranks);
    // Closes the open round at `endNs` (the next batch's request, or 0 at the end).
    static void closeRound(Segment &segment, std::int64_t endNs);
    // Ends the segment: its last rounds, its figures; adds them to the run's.
    static void finish(Segment &segment, std::int64_t nextRequestNs, QuantileSketch &rates,
                       std::vector<double> &busyNs, std::vector<double> &capacityNs, int ranks);

    int m_warmup;
    int m_ranks = 1;
    std::vector<int> m_workersByVersion;
    std::vector<RankTally> m_rankTallies;
    std::vector<WorkerSpan> m_pendingSpans;

    std::int64_t m_batches = 0;
    std::int64_t m_samples = 0;
    std::int64_t m_firstDeliveryNs = 0;
    TraceRecord m_last;
    std::int64_t m_lastComputeEndNs = 0;
    Steady m_steady;
    QuantileSketch m_rates;           // of finished segments
    std::vector<double> m_busyNs;     // per worker, finished segments
    std::vector<double> m_capacityNs; // per worker: loading time of segments that had it
    std::vector<SegmentSummary> m_finished;
    std::vector<Segment> m_open; // zero or one
    ReplayTally m_replay;
};

} // namespace loaderlab
