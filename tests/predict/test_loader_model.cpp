// The loader model (core/predict/loader_model.h) on synthetic costs whose answers are
// known in closed form: constant load time L per batch and step S give min(W / L, 1 / S)
// batches/s with W <= cores; the waits repeat with period W when L / W > S; the first
// batch arrives after L (plus the workers' start-up); with 0 workers every batch takes
// L + S; W workers on fewer cores share them; a synchronised slow rank sets every
// rank's pace; a finished later batch waits for an earlier one; non-persistent workers
// start again every epoch.

#include "core/predict/cost_deck.h"
#include "core/predict/loader_model.h"
#include "tests/support/predicted_rate.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <set>

using namespace loaderlab;
using predictedrate::constantCosts;
using predictedrate::steadyRate;

namespace {

ModelSetting longModelRun(int workers, int cores = 64)
{
    ModelSetting s;
    s.workers = workers;
    s.batchSize = 1;
    s.cores = cores;
    s.samplesPerEpoch = 400;
    s.epochs = 1;
    return s;
}

bool nearModel(double a, double b, double relative = 1e-9)
{
    return std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b)) + 1e-15;
}

} // namespace

class TestLoaderModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void throughputIsTheSlowerOfLoadAndStep_data();
    void throughputIsTheSlowerOfLoadAndStep();
    void inputBoundWaitsRepeatEveryWBatches();
    void computeBoundWaitsAreFlat();
    void firstBatchTakesOneLoadAfterStartup();
    void zeroWorkersLoadThenStep();
    void workersShareFewerCores();
    void aCpuStepSharesTheCoreWithTheWorker();
    void aSlowRankSetsThePaceOfSynchronisedRanks();
    void anOddEpochIsPaddedOverTheRanks();
    void aFinishedLaterBatchWaitsForAnEarlierOne();
    void theWindowHoldsWorkersBehindASlowBatch();
    void aWaitingConsumerIsHandedItsBatch();
    void nonPersistentWorkersStartEveryEpoch();
    void batchLimitAndSummary();
    void seededDrawsAreRepeatable();
    void aDeckDealsEachBatchCostOncePerRound();
    void refusesSettingsItCannotSimulate();
    void stepsOfAnHourOrAYearAreSimulated();
};

void TestLoaderModel::throughputIsTheSlowerOfLoadAndStep_data()
{
    QTest::addColumn<int>("workers");
    QTest::addColumn<int>("prefetch");
    QTest::addColumn<bool>("sampleParallel");
    QTest::addColumn<double>("load"); // per batch
    QTest::addColumn<double>("step");
    QTest::newRow("1 worker, input-bound") << 1 << 2 << false << 0.1 << 0.05;
    QTest::newRow("2 workers, input-bound") << 2 << 2 << false << 0.1 << 0.03;
    QTest::newRow("4 workers, input-bound") << 4 << 2 << false << 0.1 << 0.01;
    QTest::newRow("3 workers, input-bound") << 3 << 2 << false << 0.3 << 0.02;
    QTest::newRow("4 workers, step-bound") << 4 << 2 << false << 0.1 << 0.04;
    QTest::newRow("2 workers, step-bound, prefetch 1") << 2 << 1 << false << 0.1 << 0.07;
    QTest::newRow("8 workers, prefetch 4") << 8 << 4 << false << 0.2 << 0.01;
    QTest::newRow("sample-parallel 4, input-bound") << 4 << 2 << true << 0.1 << 0.01;
    QTest::newRow("sample-parallel 2, step-bound") << 2 << 2 << true << 0.1 << 0.06;
}

