// What the loader model refuses and marks (docs/what-if.md, "What predict refuses"):
// a run with nothing to calibrate from (no measured time, no delivered sample) is
// refused with the reason; a predicted cell that `loaderlab run` would refuse (its
// engine cannot run it, a setting out of range, a memory estimate over the budget) is
// marked "cannot run: <reason>", not simulated, and never recommended.

#include "core/predict/predicted_sweep.h"
#include "core/sweep/sweep_analysis.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <cmath>

using namespace loaderlab;

namespace {

std::int64_t refusalNs(double seconds)
{
    return std::llround(seconds * 1e9);
}

// A run of `config` with 1 worker and 32 batches of 8: each loads for 2 ms, then the
// 1 ms simulated step; the next load starts when the step ends.
RunReport simpleRun(RunConfig config, std::vector<TraceRecord> &records)
{
    config.loader.numWorkers = 1;
    config.loader.batchSize = 8;
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 1.0;
    config.dataset.kind = DatasetKind::Synthetic;
    config.dataset.syntheticSamples = 256;
    RunReport report;
    report.config = config;
    report.configVersions.push_back({0, 0, 0, config});
    report.machine.logicalCores = 2;
    report.state = "finished";
    for (int k = 0; k < 32; ++k) {
        const double start = k * 0.003;
        TraceRecord r;
        r.index = k;
        r.worker = 0;
        r.samples = 8;
        r.dispatchNs = 1;
        r.loadStartNs = refusalNs(start);
        r.loadEndNs = refusalNs(start + 0.002);
        r.readyNs = r.loadEndNs;
        r.requestNs = refusalNs(start);
        r.deliveryNs = r.readyNs;
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = refusalNs(start + 0.003);
        records.push_back(r);
    }
    report.summary = summarize(records, {}, 1, config.warmupBatches, 0);
    return report;
}

Calibration calibrated(const RunConfig &config)
{
    std::vector<TraceRecord> records;
    const RunReport report = simpleRun(config, records);
    return calibrateFromRun(records, report);
}

// The error calibrateFromRun throws for `records`; "" when it calibrates.
std::string calibrationError(const std::vector<TraceRecord> &records, const RunReport &report)
{
    try {
        calibrateFromRun(records, report);
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return {};
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

class TestPredictRefusals : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void refusesARunWithNothingToCalibrateFrom();
    void marksWhatThePyTorchEngineCannotRun();
    void marksASettingOverTheMemoryBudget();
    void whyARunCannotRun();
};

void TestPredictRefusals::refusesARunWithNothingToCalibrateFrom()
{
    std::vector<TraceRecord> records;
    const RunReport report = simpleRun({}, records);
    QVERIFY(calibrationError(records, report).empty());

    // Every time 0 (a CSV whose times were lost): no duration to calibrate from.
    std::vector<TraceRecord> timeless = records;
    for (TraceRecord &r : timeless) {
        for (std::int64_t *t : {&r.dispatchNs, &r.loadStartNs, &r.loadEndNs, &r.readyNs,
                                &r.requestNs, &r.deliveryNs, &r.computeStartNs, &r.computeEndNs})
            *t = 0;
    }
    const std::string allZero = calibrationError(timeless, report);
    QVERIFY2(contains(allZero, "no batch has a measured time (all 0): nothing to calibrate from"),
             allZero.c_str());

    // Every time the same: the run took no time.
    for (TraceRecord &r : timeless) {
        for (std::int64_t *t : {&r.dispatchNs, &r.loadStartNs, &r.loadEndNs, &r.readyNs,
                                &r.requestNs, &r.deliveryNs, &r.computeStartNs, &r.computeEndNs})
            *t = 5'000'000;
    }
    const std::string noDuration = calibrationError(timeless, report);
    QVERIFY2(contains(noDuration, "took no time") && contains(noDuration, "nothing to calibrate"),
             noDuration.c_str());

    // Batches that delivered no sample (all skipped): nothing was measured per sample.
    std::vector<TraceRecord> empty = records;
    for (TraceRecord &r : empty) {
        r.skipped = r.samples;
        r.samples = 0;
    }
    const std::string noSamples = calibrationError(empty, report);
    QVERIFY2(contains(noSamples, "delivered no sample")
                 && contains(noSamples, "nothing to calibrate"),
             noSamples.c_str());
}

void TestPredictRefusals::marksWhatThePyTorchEngineCannotRun()
{
    RunConfig config;
    config.engine = EngineKind::PyTorch;
    Calibration cal = calibrated(config);

    // Sample-parallel: PyTorch's DataLoader has no such strategy.
    const PredictedSweep strategies = predictSweep(
        cal, {parseSweepAxis("loader.strategy=per-worker,sample-parallel")}, 0, 2);
    QCOMPARE(strategies.cells.size(), std::size_t{4});
    for (const auto &[order, r] : strategies.records) {
        if (r.values[0] == "per-worker") {
            QCOMPARE(r.state, std::string("finished"));
            continue;
        }
        QCOMPARE(r.state, std::string("failed"));
        QCOMPARE(r.error, std::string("cannot run: PyTorch's DataLoader builds each batch in one "
                                      "worker: no sample-parallel"));
    }
    QCOMPARE(strategies.cannotRun.size(), std::size_t{4});
    for (std::size_t k = 0; k < strategies.cells.size(); ++k) {
        const bool parallel = strategies.cells[k].values[0] == "sample-parallel";
        QCOMPARE(strategies.cannotRun[k].empty(), !parallel);
        QVERIFY(strategies.predictions[k].batches.empty() == parallel); // not simulated
    }
    const SweepAnalysis analysis = analyzeSweep(strategies.definition, strategies.records);
    QCOMPARE(analysis.recommendations.size(), std::size_t{1});
    QCOMPARE(analysis.recommendations.front().best->values[0], nlohmann::json("per-worker"));
    QVERIFY(analysis.recommendations.front().runnerUp == nullptr);

    // 4 independent devices: the PyTorch engine's ranks synchronise every step; with
    // no axis the one cell cannot run.
    cal.config.devices = 4;
    cal.config.syncDevices = false;
    const PredictedSweep devices = predictSweep(cal, {});
    QCOMPARE(devices.records.size(), std::size_t{1});
    const SweepRecord &only = devices.records.begin()->second;
    QCOMPARE(only.state, std::string("failed"));
    QVERIFY2(contains(only.error, "cannot run: the PyTorch engine's ranks synchronise every step"),
             only.error.c_str());
    QVERIFY(analyzeSweep(devices.definition, devices.records).recommendations.empty());
}

void TestPredictRefusals::marksASettingOverTheMemoryBudget()
{
    // 3x224x224 float32 samples (602,112 bytes) with a 1 GiB budget: batch 8 fits, a
    // batch of 100,000,000 (60 TB a batch) does not.
    RunConfig config;
    config.memoryBudgetMb = 1024;
    config.dataset.syntheticShape = {3, 224, 224};
    const Calibration cal = calibrated(config);
    const PredictedSweep sweep = predictSweep(cal,
                                              {parseSweepAxis("loader.batch_size=8,100000000")});
    const SweepRecord &fits = sweep.records.at(0);
    const SweepRecord &over = sweep.records.at(1);
    QCOMPARE(fits.state, std::string("finished"));
    QCOMPARE(over.state, std::string("failed"));
    QVERIFY2(contains(over.error, "cannot run: loader.batch_size 100000000")
                 && contains(over.error, "over the memory budget of 1.0 GiB"),
             over.error.c_str());
    const SweepAnalysis analysis = analyzeSweep(sweep.definition, sweep.records);
    QCOMPARE(analysis.recommendations.size(), std::size_t{1});
    QCOMPARE(analysis.recommendations.front().best->values[0], nlohmann::json(8));
    QVERIFY(scalingAlong(analysis, "loader.batch_size").front().points.size() == 1);
}

void TestPredictRefusals::whyARunCannotRun()
{
    RunConfig config;
    config.memoryBudgetMb = 1024;
    QCOMPARE(runRefusal(config), std::string());
    config.devices = 65;
    QVERIFY2(contains(runRefusal(config), "devices 65: expected 1 to 64"),
             runRefusal(config).c_str());
    config.devices = 4;
    QCOMPARE(runRefusal(config), std::string());
    config.engine = EngineKind::PyTorch;
    QCOMPARE(runRefusal(config), std::string()); // its ranks are processes
    config.syncDevices = false;
    QVERIFY2(contains(runRefusal(config), "independent devices"), runRefusal(config).c_str());
    config.devices = 1;
    QCOMPARE(runRefusal(config), std::string());
    // Its memory estimate is counted for either engine.
    config.loader.batchSize = 100'000'000;
    QVERIFY2(contains(runRefusal(config), "over the memory budget"), runRefusal(config).c_str());
}

LOADERLAB_GUILESS_TEST_MAIN(TestPredictRefusals)
#include "test_predict_refusals.moc"
