// The first fill of the loader's pooled buffers in the loader model (ModelCosts::
// firstFill, faultLanes) on synthetic costs with known answers: the first W x prefetch
// + 1 batches a rank dispatches in the run (1 with W = 0) add the fill F to their load,
// later ones and later epochs do not; k threads faulting at once on a machine with
// `lanes` fault lanes take k / lanes x F (processor sharing on the cores as well);
// the calibration finds F in a trace whose first batches cost it, and leaves it out
// of the steady costs; the machine probe answers within [1, cores].

#include "core/predict/calibration.h"
#include "core/predict/fault_probe.h"
#include "core/predict/loader_model.h"
#include "core/predict/processor_sharing.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <cmath>

using namespace loaderlab;

namespace {

bool nearFill(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)) + 1e-12;
}

// Batch size 1, constant load `load` and step `step`, a fill of `fill` per sample.
ModelCosts fillCosts(double load, double step, double fill)
{
    ModelCosts c;
    c.sampleSeconds = {load};
    c.step.fixed = step;
    c.firstFill.perSample = fill;
    return c;
}

ModelSetting run(int workers, int cores, int prefetch = 2)
{
    ModelSetting s;
    s.workers = workers;
    s.prefetchFactor = prefetch;
    s.batchSize = 1;
    s.cores = cores;
    s.samplesPerEpoch = 40;
    s.epochs = 1;
    return s;
}

double loadSpan(const PredictedBatch &b)
{
    return b.loadEnd - b.loadStart;
}

constexpr std::int64_t kMs = 1'000'000;

} // namespace

class TestFirstFill : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theFirstPoolBatchesFillFreshBuffers_data();
    void theFirstPoolBatchesFillFreshBuffers();
    void aLaterEpochReusesThePool();
    void faultsShareTheMachinesLanes();
    void theClockSharesFaultLanes();
    void calibrationFindsTheFill();
    void theProbeAnswersWithinTheCores();
};

void TestFirstFill::theFirstPoolBatchesFillFreshBuffers_data()
{
    QTest::addColumn<int>("workers");
    QTest::addColumn<int>("prefetch");
    QTest::addColumn<int>("fresh");
    QTest::newRow("0 workers: one buffer") << 0 << 2 << 1;
    QTest::newRow("1 worker, prefetch 2") << 1 << 2 << 3;
    QTest::newRow("2 workers, prefetch 2") << 2 << 2 << 5;
    QTest::newRow("4 workers, prefetch 1") << 4 << 1 << 5;
}

void TestFirstFill::theFirstPoolBatchesFillFreshBuffers()
{
    QFETCH(int, workers);
    QFETCH(int, prefetch);
    QFETCH(int, fresh);
    const double load = 0.01, fill = 0.04;
    // Plenty of cores: every load takes its own work, L or L + F.
    const Prediction p = predictLoader(fillCosts(load, 0.001, fill), run(workers, 64, prefetch));
    QCOMPARE(static_cast<int>(p.batches.size()), 40);
    for (const PredictedBatch &b : p.batches) {
        const double expected = b.ordinal < fresh ? load + fill : load;
        QVERIFY2(nearFill(loadSpan(b), expected),
                 qPrintable(QStringLiteral("batch %1: %2").arg(b.ordinal).arg(loadSpan(b))));
    }
    // A neutral fill changes nothing.
    const Prediction none = predictLoader(fillCosts(load, 0.001, 0.0), run(workers, 64, prefetch));
    for (const PredictedBatch &b : none.batches)
        QVERIFY(nearFill(loadSpan(b), load));
}

void TestFirstFill::aLaterEpochReusesThePool()
{
    ModelSetting s = run(2, 64);
    s.epochs = 2; // workers start again, the loader's pool stays
    ModelCosts c = fillCosts(0.01, 0.001, 0.04);
    c.restartSeconds = 0.005;
    const Prediction p = predictLoader(c, s);
    QCOMPARE(static_cast<int>(p.batches.size()), 80);
    for (const PredictedBatch &b : p.batches) {
        const bool fresh = b.epoch == 0 && b.ordinal < 5;
        QVERIFY(nearFill(loadSpan(b), fresh ? 0.05 : 0.01));
    }
    // Pinned memory: the pin thread's first five buffers are fresh too (in the order
    // it pins, which need not be the batches' order), and none after.
    s.pinMemory = true;
    c.pin.fixed = 0.002;
    const Prediction pinned = predictLoader(c, s);
    int freshPins = 0;
    for (const PredictedBatch &b : pinned.batches) {
        const double pin = b.pinEnd - b.pinStart;
        QVERIFY(nearFill(pin, 0.042) || nearFill(pin, 0.002));
        if (nearFill(pin, 0.042)) {
            QCOMPARE(b.epoch, 0);
            ++freshPins;
        }
    }
    QCOMPARE(freshPins, 5);
}