void TestLoaderModel::throughputIsTheSlowerOfLoadAndStep()
{
    QFETCH(int, workers);
    QFETCH(int, prefetch);
    QFETCH(bool, sampleParallel);
    QFETCH(double, load);
    QFETCH(double, step);
    ModelSetting s = longModelRun(workers);
    s.prefetchFactor = prefetch;
    ModelCosts c = constantCosts(load, step);
    if (sampleParallel) {
        // Four samples per batch, split evenly over the workers: a batch costs L of work.
        s.strategy = Strategy::SampleParallel;
        s.batchSize = 4;
        s.samplesPerEpoch = 1600;
        c.sampleSeconds = {load / 4};
    }
    const Prediction p = predictLoader(c, s);
    QCOMPARE(static_cast<int>(p.batches.size()), 400);
    const double expected = std::min(workers / load, 1.0 / step);
    const double measured = steadyRate(p, 2 * workers, workers);
    std::printf("  W=%d: predicted %.9f batches/s, closed form %.9f\n", workers, measured,
                expected);
    QVERIFY2(nearModel(measured, expected), qPrintable(QString::number(measured, 'g', 15)));
    // The summary's samples/s (docs/metrics.md) is the same rate, up to the edges of
    // the run it spans.
    QVERIFY(std::abs(p.samplesPerSecond / s.batchSize - expected) < 0.02 * expected);
}

void TestLoaderModel::inputBoundWaitsRepeatEveryWBatches()
{
    for (const int w : {2, 3, 4}) {
        const double load = 0.1, step = 0.01; // L / W > S
        const Prediction p = predictLoader(constantCosts(load, step), longModelRun(w));
        // After the first round: one wait of L - W S, then W - 1 batches already there.
        for (std::size_t k = static_cast<std::size_t>(w); k < p.batches.size(); ++k) {
            const double expected = k % static_cast<std::size_t>(w) == 0 ? load - w * step : 0.0;
            QVERIFY2(std::abs(p.batches[k].wait() - expected) < 1e-9,
                     qPrintable(QStringLiteral("W=%1 batch %2: wait %3")
                                    .arg(w)
                                    .arg(k)
                                    .arg(p.batches[k].wait())));
        }
        QCOMPARE(p.dominantWaitPeriod, w);
        // The input-bound share: (L - W S) of every L.
        QVERIFY(std::abs(p.inputBoundShare - (load - w * step) / load) < 0.01);
    }
}

void TestLoaderModel::computeBoundWaitsAreFlat()
{
    const Prediction p = predictLoader(constantCosts(0.1, 0.05), longModelRun(4));
    for (std::size_t k = 4; k < p.batches.size(); ++k)
        QVERIFY(std::abs(p.batches[k].wait()) < 1e-12);
    QCOMPARE(p.dominantWaitPeriod, 1);
    QCOMPARE(p.inputBoundShare, 0.0);
}

void TestLoaderModel::firstBatchTakesOneLoadAfterStartup()
{
    ModelCosts c = constantCosts(0.25, 0.01);
    const Prediction cold = predictLoader(c, longModelRun(4));
    QVERIFY(nearModel(cold.firstBatchSeconds, 0.25));
    QVERIFY(nearModel(cold.batches.front().wait(), 0.25));
    c.startupSeconds = 0.5;
    const Prediction started = predictLoader(c, longModelRun(4));
    QVERIFY(nearModel(started.firstBatchSeconds, 0.75));
    QVERIFY(nearModel(started.batches.front().loadStart, 0.5));
    // Sample-parallel: the four workers build batch 0 together, a quarter of L.
    ModelSetting s = longModelRun(4);
    s.strategy = Strategy::SampleParallel;
    s.batchSize = 4;
    c.sampleSeconds = {0.25};
    const Prediction together = predictLoader(c, s);
    QVERIFY(nearModel(together.firstBatchSeconds, 0.75));
}

void TestLoaderModel::zeroWorkersLoadThenStep()
{
    const double load = 0.07, step = 0.02;
    const Prediction p = predictLoader(constantCosts(load, step), longModelRun(0));
    QCOMPARE(static_cast<int>(p.batches.size()), 400);
    for (std::size_t k = 0; k < p.batches.size(); ++k) {
        const PredictedBatch &b = p.batches[k];
        QCOMPARE(b.worker, kConsumerThread);
        QVERIFY(nearModel(b.wait(), load));
        QVERIFY(nearModel(b.computeEnd, static_cast<double>(k + 1) * (load + step)));
    }
    QVERIFY(nearModel(p.firstBatchSeconds, load));
    QCOMPARE(p.dominantWaitPeriod, 1);
}

