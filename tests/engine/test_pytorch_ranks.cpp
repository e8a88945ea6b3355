// The PyTorch engine's data-parallel ranks (devices > 1): rank processes that meet
// through torch.distributed's gloo backend after every step, each with its own
// DataLoader over its DistributedSampler shard (real torch; skipped with the reason
// where Python cannot import it). Known answers: every epoch's samples, padding
// included, by their ids; each rank's batches and sync times; a change and a pause
// that reach every rank at the same step; a rank that fails names itself; a model
// under loaderlab_probe.data_parallel keeps the same weights on every rank.

#include "core/engine/pytorch/pytorch_run.h"

#include "tests/support/engine_checks.h"
#include "tests/support/require_pytorch.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <map>

using namespace loaderlab;
using loaderlab::test::epochIds;
using loaderlab::test::groupGone;

namespace {

RunConfig rankRun(int devices, int samples, int batchSize)
{
    RunConfig c;
    c.engine = EngineKind::PyTorch;
    c.dataset.kind = DatasetKind::Synthetic;
    c.dataset.syntheticSamples = samples;
    c.dataset.syntheticShape = {1, 4, 4};
    c.loader.numWorkers = 1;
    c.loader.batchSize = batchSize;
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 2.0;
    c.devices = devices;
    c.epochs = 0;
    c.maxBatches = 0;
    return c;
}

QString writeFile(const QTemporaryDir &dir, const QString &name, const QByteArray &text)
{
    QFile file(dir.filePath(name));
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(text);
    return file.fileName();
}

} // namespace

class TestPyTorchRanks : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void ranksShareEveryEpochAndExchange();
    void changeAndPauseReachEveryRankAtOneStep();
    void rankThatFailsNamesItself();
    void streamAndIndependentRanksAreRefused();
    void dataParallelModelKeepsOneWeightOnEveryRank();

private:
    QTemporaryDir m_dir;
};

void TestPyTorchRanks::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY(pytorchConfigProblem(rankRun(3, 100, 8)).empty()); // ranks run on this engine
}

