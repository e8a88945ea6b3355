// RunSummary figures against values worked out by hand.

#include "core/stats/run_summary.h"

#include <QtTest>

using namespace loaderlab;

namespace {

constexpr std::int64_t kMs = 1'000'000;

// A steady run: every batch of 10 samples waits `waitMs` then computes `computeMs`.
std::vector<TraceRecord> steadyRun(int batches, std::int64_t waitMs, std::int64_t computeMs)
{
    std::vector<TraceRecord> records;
    std::int64_t t = 0;
    for (int i = 0; i < batches; ++i) {
        TraceRecord r;
        r.index = i;
        r.samples = 10;
        r.requestNs = t;
        r.deliveryNs = t + waitMs * kMs;
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.computeStartNs + computeMs * kMs;
        t = r.computeEndNs;
        records.push_back(r);
    }
    return records;
}

} // namespace

class TestRunSummary : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void percentileInterpolates();
    void steadyRunFigures();
    void copyMeanCountsOnlyTheCopy();
    void warmupIsExcluded();
    void bands();
    void workerUtilisation();
    void segmentsUseTheirOwnWorkerCount();
    void shortRunStillHasAMedian();
    void aSegmentInsideTheWarmUpHasNoSteadyFigures();
};

void TestRunSummary::percentileInterpolates()
{
    QCOMPARE(percentile({}, 50), 0.0);
    QCOMPARE(percentile({4, 1, 3, 2}, 50), 2.5);
    QCOMPARE(percentile({1, 2, 3, 4, 5}, 100), 5.0);
    QCOMPARE(percentile({1, 2, 3, 4, 5}, 0), 1.0);
    QCOMPARE(percentile({0, 10}, 95), 9.5);
}

void TestRunSummary::steadyRunFigures()
{
    // 1 ms wait + 3 ms compute per batch of 10: 2500 samples/s, 25 % input-bound.
    const RunSummary s = summarize(steadyRun(20, 1, 3), {}, 0, 0, 0);
    QCOMPARE(s.batches, std::int64_t{20});
    QCOMPARE(s.samples, std::int64_t{200});
    QVERIFY(qFuzzyCompare(s.samplesPerSecMean, 2500.0));
    QVERIFY(qFuzzyCompare(s.samplesPerSecMedian, 2500.0));
    QVERIFY(qFuzzyCompare(s.inputBoundShare, 0.25));
    QCOMPARE(s.band, InputBoundBand::Highly);
    QVERIFY(qFuzzyCompare(s.waitP50Ms, 1.0));
    QVERIFY(qFuzzyCompare(s.computeMeanMs, 3.0));
    QCOMPARE(s.copyMeanMs, 0.0); // no copy stage taken
    QVERIFY(qFuzzyCompare(s.firstBatchLatencyMs, 1.0));
    QVERIFY(qFuzzyCompare(s.wallSeconds, 0.080));
}

void TestRunSummary::copyMeanCountsOnlyTheCopy()
{
    // Batches 0..9 copy for i ms inside their 3 ms step: the mean copy is 4.5 ms, and
    // the step (compute) itself is unchanged.
    auto records = steadyRun(10, 1, 3);
    for (auto &r : records) {
        r.copyStartNs = r.deliveryNs;
        r.copyEndNs = r.copyStartNs + r.index * kMs;
    }
    const RunSummary s = summarize(records, {}, 0, 0, 0);
    QVERIFY(qFuzzyCompare(s.copyMeanMs, 4.5));
    QVERIFY(qFuzzyCompare(s.computeMeanMs, 3.0));
}

void TestRunSummary::warmupIsExcluded()
{
    auto records = steadyRun(10, 1, 4);
    // A slow first batch: 50 ms wait, then everything shifts by 49 ms.
    for (auto &r : records) {
        if (r.index == 0)
            r.deliveryNs += 49 * kMs;
        else
            r.requestNs += 49 * kMs, r.deliveryNs += 49 * kMs;
        r.computeStartNs += 49 * kMs;
        r.computeEndNs += 49 * kMs;
    }
    const RunSummary withWarmup = summarize(records, {}, 0, 1, 0);
    QCOMPARE(withWarmup.warmupBatches, std::int64_t{1});
    QVERIFY(qFuzzyCompare(withWarmup.waitMaxMs, 1.0));
    QVERIFY(qFuzzyCompare(withWarmup.samplesPerSecMean, 2000.0));
    QVERIFY(qFuzzyCompare(withWarmup.firstBatchLatencyMs, 50.0)); // kept apart
    const RunSummary without = summarize(records, {}, 0, 0, 0);
    QVERIFY(qFuzzyCompare(without.waitMaxMs, 50.0));
    QVERIFY(without.samplesPerSecMean < 2000.0);
}

void TestRunSummary::bands()
{
    QCOMPARE(bandForShare(0.049), InputBoundBand::NotInputBound);
    QCOMPARE(bandForShare(0.05), InputBoundBand::Moderately);
    QCOMPARE(bandForShare(0.199), InputBoundBand::Moderately);
    QCOMPARE(bandForShare(0.20), InputBoundBand::Highly);
    RunSummary s;
    s.inputBoundShare = 0.634;
    s.band = InputBoundBand::Highly;
    QCOMPARE(adviceFor(s), std::string("input-bound 63 %: add workers or preprocess offline"));
}