void TestLoaderModel::workersShareFewerCores()
{
    const double load = 0.1;
    // Four workers on two cores: each load takes 2 L, four batches every 2 L.
    const Prediction shared = predictLoader(constantCosts(load, 0.001), longModelRun(4, 2));
    QVERIFY(nearModel(steadyRate(shared, 8, 4), 2 / load));
    for (const PredictedBatch &b : shared.batches)
        QVERIFY(nearModel(b.loadEnd - b.loadStart, 2 * load));
    // The same four on four cores: 4 / L.
    const Prediction own = predictLoader(constantCosts(load, 0.001), longModelRun(4, 4));
    QVERIFY(nearModel(steadyRate(own, 8, 4), 4 / load));
}

void TestLoaderModel::aCpuStepSharesTheCoreWithTheWorker()
{
    // One core, one worker and a CPU step of one thread: the core never idles, so each
    // batch costs L + S of the core's time.
    ModelCosts c = constantCosts(0.1, 0.05);
    c.consumerThreads = 1;
    const Prediction p = predictLoader(c, longModelRun(1, 1));
    QVERIFY(nearModel(steadyRate(p, 4, 1), 1 / 0.15));
    // With the step on a device (no CPU threads) the worker has the core: 1 / L.
    c.consumerThreads = 0;
    QVERIFY(nearModel(steadyRate(predictLoader(c, longModelRun(1, 1)), 4, 1), 1 / 0.1));
}

void TestLoaderModel::aSlowRankSetsThePaceOfSynchronisedRanks()
{
    ModelCosts c = constantCosts(0.1, 0.01);
    c.rankLoadFactor = {1.0, 3.0}; // rank 1 loads three times slower
    ModelSetting s = longModelRun(1, 4);
    s.devices = 2;
    s.samplesPerEpoch = 400; // 200 per rank
    const Prediction p = predictLoader(c, s);
    QCOMPARE(static_cast<int>(p.batches.size()), 400);
    std::vector<PredictedBatch> rank0;
    for (const auto &b : p.batches) {
        if (b.rank == 0)
            rank0.push_back(b);
    }
    QCOMPARE(static_cast<int>(rank0.size()), 200);
    // Rank 0 steps at the slow rank's rate, 1 / 3L, not its own 1 / L.
    const double seconds = rank0[199].computeEnd - rank0[10].computeEnd;
    QVERIFY(nearModel(189 / seconds, 1 / 0.3));
    QVERIFY(std::abs(p.samplesPerSecond - 2 / 0.3) < 0.02 * (2 / 0.3));
    // Independent ranks: rank 0 goes at its own pace.
    s.syncDevices = false;
    const Prediction free = predictLoader(c, s);
    std::vector<double> ends;
    for (const auto &b : free.batches) {
        if (b.rank == 0)
            ends.push_back(b.computeEnd);
    }
    QVERIFY(nearModel(189 / (ends[199] - ends[10]), 1 / 0.1));
}

void TestLoaderModel::anOddEpochIsPaddedOverTheRanks()
{
    // 401 samples over 2 ranks: each rank gets ceil(401 / 2) = 201, as DistributedSampler
    // pads the epoch to 402; at batch 50 that is 4 batches of 50 and one of 1 a rank.
    ModelSetting s = longModelRun(1, 4);
    s.devices = 2;
    s.batchSize = 50;
    s.samplesPerEpoch = 401;
    const Prediction p = predictLoader(constantCosts(0.001, 0.01), s);
    QCOMPARE(static_cast<int>(p.batches.size()), 10);
    for (int rank = 0; rank < 2; ++rank) {
        std::vector<int> sizes;
        for (const PredictedBatch &b : p.batches) {
            if (b.rank == rank)
                sizes.push_back(b.samples);
        }
        QCOMPARE(sizes, (std::vector<int>{50, 50, 50, 50, 1}));
    }
    QCOMPARE(p.summary.samples, std::int64_t{402});
}

