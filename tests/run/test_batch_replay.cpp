// Replay (RunConfig::replayBatches): after the kept batches the loader stops, its
// threads are joined, and the step runs on those batches for the rest of the run; the
// trace marks where, replayed batches wait 0 and are built by no worker, and the
// summary splits the run's rate there (core/stats/replay_summary.h).

#include "tests/support/probe_dataset.h"

#include "core/config/marker_text.h"
#include "core/io/run_reader.h"
#include "core/memory/run_memory.h"
#include "core/run/run_controller.h"
#include "tests/support/test_main.h"

#include <QtTest>

using namespace loaderlab;

namespace {

RunConfig replayConfig(int workers, int batch, std::int64_t replay)
{
    RunConfig c;
    c.loader.numWorkers = workers;
    c.loader.batchSize = batch;
    c.replayBatches = replay;
    c.warmupBatches = 1;
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 0.2;
    return c;
}

std::vector<TraceMarker> markersOf(const TraceLog &trace, MarkerKind kind)
{
    std::vector<TraceMarker> out;
    for (const TraceMarker &m : trace.markers())
        if (m.kind == kind)
            out.push_back(m);
    return out;
}

// samples / (last compute end - first request) of records [from, to): the rate's definition.
double rateOf(const std::vector<TraceRecord> &records, std::size_t from, std::size_t to)
{
    std::int64_t samples = 0;
    std::int64_t first = records[from].requestNs;
    std::int64_t last = 0;
    for (std::size_t i = from; i < to; ++i) {
        samples += records[i].samples;
        first = std::min(first, records[i].requestNs);
        last = std::max(last, records[i].computeEndNs);
    }
    return static_cast<double>(samples) * 1e9 / static_cast<double>(last - first);
}

} // namespace

class TestBatchReplay : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theStepRunsOnKeptBatchesForTheRestOfTheRun();
    void aSmallDatasetKeepsBatchesAcrossEpochs();
    void theSummarySplitsTheRateAtTheReplay();
    void aStoredTraceGivesTheSameReplay();
    void aRunThatEndsFirstHasNoReplay();
    void theLoaderIsGoneAndStopIsPrompt();
    void severalDevicesAreRefused();
    void theMemoryEstimateCountsTheKeptBatches();
};