void TestPyTorchRanks::ranksShareEveryEpochAndExchange()
{
    REQUIRE_PYTORCH();
    // 3 ranks over 100 samples: 100 padded to 102 with samples 0 and 1 (as
    // DistributedSampler), 34 a rank: batches of 8, 8, 8, 8 and 2, two epochs.
    RunConfig config = rankRun(3, 100, 8);
    config.epochs = 2;
    config.gradientMb = 4.0;
    PyTorchRun run;
    run.start(config);
    QVERIFY(run.wait(180'000));
    QVERIFY2(run.state() == RunState::Finished, run.error().c_str());
    const auto records = run.trace()->records();
    QCOMPARE(records.size(), std::size_t{30});
    std::map<int, std::vector<TraceRecord>> byRank;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const TraceRecord &r = records[i];
        QCOMPARE(r.index, static_cast<std::int64_t>(i)); // one sequence over the ranks
        byRank[r.rank].push_back(r);
        // Every step: the barrier after the step, then the 4 MB all-reduce.
        QCOMPARE(r.syncStartNs, r.computeEndNs);
        QVERIFY(r.syncEndNs >= r.syncStartNs);
        QVERIFY(r.exchangeEndNs > r.syncEndNs);
    }
    QCOMPARE(byRank.size(), std::size_t{3});
    for (const auto &[rank, batches] : byRank) {
        QCOMPARE(batches.size(), std::size_t{10});
        QCOMPARE(batches[4].samples, 2);
        QCOMPARE(batches[4].epoch, 0);
        QCOMPARE(batches[5].epoch, 1);
    }
    std::uint64_t padded = epochIds(100);
    padded = (padded + engineSampleId(0) % kEngineIdsModulus) % kEngineIdsModulus;
    padded = (padded + engineSampleId(1) % kEngineIdsModulus) % kEngineIdsModulus;
    const auto epochs = run.epochSamples();
    QCOMPARE(epochs.size(), std::size_t{2});
    for (const auto &[epoch, seen] : epochs) {
        QCOMPARE(seen.samples, std::int64_t{102});
        QCOMPARE(seen.ids, padded);
    }
    // The worker spans carry their rank; the summary has each rank's figures.
    int spanRanks = 0;
    for (const WorkerSpan &span : run.trace()->spans())
        spanRanks |= 1 << span.rank;
    QCOMPARE(spanRanks, 0b111);
    const RunSummary summary = run.report().summary;
    QCOMPARE(summary.ranks.size(), std::size_t{3});
    for (const RankSummary &rank : summary.ranks)
        QVERIFY(rank.exchangeMeanMs > 0.0);
}

void TestPyTorchRanks::changeAndPauseReachEveryRankAtOneStep()
{
    REQUIRE_PYTORCH();
    RunConfig config = rankRun(2, 100'000, 4);
    config.consumer.sleepPerBatchMs = 10.0;
    PyTorchRun run;
    run.start(config);
    QTRY_VERIFY_WITH_TIMEOUT(run.trace()->size() >= 10 || run.state() != RunState::Running,
                             120'000);
    QVERIFY2(run.state() == RunState::Running, run.error().c_str());
    RunConfig next = config;
    next.loader.batchSize = 6;
    run.reconfigure(next.loader, next.consumer);
    QTRY_VERIFY_WITH_TIMEOUT(run.trace()->configVersions().size() == 2, 60'000);
    const std::int64_t changedAt = run.trace()->configVersions().back().firstBatch;
    QTRY_VERIFY_WITH_TIMEOUT(run.trace()->size() >= static_cast<std::size_t>(changedAt + 10),
                             60'000);
    run.pause();
    QTRY_VERIFY_WITH_TIMEOUT(!run.trace()->markers().empty()
                                 && run.trace()->markers().back().kind == MarkerKind::Pause,
                             30'000);
    // Both ranks have stopped: nothing arrives while paused.
    QTest::qWait(200); // the last records written before the pause
    const std::size_t paused = run.trace()->size();
    QTest::qWait(400);
    QCOMPARE(run.trace()->size(), paused);
    run.resume();
    QTRY_VERIFY_WITH_TIMEOUT(run.trace()->size() >= paused + 6, 60'000);
    // Stopped while paused: every rank's process ends.
    const int pgid = run.processGroup();
    run.pause();
    QTRY_VERIFY_WITH_TIMEOUT(run.trace()->markers().back().kind == MarkerKind::Pause, 30'000);
    run.stop();
    QVERIFY(run.wait(20'000));
    QVERIFY2(run.state() == RunState::Stopped, run.error().c_str());
    QVERIFY(groupGone(pgid));

    // Each rank ran the old settings for the same number of its own batches, and the
    // new ones from there on; the ranks' batches before the pause are equal in number.
    std::map<int, int> before, after;
    std::map<int, int> beforePause;
    const auto versions = run.trace()->configVersions();
    for (const TraceRecord &r : run.trace()->records()) {
        // Every rank's batch inside its version's range of the trace.
        QVERIFY(r.index >= versions[static_cast<std::size_t>(r.configVersion)].firstBatch);
        if (r.configVersion == 0)
            QVERIFY(r.index < versions[1].firstBatch);
        if (r.configVersion == 0) {
            QCOMPARE(r.samples, 4);
            QCOMPARE(after[r.rank], 0); // no old batch after a new one
            ++before[r.rank];
        } else {
            QCOMPARE(r.samples, 6);
            ++after[r.rank];
        }
        if (r.index < static_cast<std::int64_t>(paused))
            ++beforePause[r.rank];
    }
    QCOMPARE(before.size(), std::size_t{2});
    QCOMPARE(before[0], before[1]);
    QCOMPARE(beforePause[0], beforePause[1]);
}

void TestPyTorchRanks::rankThatFailsNamesItself()
{
    REQUIRE_PYTORCH();
    const QString path = writeFile(m_dir, QStringLiteral("rank_one_fails.py"),
                                   "import os\n"
                                   "import torch\n"
                                   "from torch.utils.data import Dataset\n"
                                   "class Numbers(Dataset):\n"
                                   "    def __len__(self):\n"
                                   "        return 64\n"
                                   "    def __getitem__(self, i):\n"
                                   "        return torch.tensor([float(i)])\n"
                                   "def make_dataset(args):\n"
                                   "    if os.environ.get('RANK') == '1':\n"
                                   "        raise OSError('rank one cannot reach /data/shard-1')\n"
                                   "    return Numbers()\n");
    QVERIFY(!path.isEmpty());
    RunConfig config = rankRun(2, 0, 4);
    config.dataset.kind = DatasetKind::Python;
    config.dataset.path = path.toStdString();
    config.epochs = 1;
    PyTorchRun run;
    run.start(config);
    QVERIFY(run.wait(120'000));
    QCOMPARE(run.state(), RunState::Failed);
    const QString error = QString::fromStdString(run.error());
    QVERIFY2(error.startsWith(QStringLiteral("rank 1: rank_one_fails.py: make_dataset(args) "
                                             "raised OSError: rank one cannot reach")),
             qPrintable(error));
    QVERIFY(groupGone(run.processGroup()));
}

void TestPyTorchRanks::streamAndIndependentRanksAreRefused()
{
    REQUIRE_PYTORCH();
    const QString path = writeFile(m_dir, QStringLiteral("lines.py"),
                                   "from torch.utils.data import IterableDataset\n"
                                   "class Lines(IterableDataset):\n"
                                   "    def __iter__(self):\n"
                                   "        return iter(range(10))\n"
                                   "def make_dataset(args):\n"
                                   "    return Lines()\n");
    RunConfig config = rankRun(2, 0, 4);
    config.dataset.kind = DatasetKind::Python;
    config.dataset.path = path.toStdString();
    PyTorchRun run;
    run.start(config);
    QVERIFY(run.wait(120'000));
    QCOMPARE(run.state(), RunState::Failed);
    QVERIFY(run.refused());
    QVERIFY2(QString::fromStdString(run.error())
                 .contains(QStringLiteral("an IterableDataset, which LoaderLab cannot shard over "
                                          "2 devices")),
             run.error().c_str());

    RunConfig independent = rankRun(2, 100, 4);
    independent.syncDevices = false;
    QVERIFY(QString::fromStdString(pytorchConfigProblem(independent))
                .contains(QStringLiteral("independent devices")));
    PyTorchRun refused;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, refused.start(independent));
}

void TestPyTorchRanks::dataParallelModelKeepsOneWeightOnEveryRank()
{
    REQUIRE_PYTORCH();
    // Each rank trains on its own samples; under DistributedDataParallel the averaged
    // gradients keep the weights equal on both ranks, which the step checks after
    // every optimizer step (it raises, failing the run, when they differ). Without
    // the wrapper the ranks' weights would part at the first step.
    const QString path = writeFile(
        m_dir, QStringLiteral("ddp_check.py"),
        "import torch\n"
        "import torch.distributed as dist\n"
        "from torch.utils.data import Dataset\n"
        "from loaderlab_probe import data_parallel\n"
        "class Points(Dataset):\n"
        "    def __len__(self):\n"
        "        return 96\n"
        "    def __getitem__(self, i):\n"
        "        return torch.tensor([float(i), 1.0]), torch.tensor([2.0 * i])\n"
        "def make_dataset(args):\n"
        "    return Points()\n"
        "def make_step(args):\n"
        "    torch.manual_seed(7)\n"
        "    model = data_parallel(torch.nn.Linear(2, 1))\n"
        "    assert isinstance(model, torch.nn.parallel.DistributedDataParallel)\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)\n"
        "    def step(batch):\n"
        "        x, y = batch\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "        mine = torch.cat([p.detach().flatten() for p in model.parameters()])\n"
        "        low, high = mine.clone(), mine.clone()\n"
        "        dist.all_reduce(low, dist.ReduceOp.MIN)\n"
        "        dist.all_reduce(high, dist.ReduceOp.MAX)\n"
        "        if not torch.equal(low, high):\n"
        "            raise AssertionError('the ranks hold different weights')\n"
        "    return step\n");
    RunConfig config = rankRun(2, 0, 8);
    config.dataset.kind = DatasetKind::Python;
    config.dataset.path = path.toStdString();
    config.consumer.kind = ConsumerKind::None;
    config.epochs = 2;
    PyTorchRun run;
    run.start(config);
    QVERIFY(run.wait(180'000));
    QVERIFY2(run.state() == RunState::Finished, run.error().c_str());
    QCOMPARE(run.trace()->size(), std::size_t{24}); // 48 a rank: 6 batches, 2 epochs, 2 ranks
}

LOADERLAB_GUILESS_TEST_MAIN(TestPyTorchRanks)
#include "test_pytorch_ranks.moc"