void TestFirstFill::faultsShareTheMachinesLanes()
{
    // Four workers start four fresh batches together; prefetch 1, so batch 4 is the
    // last fresh one. A fill F, then a load L.
    const double load = 0.01, fill = 0.04;
    struct Case
    {
        int cores;
        double lanes;
        double firstEnd; // of batches 0-3
    };
    // Enough cores: no lane limit F + L, one lane 4F + L, two lanes 2F + L. Two cores:
    // no limit, the four fill at half speed, 2F, then load at half speed, 2L; one lane
    // leaves a core idle while the fills queue (4F), then 2L.
    for (const Case k :
         {Case{4, 0.0, fill + load}, Case{4, 1.0, 4 * fill + load}, Case{4, 2.0, 2 * fill + load},
          Case{2, 0.0, 2 * fill + 2 * load}, Case{2, 1.0, 4 * fill + 2 * load}}) {
        ModelCosts c = fillCosts(load, 0.001, fill);
        c.faultLanes = k.lanes;
        const Prediction p = predictLoader(c, run(4, k.cores, 1));
        for (int b = 0; b < 4; ++b)
            QVERIFY2(nearFill(p.batches[static_cast<std::size_t>(b)].loadEnd, k.firstEnd),
                     qPrintable(QStringLiteral("cores %1, lanes %2, batch %3: %4")
                                    .arg(k.cores)
                                    .arg(k.lanes)
                                    .arg(b)
                                    .arg(p.batches[static_cast<std::size_t>(b)].loadEnd)));
    }
}

void TestFirstFill::theClockSharesFaultLanes()
{
    // Two cores, one lane: two faulting threads count as one busy thread, so a plain
    // thread beside them runs at full speed and the two fill at half speed each.
    ProcessorSharingClock clock(2, 1.0);
    clock.startFaultingWork(1.0, {1, 0, 0, 0, 0});
    clock.startFaultingWork(1.0, {2, 0, 0, 0, 0});
    clock.startWork(1.0, 1.0, {3, 0, 0, 0, 0});
    QCOMPARE(clock.rate(), 1.0);
    QCOMPARE(clock.faultShare(), 0.5);
    auto ended = clock.advance();
    QCOMPARE(static_cast<int>(ended.size()), 1);
    QCOMPARE(ended.front().kind, 3);
    QVERIFY(nearFill(clock.now(), 1.0));
    ended = clock.advance();
    QCOMPARE(static_cast<int>(ended.size()), 2);
    QVERIFY(nearFill(clock.now(), 2.0));
    // Without a lane limit the three share the two cores: all end at 1.5.
    ProcessorSharingClock plain(2);
    plain.startFaultingWork(1.0, {1, 0, 0, 0, 0});
    plain.startFaultingWork(1.0, {2, 0, 0, 0, 0});
    plain.startWork(1.0, 1.0, {3, 0, 0, 0, 0});
    QCOMPARE(static_cast<int>(plain.advance().size()), 3);
    QVERIFY(nearFill(plain.now(), 1.5));
}

void TestFirstFill::calibrationFindsTheFill()
{
    // One worker, prefetch 2, batches of 4 samples at 2 ms each (8 ms a batch), a 20 ms
    // step; batches 0-2 filled fresh buffers at 5 ms more per sample (28 ms); batch 0
    // also waited 30 ms for the worker to start.
    RunReport report;
    RunConfig &config = report.config;
    config.loader.numWorkers = 1;
    config.loader.batchSize = 4;
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 20.0;
    config.dataset.syntheticSamples = 160;
    config.warmupBatches = 2; // batch 2 filled a fresh buffer after the warm-up
    report.machine.logicalCores = 2;
    std::vector<TraceRecord> records;
    std::int64_t workerFree = 30 * kMs, consumerFree = 0;
    for (int k = 0; k < 40; ++k) {
        TraceRecord r;
        r.index = k;
        r.worker = 0;
        r.samples = 4;
        r.dispatchNs = k < 2 ? 1 : records[static_cast<std::size_t>(k - 2)].deliveryNs;
        r.loadStartNs = std::max(workerFree, r.dispatchNs);
        const std::int64_t load = (k < 3 ? 28 : 8) * kMs;
        r.loadEndNs = r.loadStartNs + load;
        r.readNs = load;
        r.readyNs = r.loadEndNs;
        workerFree = r.loadEndNs;
        r.requestNs = consumerFree;
        r.deliveryNs = std::max(r.readyNs, r.requestNs);
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.deliveryNs + 20 * kMs;
        consumerFree = r.computeEndNs;
        records.push_back(r);
    }
    report.summary = summarize(records, {}, 1, config.warmupBatches, 0);
    const Calibration cal = calibrateFromRun(records, report);
    QVERIFY2(nearFill(cal.costs.firstFill.perSample, 0.005),
             qPrintable(QString::number(cal.costs.firstFill.perSample)));
    for (const double v : cal.costs.sampleSeconds)
        QVERIFY(nearFill(v, 0.002)); // the fresh batches left out
    QVERIFY(nearFill(cal.costs.startupSeconds, 0.030));
    const Prediction back = predictLoader(cal.costs, cal.setting);
    QVERIFY(std::abs(back.firstBatchSeconds * 1e3 - report.summary.firstBatchLatencyMs) < 1e-3);
    for (std::size_t k = 0; k < back.batches.size(); ++k)
        QVERIFY(std::abs(loadSpan(back.batches[k]) * 1e9
                         - static_cast<double>(records[k].loadEndNs - records[k].loadStartNs))
                < 1e3);
    // PyTorch's DataLoader allocates every batch anew: no pool, no first fill.
    report.config.engine = EngineKind::PyTorch;
    QCOMPARE(calibrateFromRun(records, report).costs.firstFill.perSample, 0.0);
}

void TestFirstFill::theProbeAnswersWithinTheCores()
{
    QCOMPARE(probeFaultLanes(1), 1.0);
    const double lanes = probeFaultLanes(2, std::size_t{4} << 20, 3);
    std::printf("  this machine: %.2f fault lanes of 2 cores\n", lanes);
    QVERIFY2(lanes >= 1.0 && lanes <= 2.0, qPrintable(QString::number(lanes)));
}

LOADERLAB_GUILESS_TEST_MAIN(TestFirstFill)
#include "test_first_fill.moc"