void TestBatchReplay::theStepRunsOnKeptBatchesForTheRestOfTheRun()
{
    auto dataset = std::make_shared<ProbeDataset>(100);
    RunController run;
    RunConfig c = replayConfig(2, 10, 4);
    c.epochs = 3;
    run.start(c, dataset);
    QVERIFY(run.waitForEnd(30'000));
    QCOMPARE(run.state(), RunState::Finished);
    const auto records = run.trace()->records();
    // Three epochs of ten batches, as the loader would have delivered them.
    QCOMPARE(records.size(), std::size_t{30});
    // Loaded: the 4 kept and at most the 2 x 2 prefetched behind them, never an epoch.
    QVERIFY2(dataset->totalLoads() <= 10 * (4 + 2 * 2),
             qPrintable(QString::number(dataset->totalLoads())));
    const auto replay = markersOf(*run.trace(), MarkerKind::Replay);
    QCOMPARE(replay.size(), std::size_t{1});
    QCOMPARE(replay[0].batch, std::int64_t{4});
    QCOMPARE(markerText(replay[0]), std::string("replay of the 4 batches kept"));
    const auto epochs = markersOf(*run.trace(), MarkerKind::Epoch);
    QCOMPARE(epochs.size(), std::size_t{2});
    QCOMPARE(epochs[0].batch, std::int64_t{10});
    QCOMPARE(epochs[1].batch, std::int64_t{20});
    for (std::size_t i = 0; i < records.size(); ++i) {
        const TraceRecord &r = records[i];
        QCOMPARE(r.index, static_cast<std::int64_t>(i));
        QCOMPARE(r.epoch, static_cast<std::int32_t>(i / 10));
        QCOMPARE(r.samples, 10);
        if (i >= 4) {
            QCOMPARE(r.waitNs(), std::int64_t{0});
            QCOMPARE(r.worker, kConsumerThread);
            QVERIFY(r.computeEndNs > r.computeStartNs); // the step ran
        } else {
            QVERIFY(r.worker >= 0);
        }
    }
    // Spans only for the batches the workers built, and their utilisation over the time
    // they loaded, not over the replay's.
    QCOMPARE(run.trace()->spanCount(), std::size_t{4});
    const RunSummary summary = run.trace()->summary();
    std::int64_t dispatched = records[0].dispatchNs;
    std::int64_t loaded = 0;
    std::vector<double> busy(2, 0.0);
    for (std::size_t i = 0; i < 4; ++i) {
        dispatched = std::min(dispatched, records[i].dispatchNs);
        loaded = std::max(loaded, records[i].loadEndNs);
    }
    for (const WorkerSpan &span : run.trace()->spans())
        busy[static_cast<std::size_t>(span.worker)] += static_cast<double>(span.endNs
                                                                           - span.startNs);
    QCOMPARE(summary.workerUtilisation.size(), std::size_t{2});
    for (std::size_t w = 0; w < 2; ++w)
        QCOMPARE(summary.workerUtilisation[w], busy[w] / static_cast<double>(loaded - dispatched));
}

void TestBatchReplay::aSmallDatasetKeepsBatchesAcrossEpochs()
{
    // 25 samples in batches of 10: 3 batches an epoch (the last of 5). Five are kept, so
    // the loader runs into the second epoch; the replay starts at its third batch.
    RunController run;
    RunConfig c = replayConfig(1, 10, 5);
    c.epochs = 3;
    run.start(c, std::make_shared<ProbeDataset>(25));
    QVERIFY(run.waitForEnd(30'000));
    QCOMPARE(run.state(), RunState::Finished);
    const auto records = run.trace()->records();
    QCOMPARE(records.size(), std::size_t{9});
    const std::vector<std::int32_t> samples{10, 10, 5, 10, 10, 10, 10, 5, 10};
    const std::vector<std::int32_t> epochs{0, 0, 0, 1, 1, 1, 2, 2, 2};
    for (std::size_t i = 0; i < records.size(); ++i) {
        QCOMPARE(records[i].samples, samples[i]); // the kept batches in turn
        QCOMPARE(records[i].epoch, epochs[i]);
    }
    QCOMPARE(markersOf(*run.trace(), MarkerKind::Replay).at(0).batch, std::int64_t{5});
    QCOMPARE(markersOf(*run.trace(), MarkerKind::Epoch).size(), std::size_t{2});
}

void TestBatchReplay::theSummarySplitsTheRateAtTheReplay()
{
    auto dataset = std::make_shared<ProbeDataset>(400);
    dataset->delay = [](std::int64_t) { return std::chrono::microseconds(300); };
    RunController run;
    RunConfig c = replayConfig(1, 8, 12);
    c.warmupBatches = 2;
    run.start(c, dataset);
    QVERIFY(run.waitForEnd(60'000));
    const auto records = run.trace()->records();
    QCOMPARE(records.size(), std::size_t{50});
    const ReplaySummary r = run.trace()->summary().replay;
    QCOMPARE(r.firstBatch, std::int64_t{12});
    QCOMPARE(r.loadedBatches, std::int64_t{10}); // 12 kept, less 2 of warm-up
    QCOMPARE(r.replayedBatches, std::int64_t{38});
    QVERIFY(r.known());
    QCOMPARE(r.loadedSamplesPerSec, rateOf(records, 2, 12));
    QCOMPARE(r.replaySamplesPerSec, rateOf(records, 12, 50));
    QCOMPARE(r.loadingShare, 1.0 - r.loadedSamplesPerSec / r.replaySamplesPerSec);
    const std::string line = replayLine(r);
    QVERIFY2(line.starts_with("loading free (replay from batch 12): "), line.c_str());
}

void TestBatchReplay::aStoredTraceGivesTheSameReplay()
{
    RunController run;
    RunConfig c = replayConfig(2, 5, 6);
    c.epochs = 2;
    run.start(c, std::make_shared<ProbeDataset>(60));
    QVERIFY(run.waitForEnd(30'000));
    RunReport report;
    report.config = c;
    report.configVersions = run.trace()->configVersions();
    report.markers = run.trace()->markers();
    const auto stored = traceFromRecords(run.trace()->records(), report);
    const ReplaySummary live = run.trace()->summary().replay;
    const ReplaySummary read = stored->summary().replay;
    QCOMPARE(read.firstBatch, live.firstBatch);
    QCOMPARE(read.replayedBatches, live.replayedBatches);
    QCOMPARE(read.replaySamplesPerSec, live.replaySamplesPerSec);
    QCOMPARE(read.loadedSamplesPerSec, live.loadedSamplesPerSec);
}

void TestBatchReplay::aRunThatEndsFirstHasNoReplay()
{
    RunController run;
    RunConfig c = replayConfig(2, 10, 10);
    c.maxBatches = 3;
    c.epochs = 0;
    run.start(c, std::make_shared<ProbeDataset>(100));
    QVERIFY(run.waitForEnd(30'000));
    QCOMPARE(run.trace()->size(), std::size_t{3});
    QVERIFY(markersOf(*run.trace(), MarkerKind::Replay).empty());
    QCOMPARE(run.trace()->summary().replay.firstBatch, std::int64_t{-1});
    QCOMPARE(replayLine(run.trace()->summary().replay),
             std::string("no replay: the run ended before it had kept its batches"));
}

void TestBatchReplay::theLoaderIsGoneAndStopIsPrompt()
{
    RunController run;
    RunConfig c = replayConfig(3, 4, 3);
    c.epochs = 0; // until stopped
    c.consumer.sleepPerBatchMs = 2.0;
    run.start(c, std::make_shared<ProbeDataset>(1000));
    QTRY_VERIFY(!markersOf(*run.trace(), MarkerKind::Replay).empty());
    // The workers are joined: only the thread that steps is left.
    QTRY_COMPARE(run.liveThreads(), 1);
    const std::size_t before = run.trace()->size();
    QTRY_VERIFY(run.trace()->size() > before + 5);
    run.stop();
    QCOMPARE(run.state(), RunState::Stopped);
    QCOMPARE(run.liveThreads(), 0);
}

void TestBatchReplay::severalDevicesAreRefused()
{
    RunConfig c = replayConfig(1, 4, 3);
    c.devices = 2;
    try {
        validateRun(c);
        QFAIL("accepted");
    } catch (const std::invalid_argument &e) {
        QCOMPARE(std::string(e.what()),
                 std::string("replay_batches: a replay runs on one device (devices 2)"));
    }
}

void TestBatchReplay::theMemoryEstimateCountsTheKeptBatches()
{
    DatasetFootprint footprint;
    footprint.shape = {3, 224, 224};
    footprint.dtype = DType::Float32;
    footprint.samples = 1000;
    LoaderConfig loader;
    loader.numWorkers = 2;
    loader.prefetchFactor = 2;
    loader.batchSize = 32;
    const MemoryEstimate plain = estimateRunMemory(loader, footprint);
    const MemoryEstimate kept = estimateRunMemory(loader, footprint, 1, 100);
    QCOMPARE(plain.batchesInFlight, std::int64_t{5});
    QCOMPARE(kept.batchesInFlight, std::int64_t{105});
    QCOMPARE(kept.batchBuffersBytes, 105 * plain.batchBytes);
    RunConfig c = replayConfig(2, 32, 100'000);
    c.dataset.kind = DatasetKind::Synthetic;
    c.dataset.syntheticShape = {3, 224, 224};
    c.dataset.syntheticSamples = 1000;
    try {
        checkRunMemory(c, std::int64_t{1} << 30);
        QFAIL("accepted");
    } catch (const std::invalid_argument &e) {
        QVERIFY2(std::string(e.what()).starts_with("replay_batches 100000: the run needs about"),
                 e.what());
        QVERIFY2(std::string(e.what()).find("+ replay_batches 100000") != std::string::npos,
                 e.what());
    }
}

LOADERLAB_GUILESS_TEST_MAIN(TestBatchReplay)
#include "test_batch_replay.moc"