void TestLoaderModel::aFinishedLaterBatchWaitsForAnEarlierOne()
{
    ModelCosts c;
    c.sampleSeconds = {0.3, 0.1}; // batch 0 is slow, batch 1 fast
    c.draw = SampleDraw::Cycle;
    c.step.fixed = 0.01;
    ModelSetting s = longModelRun(2);
    s.samplesPerEpoch = 2;
    Prediction p = predictLoader(c, s);
    QCOMPARE(static_cast<int>(p.batches.size()), 2);
    QCOMPARE(p.batches[0].ordinal, 0);
    const PredictedBatch &later = p.batches[1];
    QCOMPARE(later.ordinal, 1);
    QVERIFY(nearModel(later.ready, 0.1));     // finished first...
    QVERIFY(nearModel(later.delivery, 0.31)); // ...delivered after batch 0's step
    QVERIFY(nearModel(p.batches[0].delivery, 0.3));
    // Out of order, the fast batch goes first.
    s.inOrder = false;
    p = predictLoader(c, s);
    QCOMPARE(p.batches[0].ordinal, 1);
    QVERIFY(nearModel(p.batches[0].delivery, 0.1));
    QVERIFY(nearModel(p.batches[1].delivery, 0.3));
}

void TestLoaderModel::theWindowHoldsWorkersBehindASlowBatch()
{
    ModelCosts c;
    c.sampleSeconds = {0.3, 0.1, 0.1, 0.1}; // batch 0 slow, the rest fast
    c.draw = SampleDraw::Cycle;
    c.step.fixed = 0.01;
    ModelSetting s = longModelRun(2);
    s.samplesPerEpoch = 4;
    const auto batch3 = [](const Prediction &p) {
        for (const PredictedBatch &b : p.batches) {
            if (b.ordinal == 3)
                return b;
        }
        return PredictedBatch{};
    };
    // Prefetch 1: two batches in flight. Worker 1 ends batch 1 at 0.1 but gets batch 3
    // only when batch 1 is taken, after batch 0 (0.3) and its step: at 0.31.
    s.prefetchFactor = 1;
    QVERIFY(nearModel(batch3(predictLoader(c, s)).loadStart, 0.31));
    QVERIFY(nearModel(batch3(predictLoader(c, s)).dispatch, 0.31));
    // Prefetch 2: batch 3 went out at the start and follows batch 1 at once.
    s.prefetchFactor = 2;
    QVERIFY(nearModel(batch3(predictLoader(c, s)).loadStart, 0.1));
}

void TestLoaderModel::aWaitingConsumerIsHandedItsBatch()
{
    ModelCosts c = constantCosts(0.1, 0.01);
    c.handoff.fixed = 0.002;
    c.afterStepSeconds = 0.001;
    const Prediction p = predictLoader(c, longModelRun(2));
    // Batch 0 is waited for: ready at L, held 2 ms later. Batch 1 was ready when asked.
    QVERIFY(nearModel(p.batches[0].ready, 0.1));
    QVERIFY(nearModel(p.batches[0].delivery, 0.102));
    QVERIFY(nearModel(p.batches[1].request, 0.102 + 0.01 + 0.001));
    QVERIFY(nearModel(p.batches[1].wait(), 0.0));
    // Batch 2 (worker 0's second, ready at 2 L) is waited for again.
    QVERIFY(nearModel(p.batches[2].delivery, 0.202));
    // A worker that takes 5 ms to start each task loads one batch every L + 5 ms.
    c = constantCosts(0.1, 0.01);
    c.taskStartSeconds = 0.005;
    const Prediction slow = predictLoader(c, longModelRun(1));
    QVERIFY(nearModel(slow.batches[0].loadStart, 0.005));
    QVERIFY(nearModel(steadyRate(slow, 4, 1), 1 / 0.105));
}

