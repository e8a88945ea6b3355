// Replay on the PyTorch engine (RunConfig::replayBatches, real torch): after the kept
// batches the DataLoader's workers are shut down and the step runs on those batches
// for the rest of the run, epoch by epoch as the DataLoader would have run them; a
// pipeline file's own step gets the kept batches in turn.

#include "core/config/config_fields.h"
#include "core/engine/pytorch/pytorch_run.h"

#include "tests/support/engine_checks.h"
#include "tests/support/require_pytorch.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <fstream>

using namespace loaderlab;
using loaderlab::test::groupGone;

namespace {

void runReplayToEnd(PyTorchRun &run, const RunConfig &config)
{
    run.start(config);
    const int pgid = run.processGroup();
    QVERIFY(run.wait(180'000));
    QVERIFY2(groupGone(pgid), "a process of the engine's group is still alive");
    QVERIFY2(run.state() == RunState::Finished, run.error().c_str());
}

std::vector<TraceMarker> replayMarkers(const TraceLog &trace)
{
    std::vector<TraceMarker> out;
    for (const TraceMarker &m : trace.markers())
        if (m.kind == MarkerKind::Replay)
            out.push_back(m);
    return out;
}

} // namespace

class TestPyTorchReplay : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void theDataLoaderStopsAndTheStepGoesOn();
    void aPipelineFilesStepGetsTheKeptBatches();
    void severalDevicesAreRefused();

private:
    QTemporaryDir m_dir;
};

void TestPyTorchReplay::theDataLoaderStopsAndTheStepGoesOn()
{
    REQUIRE_PYTORCH();
    // 60 samples in batches of 8: 8 batches an epoch, the last of 4.
    RunConfig c;
    c.engine = EngineKind::PyTorch;
    c.dataset.kind = DatasetKind::Synthetic;
    c.dataset.syntheticSamples = 60;
    c.dataset.syntheticShape = {1, 4, 4};
    c.loader.numWorkers = 2;
    c.loader.batchSize = 8;
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 1.0;
    c.epochs = 2;
    c.warmupBatches = 1;
    c.replayBatches = 3;
    PyTorchRun run;
    runReplayToEnd(run, c);
    const auto records = run.trace()->records();
    QCOMPARE(records.size(), std::size_t{16});
    const auto replay = replayMarkers(*run.trace());
    QCOMPARE(replay.size(), std::size_t{1});
    QCOMPARE(replay[0].batch, std::int64_t{3});
    QCOMPARE(replay[0].detail, std::string("3"));
    for (std::size_t i = 0; i < records.size(); ++i) {
        const TraceRecord &r = records[i];
        QCOMPARE(r.epoch, static_cast<std::int32_t>(i / 8));
        QCOMPARE(r.samples, 8); // the kept batches are all full
        if (i >= 3) {
            QCOMPARE(r.worker, kConsumerThread);
            QCOMPARE(r.waitNs(), std::int64_t{0});
        } else {
            QVERIFY(r.worker >= 0);
        }
    }
    QCOMPARE(run.trace()->spanCount(), std::size_t{3});
    const ReplaySummary s = run.trace()->summary().replay;
    QCOMPARE(s.firstBatch, std::int64_t{3});
    QCOMPARE(s.loadedBatches, std::int64_t{2});
    QCOMPARE(s.replayedBatches, std::int64_t{13});
    QVERIFY(s.known());
}

void TestPyTorchReplay::aPipelineFilesStepGetsTheKeptBatches()
{
    REQUIRE_PYTORCH();
    const QString log = m_dir.filePath(QStringLiteral("steps.txt"));
    const QString path = m_dir.filePath(QStringLiteral("numbered.py"));
    std::ofstream(path.toStdString()) << R"(
import torch
def make_dataset(args):
    return [torch.tensor([i]) for i in range(20)]
def make_step(args):
    out = open(args["log"], "a")
    def step(batch):
        out.write(" ".join(str(int(v)) for v in batch) + "\n")
        out.flush()
    return step
)";
    RunConfig c;
    c.engine = EngineKind::PyTorch;
    c.dataset.kind = DatasetKind::Python;
    c.dataset.path = path.toStdString();
    setConfigFieldFromText(c, "dataset.args.log", log.toStdString());
    c.loader.numWorkers = 1;
    c.loader.batchSize = 5;
    c.loader.shuffle = false;
    c.consumer.kind = ConsumerKind::None;
    c.epochs = 2; // 4 batches an epoch
    c.replayBatches = 2;
    PyTorchRun run;
    runReplayToEnd(run, c);
    QCOMPARE(run.trace()->size(), std::size_t{8});
    std::ifstream in(log.toStdString());
    std::vector<std::string> steps;
    for (std::string line; std::getline(in, line);)
        steps.push_back(line);
    // Batches 0 and 1 loaded, then the two kept ones in turn for the six left.
    const std::vector<std::string> expected{"0 1 2 3 4", "5 6 7 8 9", "0 1 2 3 4", "5 6 7 8 9",
                                            "0 1 2 3 4", "5 6 7 8 9", "0 1 2 3 4", "5 6 7 8 9"};
    QCOMPARE(steps, expected);
}

void TestPyTorchReplay::severalDevicesAreRefused()
{
    RunConfig c;
    c.engine = EngineKind::PyTorch;
    c.devices = 2;
    c.replayBatches = 4;
    PyTorchRun run;
    try {
        run.start(c);
        QFAIL("started");
    } catch (const std::invalid_argument &e) {
        QCOMPARE(std::string(e.what()),
                 std::string("replay_batches: a replay runs on one device (devices 2)"));
    }
}

LOADERLAB_GUILESS_TEST_MAIN(TestPyTorchReplay)
#include "test_pytorch_replay.moc"
