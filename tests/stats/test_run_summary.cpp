// RunSummary figures against values worked out by hand.

#include "core/config/run_config.h"
#include "core/stats/run_summary.h"
#include "tests/support/test_main.h"

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
    void noSampleDeliveredGivesNoVerdict();
    void noModelStepGivesNoVerdict();
    void configSaysWhenThereIsNoStep_data();
    void configSaysWhenThereIsNoStep();
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

// Every batch came empty (all its samples skipped, a pipeline whose batches are all
// None) and waited 99 % of the run: the share says nothing, and neither does a run
// without a single batch.
void TestRunSummary::noSampleDeliveredGivesNoVerdict()
{
    auto records = steadyRun(10, 99, 1);
    for (auto &r : records) {
        r.samples = 0;
        r.skipped = 12;
    }
    RunSummary s = summarize(records, {}, 0, 0, 120);
    QVERIFY(s.inputBoundShare > 0.9); // the share is still there, as a figure
    QCOMPARE(s.band, InputBoundBand::NoSamples);
    QCOMPARE(std::string(inputBoundBandName(s.band)), std::string("no samples"));
    const std::string why = "no sample was delivered (120 skipped), so there is no input-bound "
                            "verdict";
    QCOMPARE(adviceFor(s), why);
    QCOMPARE(verdictLine(s), why);
    QVERIFY(!isShareBand(s.band));
    // The skipped count unknown (0): not named.
    s = summarize(records, {}, 0, 0, 0);
    QCOMPARE(adviceFor(s), std::string("no sample was delivered, so there is no input-bound "
                                       "verdict"));
    // No batch at all, and a summary of nothing (the window before the first batch).
    s = summarize({}, {}, 2, 5, 7);
    QCOMPARE(s.band, InputBoundBand::NoSamples);
    QCOMPARE(adviceFor(s), std::string("no sample was delivered (7 skipped), so there is no "
                                       "input-bound verdict"));
    QCOMPARE(RunSummary{}.band, InputBoundBand::NoSamples);
    // Not a step: a config without one changes nothing here.
    RunConfig none;
    none.consumer.kind = ConsumerKind::None;
    noteConsumerStep(s, none);
    QCOMPARE(s.band, InputBoundBand::NoSamples);
    // One sample delivered is enough for a verdict.
    records[9].samples = 1;
    QCOMPARE(summarize(records, {}, 0, 0, 120).band, InputBoundBand::Highly);
}

// Consumer "none" stamps its step 0 ns long: the run waits 100 % by construction.
void TestRunSummary::noModelStepGivesNoVerdict()
{
    const RunSummary s = summarize(steadyRun(20, 2, 0), {}, 0, 5, 0);
    QVERIFY(qFuzzyCompare(s.inputBoundShare, 1.0));
    QVERIFY(qFuzzyCompare(s.samplesPerSecMean, 5000.0)); // the loader's own rate
    QCOMPARE(s.band, InputBoundBand::NoStep);
    QCOMPARE(std::string(inputBoundBandName(s.band)), std::string("no model step"));
    const std::string why = "no model step: the consumer waits for every batch by construction, "
                            "so samples/s is the loader's own rate; set a step (a simulated step "
                            "or a model) to see whether loading keeps up";
    QCOMPARE(adviceFor(s), why);
    QCOMPARE(verdictLine(s), why);
    // One batch after warm-up with a step of 1 ns is a step: the share's band again.
    auto records = steadyRun(20, 2, 0);
    records[12].computeEndNs += 1;
    QCOMPARE(summarize(records, {}, 0, 5, 0).band, InputBoundBand::Highly);
    // Steps only in the warm-up, which the figures leave out: none after it.
    records = steadyRun(20, 2, 0);
    records[0].computeEndNs += 1;
    QCOMPARE(summarize(records, {}, 0, 5, 0).band, InputBoundBand::NoStep);
    // The bands keep their line.
    RunSummary highly;
    highly.inputBoundShare = 0.634;
    highly.band = InputBoundBand::Highly;
    QCOMPARE(
        verdictLine(highly),
        std::string("highly input-bound: input-bound 63 %: add workers or preprocess offline"));
}

void TestRunSummary::configSaysWhenThereIsNoStep_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<double>("perBatchMs");
    QTest::addColumn<double>("perSampleMs");
    QTest::addColumn<bool>("python"); // a pipeline file, which may bring its own step
    QTest::addColumn<bool>("noStep");
    QTest::newRow("none") << QStringLiteral("none") << 0.0 << 0.0 << false << true;
    QTest::newRow("none, step times ignored")
        << QStringLiteral("none") << 10.0 << 0.0 << false << true;
    QTest::newRow("sleep 0 ms") << QStringLiteral("sleep") << 0.0 << 0.0 << false << true;
    QTest::newRow("sleep 10 ms") << QStringLiteral("sleep") << 10.0 << 0.0 << false << false;
    QTest::newRow("sleep 0.1 ms per sample")
        << QStringLiteral("sleep") << 0.0 << 0.1 << false << false;
    QTest::newRow("model") << QStringLiteral("model") << 0.0 << 0.0 << false << false;
    QTest::newRow("pipeline file, none") << QStringLiteral("none") << 0.0 << 0.0 << true << false;
    QTest::newRow("pipeline file, sleep 0 ms")
        << QStringLiteral("sleep") << 0.0 << 0.0 << true << false;
    QTest::newRow("pipeline file, sleep 5 ms")
        << QStringLiteral("sleep") << 5.0 << 0.0 << true << false;
}

void TestRunSummary::configSaysWhenThereIsNoStep()
{
    QFETCH(QString, kind);
    QFETCH(double, perBatchMs);
    QFETCH(double, perSampleMs);
    QFETCH(bool, python);
    QFETCH(bool, noStep);
    RunConfig config;
    config.consumer.kind = *consumerKindFromName(kind.toStdString());
    config.consumer.sleepPerBatchMs = perBatchMs;
    config.consumer.sleepPerSampleMs = perSampleMs;
    config.dataset.kind = python ? DatasetKind::Python : DatasetKind::Synthetic;
    QCOMPARE(configHasNoStep(config), noStep);
    // A 0 ms simulated step still takes a few microseconds in the trace: 2 % of the run.
    RunSummary s = summarize(steadyRun(20, 1, 49), {}, 0, 0, 0);
    QCOMPARE(s.band, InputBoundBand::NotInputBound);
    noteConsumerStep(s, config);
    QCOMPARE(s.band, noStep ? InputBoundBand::NoStep : InputBoundBand::NotInputBound);
}

LOADERLAB_GUILESS_TEST_MAIN(TestRunSummary)
#include "test_run_summary.moc"