void TestLoaderModel::nonPersistentWorkersStartEveryEpoch()
{
    ModelCosts c = constantCosts(0.1, 0.01);
    c.startupSeconds = 0.5;
    c.restartSeconds = 0.2;
    ModelSetting s = longModelRun(2);
    s.samplesPerEpoch = 8;
    s.epochs = 3;
    s.persistentWorkers = true;
    const Prediction persistent = predictLoader(c, s);
    s.persistentWorkers = false;
    const Prediction restarted = predictLoader(c, s);
    QCOMPARE(static_cast<int>(restarted.batches.size()), 24);
    // Each later epoch adds one restart; the first start-up is in both.
    QVERIFY(nearModel(restarted.endToEndSeconds - persistent.endToEndSeconds, 2 * 0.2));
    for (const Prediction *p : {&persistent, &restarted}) {
        for (const PredictedBatch &b : p->batches) {
            if (b.ordinal != 0)
                continue;
            // Every epoch drains and refills: its first batch waits a whole load, plus
            // the workers' start where they start.
            const double start = b.epoch == 0 ? 0.5 : (p == &restarted ? 0.2 : 0.0);
            QVERIFY2(nearModel(b.wait(), start + 0.1), qPrintable(QString::number(b.wait())));
        }
    }
    QVERIFY(nearModel(restarted.firstBatchSeconds, 0.6));
}

void TestLoaderModel::batchLimitAndSummary()
{
    ModelSetting s = longModelRun(2);
    s.epochs = 0;
    s.batches = 50;
    s.samplesPerEpoch = 16;
    s.batchSize = 4;
    ModelCosts c = constantCosts(0.01, 0.02);
    const Prediction p = predictLoader(c, s);
    QCOMPARE(static_cast<int>(p.batches.size()), 50);
    QCOMPARE(p.batches.back().epoch, 12); // 4 batches per epoch
    QCOMPARE(p.summary.batches, std::int64_t{50});
    QCOMPARE(p.summary.samples, std::int64_t{200});
    // Records for the plots and the summary: times in nanoseconds.
    const auto records = predictedRecords(p.batches);
    QCOMPARE(records[10].deliveryNs, std::llround(p.batches[10].delivery * 1e9));
    QVERIFY(nearModel(p.endToEndSeconds, p.batches.back().computeEnd));
}

void TestLoaderModel::seededDrawsAreRepeatable()
{
    ModelCosts c;
    c.sampleSeconds = {0.001, 0.002, 0.010};
    c.seed = 7;
    ModelSetting s = longModelRun(2);
    s.batchSize = 8;
    s.samplesPerEpoch = 800;
    const Prediction a = predictLoader(c, s);
    const Prediction b = predictLoader(c, s);
    QCOMPARE(a.endToEndSeconds, b.endToEndSeconds);
    // The draws come from the distribution: a batch of 8 costs between 8 x 1 ms and 8 x
    // 10 ms, and on average about 8 x 13 / 3 ms.
    double total = 0;
    for (const PredictedBatch &x : a.batches) {
        const double load = x.loadEnd - x.loadStart;
        QVERIFY(load >= 0.008 - 1e-12 && load <= 0.080 + 1e-12);
        total += load;
    }
    const double mean = total / static_cast<double>(a.batches.size());
    QVERIFY2(std::abs(mean - 8 * 0.013 / 3) < 0.1 * 8 * 0.013 / 3,
             qPrintable(QString::number(mean)));
    c.seed = 8;
    QVERIFY(predictLoader(c, s).endToEndSeconds != a.endToEndSeconds);
    // Drawn per batch: all eight samples of a batch cost the one value drawn for it.
    c.draw = SampleDraw::PerBatch;
    std::set<long long> loads;
    for (const PredictedBatch &x : predictLoader(c, s).batches)
        loads.insert(std::llround((x.loadEnd - x.loadStart) * 1e9));
    QCOMPARE(loads, (std::set<long long>{8'000'000, 16'000'000, 80'000'000}));
}

