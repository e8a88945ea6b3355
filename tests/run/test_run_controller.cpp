// RunController: start, stop, pause, reconfigure and limits of a whole run.

#include "tests/support/probe_dataset.h"
#include "tests/support/thread_count.h"

#include "core/config/config_fields.h"
#include "core/config/marker_text.h"
#include "core/run/run_controller.h"
#include "tests/support/test_main.h"

#include <QtTest>

using namespace loaderlab;
using namespace std::chrono_literals;

namespace {

RunConfig runConfig(int workers, int batch)
{
    RunConfig c;
    c.loader.numWorkers = workers;
    c.loader.batchSize = batch;
    return c;
}

std::int64_t totalSamples(const TraceLog &trace)
{
    std::int64_t n = 0;
    for (const auto &r : trace.records())
        n += r.samples;
    return n;
}

} // namespace

class TestRunController : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void runsToTheEndOfItsEpochs();
    void maxBatchesLimit();
    void reconfigureKeepsEverySampleOnceAndMarks();
    void segmentsUseTheirOwnWorkerCount();
    void timeLimitEndsALongStep();
    void unbuildableConsumerKeepsTheRunAndReportsWhy();
    void stopDuringLongStepIsPrompt();
    void pauseHoldsAndResumeContinues();
    void failPolicyFailsTheRunWithTheFile();
    void badDatasetPathKeepsPreviousTrace();
    void rapidReconfigurationsLeaveNoThreads();
    void devicesOutsideTheTablesRangeAreRefused();
};