void TestRunSummary::workerUtilisation()
{
    auto records = steadyRun(4, 1, 1);
    for (auto &r : records) {
        r.dispatchNs = 0;
        r.loadEndNs = 100 * kMs;
    }
    // Worker 0 busy 50 of 100 ms, worker 1 busy 25 ms.
    const std::vector<WorkerSpan> spans{
        {0, 0, 0, 0, 30 * kMs}, {1, 0, 0, 60 * kMs, 80 * kMs}, {2, 1, 0, 0, 25 * kMs}};
    const RunSummary s = summarize(records, spans, 2, 0, 0);
    QCOMPARE(s.workerUtilisation.size(), std::size_t{2});
    QVERIFY(qFuzzyCompare(s.workerUtilisation[0], 0.5));
    QVERIFY(qFuzzyCompare(s.workerUtilisation[1], 0.25));
    QVERIFY(qFuzzyCompare(s.meanWorkerUtilisation, 0.375));
}

void TestRunSummary::segmentsUseTheirOwnWorkerCount()
{
    // Batches 0-7 under version 0 with 2 workers, 8-15 under version 1 with 4. Each
    // worker is busy its segment's whole loading time (100 ms each).
    auto records = steadyRun(16, 1, 1);
    std::vector<WorkerSpan> spans;
    for (auto &r : records) {
        const bool second = r.index >= 8;
        r.configVersion = second ? 1 : 0;
        r.dispatchNs = second ? 100 * kMs : 0;
        r.loadEndNs = second ? 200 * kMs : 100 * kMs;
    }
    for (int w = 0; w < 2; ++w)
        spans.push_back({w, w, 0, 0, 100 * kMs});
    for (int w = 0; w < 4; ++w)
        spans.push_back({8 + w, w, 0, 100 * kMs, 200 * kMs});
    const RunSummary s = summarize(records, spans, std::vector<int>{2, 4}, 0, 0);
    QCOMPARE(s.segments.size(), std::size_t{2});
    QCOMPARE(s.segments[0].numWorkers, 2);
    QCOMPARE(s.segments[0].batches, std::int64_t{8});
    QCOMPARE(s.segments[1].numWorkers, 4);
    QCOMPARE(s.segments[1].firstBatch, std::int64_t{8});
    QCOMPARE(s.segments[0].workerUtilisation, (std::vector<double>{1.0, 1.0}));
    QCOMPARE(s.segments[1].workerUtilisation, (std::vector<double>{1.0, 1.0, 1.0, 1.0}));
    // Weighed by each segment's own workers: fully busy. With 4 workers for the whole
    // run, workers 2 and 3 would count 100 ms of 200 and the mean would be 0.75.
    QVERIFY(qFuzzyCompare(s.meanWorkerUtilisation, 1.0));
    QCOMPARE(s.workerUtilisation, (std::vector<double>{1.0, 1.0, 1.0, 1.0}));
    // 10 samples every 2 ms in both: rounds of 2 then of 4 give 5000 samples/s.
    QVERIFY(qFuzzyCompare(s.segments[0].samplesPerSecMedian, 5000.0));
    QVERIFY(qFuzzyCompare(s.segments[1].samplesPerSecMedian, 5000.0));
    // The one-count form keeps its meaning: one segment.
    QCOMPARE(summarize(records, spans, 4, 0, 0).segments.size(), std::size_t{2});
    QCOMPARE(summarize(steadyRun(4, 1, 1), {}, 2, 0, 0).segments.size(), std::size_t{1});
}

void TestRunSummary::shortRunStillHasAMedian()
{
    // 6 batches, 5 of them warm-up, 2 workers: less than one round remains.
    const RunSummary s = summarize(steadyRun(6, 1, 3), {}, 2, 5, 0);
    QCOMPARE(s.warmupBatches, std::int64_t{5});
    QVERIFY(qFuzzyCompare(s.samplesPerSecMedian, 2500.0));
}

// A reconfiguration before the warm-up ends: the first segment is all warm-up. (The
// summary once read past the end of the trace here.)
void TestRunSummary::aSegmentInsideTheWarmUpHasNoSteadyFigures()
{
    auto records = steadyRun(10, 2, 3);
    for (auto &r : records)
        r.configVersion = r.index >= 3 ? 1 : 0;
    const RunSummary s = summarize(records, {}, std::vector<int>{1, 2}, 5, 0);
    QCOMPARE(s.segments.size(), std::size_t{2});
    QCOMPARE(s.segments[0].batches, std::int64_t{3});
    QCOMPARE(s.segments[0].samplesPerSecMean, 0.0);
    QCOMPARE(s.segments[0].samplesPerSecMedian, 0.0);
    QCOMPARE(s.segments[0].waitMeanMs, 0.0);
    QCOMPARE(s.segments[1].batches, std::int64_t{7});
    // Batches 5-9: 10 samples every 5 ms, 2 ms of waiting in each.
    QVERIFY(qFuzzyCompare(s.segments[1].samplesPerSecMean, 2000.0));
    QVERIFY(qFuzzyCompare(s.segments[1].waitMeanMs, 2.0));
    QVERIFY(qFuzzyCompare(s.samplesPerSecMean, 2000.0));
}

QTEST_GUILESS_MAIN(TestRunSummary)
#include "test_run_summary.moc"