void TestLoaderModel::refusesSettingsItCannotSimulate()
{
    const ModelCosts c = constantCosts(0.1, 0.01);
    ModelSetting s = longModelRun(2);
    s.epochs = 0;
    QVERIFY(modelInputProblem(c, s).find("no limit") != std::string::npos);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, predictLoader(c, s));
    s = longModelRun(2);
    s.dropLast = true;
    s.batchSize = 500;
    QVERIFY(!modelInputProblem(c, s).empty());
    ModelCosts bad = c;
    bad.sampleSeconds = {};
    QVERIFY(!modelInputProblem(bad, longModelRun(2)).empty());
    bad = c;
    bad.step.fixed = -1;
    QVERIFY(modelInputProblem(bad, longModelRun(2)).find("step") != std::string::npos);
    bad = c;
    bad.sampleSeconds = {std::nan("")};
    QVERIFY(!modelInputProblem(bad, longModelRun(2)).empty());
    QVERIFY(modelInputProblem(c, longModelRun(2)).empty());
}

void TestLoaderModel::stepsOfAnHourOrAYearAreSimulated()
{
    // A fast loader (32 ms a batch on 2 workers) and a step of an hour: step-bound, so
    // batch / 3600 samples/s, every step ending an hour after the last. Times of days
    // and years must not stall the model (rounding at large times).
    for (const double step : {3600.0, 366.0 * 24 * 3600}) {
        ModelSetting s = longModelRun(2, 2);
        s.batchSize = 32;
        s.samplesPerEpoch = 32 * 40;
        s.warmupBatches = 1;
        const Prediction p = predictLoader(constantCosts(0.001, step), s);
        QCOMPARE(static_cast<int>(p.batches.size()), 40);
        for (std::size_t k = 1; k < p.batches.size(); ++k)
            QVERIFY(nearModel(p.batches[k].computeEnd - p.batches[k - 1].computeEnd, step, 1e-12));
        QVERIFY2(nearModel(p.samplesPerSecond, 32 / step, 1e-9),
                 qPrintable(QStringLiteral("%1 samples/s").arg(p.samplesPerSecond, 0, 'g', 12)));
        QVERIFY(nearModel(p.endToEndSeconds, 0.032 + 40 * step, 1e-12));
    }
}

void TestLoaderModel::aDeckDealsEachBatchCostOncePerRound()
{
    // Every `count` batches of a rank take each measured value once (counts prime or
    // not to the deck's stride), in another order in the next round, another rank or
    // another seed; one value is always dealt.
    for (const std::uint64_t count : {2u, 6u, 7u, 37u, 64u}) {
        std::vector<std::vector<std::uint64_t>> rounds;
        for (std::uint64_t round = 0; round < 4; ++round) {
            std::vector<std::uint64_t> dealt;
            for (std::uint64_t k = 0; k < count; ++k)
                dealt.push_back(dealtCost(42, 0, round * count + k, count));
            std::vector<std::uint64_t> sorted = dealt;
            std::sort(sorted.begin(), sorted.end());
            for (std::uint64_t k = 0; k < count; ++k)
                QCOMPARE(sorted[k], k);
            rounds.push_back(dealt);
        }
        if (count > 6)
            QVERIFY(rounds[0] != rounds[1] || rounds[1] != rounds[2]);
        QCOMPARE(dealtCost(42, 0, 5, count), dealtCost(42, 0, 5, count));
    }
    bool rankDiffers = false, seedDiffers = false;
    for (std::uint64_t k = 0; k < 37; ++k) {
        rankDiffers = rankDiffers || dealtCost(42, 0, k, 37) != dealtCost(42, 1, k, 37);
        seedDiffers = seedDiffers || dealtCost(42, 0, k, 37) != dealtCost(43, 0, k, 37);
    }
    QVERIFY(rankDiffers && seedDiffers);
    QCOMPARE(dealtCost(42, 3, 1000, 1), std::uint64_t{0});
}

LOADERLAB_GUILESS_TEST_MAIN(TestLoaderModel)
#include "test_loader_model.moc"