void TestRunController::runsToTheEndOfItsEpochs()
{
    RunController run;
    RunConfig c = runConfig(2, 10);
    c.epochs = 2;
    run.start(c, std::make_shared<ProbeDataset>(95));
    QVERIFY(run.waitForEnd(10'000));
    QCOMPARE(run.state(), RunState::Finished);
    const auto records = run.trace()->records();
    QCOMPARE(records.size(), std::size_t{20});
    QCOMPARE(totalSamples(*run.trace()), std::int64_t{190});
    for (std::size_t i = 0; i < records.size(); ++i) {
        QCOMPARE(records[i].index, static_cast<std::int64_t>(i));
        QCOMPARE(records[i].epoch, i < 10 ? 0 : 1);
        QVERIFY(records[i].deliveryNs >= records[i].requestNs);
        QVERIFY(records[i].computeStartNs >= records[i].deliveryNs);
    }
    const auto markers = run.trace()->markers();
    QCOMPARE(markers.size(), std::size_t{1});
    QCOMPARE(markers[0].kind, MarkerKind::Epoch);
    QCOMPARE(markerText(markers[0]), std::string("epoch 1"));
    QCOMPARE(markers[0].batch, std::int64_t{10});
    QCOMPARE(run.trace()->spanCount(), std::size_t{20});
}

void TestRunController::maxBatchesLimit()
{
    RunController run;
    RunConfig c = runConfig(2, 4);
    c.epochs = 0; // forever, but for the limit
    c.maxBatches = 25;
    run.start(c, std::make_shared<ProbeDataset>(30));
    QVERIFY(run.waitForEnd(10'000));
    QCOMPARE(run.state(), RunState::Finished);
    QCOMPARE(run.trace()->size(), std::size_t{25});
}

void TestRunController::reconfigureKeepsEverySampleOnceAndMarks()
{
    auto dataset = std::make_shared<ProbeDataset>(3000);
    RunController run;
    RunConfig c = runConfig(2, 16);
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 1.0;
    run.start(c, dataset);
    QTRY_VERIFY(run.trace()->size() >= 10);
    LoaderConfig changed = c.loader;
    changed.numWorkers = 3;
    changed.batchSize = 8;
    run.reconfigure(changed, c.consumer);
    QVERIFY(run.waitForEnd(30'000));
    QCOMPARE(run.state(), RunState::Finished);
    // In-flight batches were dropped, their samples handed to the new loader.
    QCOMPARE(totalSamples(*run.trace()), std::int64_t{3000});
    const auto markers = run.trace()->markers();
    QCOMPARE(markers.size(), std::size_t{1});
    QCOMPARE(markers[0].kind, MarkerKind::Reconfigure);
    QCOMPARE(markers[0].configVersion, 1);
    const std::vector<FieldChange> expected{{"loader.batch_size", "16", "8"},
                                            {"loader.num_workers", "2", "3"}};
    QVERIFY2(markers[0].changes == expected, markerText(markers[0]).c_str());
    QCOMPARE(markerText(markers[0]), std::string("batch size 16 -> 8, workers 2 -> 3"));
    const auto records = run.trace()->records();
    for (const auto &r : records) {
        const bool after = r.index >= markers[0].batch;
        QCOMPARE(r.configVersion, after ? 1 : 0);
        QVERIFY(r.samples <= (after ? 8 : 16));
    }
    QCOMPARE(run.config().loader.numWorkers, 3);
}

void TestRunController::segmentsUseTheirOwnWorkerCount()
{
    // 2 workers, then 4: the trace keeps both configs, and the report computes each
    // segment (its rounds, its utilisation) with its own worker count.
    RunController run;
    RunConfig c = runConfig(2, 4);
    c.warmupBatches = 0;
    auto dataset = std::make_shared<ProbeDataset>(2000);
    dataset->delay = [](std::int64_t) { return std::chrono::microseconds(500); };
    run.start(c, dataset);
    QTRY_VERIFY(run.trace()->size() >= 20);
    LoaderConfig four = c.loader;
    four.numWorkers = 4;
    run.reconfigure(four, c.consumer);
    QVERIFY(run.waitForEnd(60'000));
    QCOMPARE(run.state(), RunState::Finished);

    const auto versions = run.trace()->configVersions();
    QCOMPARE(versions.size(), std::size_t{2});
    QCOMPARE(versions[0].config.loader.numWorkers, 2);
    QCOMPARE(versions[1].config.loader.numWorkers, 4);
    QCOMPARE(versions[1].version, 1);
    QVERIFY(versions[1].firstBatch >= 20);

    const RunSummary summary = run.trace()->summary();
    const auto &segments = summary.segments;
    QCOMPARE(segments.size(), std::size_t{2});
    QCOMPARE(segments[0].numWorkers, 2);
    QCOMPARE(segments[1].numWorkers, 4);
    QCOMPARE(segments[0].workerUtilisation.size(), std::size_t{2});
    QCOMPARE(segments[1].workerUtilisation.size(), std::size_t{4});
    QCOMPARE(segments[1].firstBatch, versions[1].firstBatch);
    QCOMPARE(segments[0].batches + segments[1].batches, summary.batches);
    QCOMPARE(summary.workerUtilisation.size(), std::size_t{4});
    // Nothing consumes: the run is bound by loading (0.5 ms a sample), so every
    // worker of each segment is busy a good part of its segment's loading time
    // (most of it on an idle machine; less where other processes take the cores).
    // Counted with the last segment's 4 workers throughout, the first segment would
    // show two idle workers, at 0.
    for (const auto &segment : segments) {
        for (double u : segment.workerUtilisation)
            QVERIFY2(u > 0.3, qPrintable(QString::number(u)));
    }
    QVERIFY(summary.meanWorkerUtilisation > 0.3);
}

void TestRunController::timeLimitEndsALongStep()
{
    // A 10 s model step and a 0.5 s limit: the limit ends the step, and the run is
    // finished (it reached its limit), not stopped.
    RunController run;
    RunConfig c = runConfig(1, 4);
    c.epochs = 0;
    c.maxSeconds = 0.5;
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 10'000.0;
    QElapsedTimer timer;
    timer.start();
    run.start(c, std::make_shared<ProbeDataset>(100));
    QVERIFY(run.waitForEnd(20'000));
    QVERIFY2(timer.elapsed() < 5'000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(run.state(), RunState::Finished);
}

void TestRunController::unbuildableConsumerKeepsTheRunAndReportsWhy()
{
    // No model consumer is registered in this test, so ConsumerKind::Model cannot be
    // built: the run must keep its sleep step, still apply the loader change, and
    // report the reason once.
    RunController run;
    RunConfig c = runConfig(2, 8);
    c.epochs = 0;
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 2.0;
    run.start(c, std::make_shared<ProbeDataset>(500));
    QTRY_VERIFY(run.trace()->size() >= 5);
    QVERIFY(run.takeReconfigureError().empty());

    ConsumerConfig model = c.consumer;
    model.kind = ConsumerKind::Model;
    LoaderConfig changed = c.loader;
    changed.numWorkers = 3;
    run.reconfigure(changed, model);
    std::string error;
    // Accumulated: QTRY_VERIFY evaluates its expression once more after it holds.
    QTRY_VERIFY(!(error += run.takeReconfigureError()).empty());
    QVERIFY2(error.find("no LibTorch models") != std::string::npos, error.c_str());
    QVERIFY(run.takeReconfigureError().empty()); // reported once

    const std::size_t before = run.trace()->size();
    QTRY_VERIFY(run.trace()->size() >= before + 5); // the run goes on
    QCOMPARE(run.state(), RunState::Running);
    QCOMPARE(run.config().consumer.kind, ConsumerKind::Sleep);
    QCOMPARE(run.config().loader.numWorkers, 3);
    int changes = 0; // epoch markers aside
    for (const auto &marker : run.trace()->markers()) {
        if (marker.kind == MarkerKind::Epoch)
            continue;
        ++changes;
        QVERIFY2(markerText(marker) == "workers 2 -> 3", markerText(marker).c_str());
    }
    QCOMPARE(changes, 1);
    for (const auto &r : run.trace()->records())
        QVERIFY(r.computeNs() >= 1'000'000); // every batch still slept ~2 ms
    run.stop();
    QCOMPARE(run.state(), RunState::Stopped);
}

void TestRunController::stopDuringLongStepIsPrompt()
{
    const int before = processThreadCount();
    {
        RunController run;
        RunConfig c = runConfig(2, 8);
        c.consumer.kind = ConsumerKind::Sleep;
        c.consumer.sleepPerBatchMs = 10'000; // a 10 s "model step"
        run.start(c, std::make_shared<ProbeDataset>(1000));
        QTRY_VERIFY(run.liveThreads() >= 3);
        QTest::qWait(100);
        QElapsedTimer timer;
        timer.start();
        run.stop();
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(run.state(), RunState::Stopped);
        QCOMPARE(run.liveThreads(), 0);
    }
    QCOMPARE(processThreadCount(), before);
}

void TestRunController::pauseHoldsAndResumeContinues()
{
    RunController run;
    RunConfig c = runConfig(2, 4);
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 2;
    run.start(c, std::make_shared<ProbeDataset>(400));
    QTRY_VERIFY(run.trace()->size() >= 3);
    run.pause();
    QTRY_COMPARE(run.trace()->markers().size(), std::size_t{1});
    const std::size_t held = run.trace()->size();
    QTest::qWait(150);
    QCOMPARE(run.trace()->size(), held);
    QCOMPARE(run.state(), RunState::Paused);
    run.resume();
    QVERIFY(run.waitForEnd(30'000));
    QCOMPARE(run.trace()->size(), std::size_t{100});
    const auto markers = run.trace()->markers();
    QCOMPARE(markers.size(), std::size_t{2});
    QCOMPARE(markers[0].kind, MarkerKind::Pause);
    QCOMPARE(markers[1].kind, MarkerKind::Resume);
}

void TestRunController::failPolicyFailsTheRunWithTheFile()
{
    auto dataset = std::make_shared<ProbeDataset>(100);
    dataset->badIndices = {42};
    RunController run;
    RunConfig c = runConfig(2, 10);
    c.loader.badSamples = BadSamplePolicy::Fail;
    run.start(c, dataset);
    QVERIFY(run.waitForEnd(10'000));
    QCOMPARE(run.state(), RunState::Failed);
    QVERIFY2(run.error().find("sample-42.jpg") != std::string::npos, run.error().c_str());
    QCOMPARE(run.trace()->size(), std::size_t{4}); // batches 0-3 made it
}

void TestRunController::badDatasetPathKeepsPreviousTrace()
{
    RunController run;
    run.start(runConfig(1, 5), std::make_shared<ProbeDataset>(50));
    QVERIFY(run.waitForEnd(10'000));
    const auto previous = run.trace();
    RunConfig bad = runConfig(1, 5);
    bad.dataset.kind = DatasetKind::ImageFolder;
    bad.dataset.path = "/nonexistent/loaderlab-images";
    try {
        run.start(bad);
        QFAIL("expected DatasetError");
    } catch (const DatasetError &e) {
        QVERIFY(std::string(e.what()).find("/nonexistent/loaderlab-images") != std::string::npos);
    }
    QCOMPARE(run.trace(), previous);
    QCOMPARE(run.trace()->size(), std::size_t{10});
    QCOMPARE(run.state(), RunState::Finished);
}

void TestRunController::rapidReconfigurationsLeaveNoThreads()
{
    const int before = processThreadCount();
    {
        auto dataset = std::make_shared<ProbeDataset>(100'000);
        dataset->delay = [](std::int64_t) { return 50us; };
        RunController run;
        RunConfig c = runConfig(2, 16);
        c.epochs = 0;
        run.start(c, dataset);
        for (int i = 0; i < 200; ++i) {
            LoaderConfig l = c.loader;
            l.numWorkers = i % 5;
            l.batchSize = 1 << (i % 7);
            l.strategy = i % 3 == 0 ? Strategy::SampleParallel : Strategy::PerWorkerBatch;
            run.reconfigure(l, c.consumer);
            if (i % 20 == 0)
                QTest::qWait(5);
        }
        QTRY_VERIFY(!run.trace()->markers().empty());
        run.stop();
        QCOMPARE(run.state(), RunState::Stopped);
    }
    QCOMPARE(processThreadCount(), before);
}

void TestRunController::devicesOutsideTheTablesRangeAreRefused()
{
    // The range comes from the config-field table, the one place that states it.
    const auto errorOf = [](const auto &call) -> std::string {
        try {
            call();
        } catch (const std::exception &e) {
            return e.what();
        }
        return {};
    };
    const ConfigField &devices = configField("devices");
    for (const double value : {devices.min - 1, devices.max + 1}) {
        RunConfig config;
        config.devices = static_cast<int>(value);
        RunController run;
        const std::string message = errorOf([&] { run.start(config); });
        QCOMPARE(message, "devices " + std::to_string(config.devices) + ": expected "
                              + std::to_string(static_cast<int>(devices.min)) + " to "
                              + std::to_string(static_cast<int>(devices.max)));
    }
}

LOADERLAB_GUILESS_TEST_MAIN(TestRunController)
#include "test_run_controller.moc"
