// loaderlab_probe.watch() on plain PyTorch training loops (real torch, the module as
// `loaderlab python-path` provides it): the run it writes opens as a LoaderLab run
// with the loop's batch count, its waits are those the loop itself measured around
// next(), the stages a Dataset marks in the workers arrive, each rank of a
// distributed job writes its own run, and a probe that cannot write never breaks the
// loop (one warning).

#include "core/engine/pytorch/python_probe.h"
#include "core/engine/pytorch/pytorch_run.h"
#include "core/io/rank_set.h"
#include "core/io/run_reader.h"

#include "tests/support/probe_loop.h"
#include "tests/support/require_pytorch.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <vector>

using namespace loaderlab;

namespace {

// A training loop as a user writes it, with the probe added in one line. It
// measures each wait around next() itself and writes them beside the run.
constexpr const char *kLoop = R"(
import json, sys, time, torch
from torch.utils.data import DataLoader, Dataset
import loaderlab_probe

class Slow(Dataset):
    def __len__(self): return 200
    def __getitem__(self, i):
        with loaderlab_probe.stage("decode"):
            time.sleep(0.001)
        return torch.full((3,), float(i))

out, workers = sys.argv[1], int(sys.argv[2])
loader = DataLoader(Slow(), batch_size=8, num_workers=workers)
loader = loaderlab_probe.watch(loader, out=out)
waits = []
for epoch in range(2):
    batches = iter(loader)
    while True:
        asked = time.monotonic_ns()
        try:
            batch = next(batches)
        except StopIteration:
            break
        waits.append(time.monotonic_ns() - asked)
        assert batch.shape == (8, 3), batch.shape
        time.sleep(0.004)  # the training step
loader.close()
print("batches", len(waits))
try:
    with open(out + ".waits.json", "w") as f:
        json.dump(waits, f)
except OSError:
    pass  # the run's folder is missing (the test of a probe that cannot write)
)";

// A loop whose batches take long to load (4 samples of 25 ms, no workers: the wait)
// and whose step is a 20 ms sleep; it measures each step itself, from next()'s
// return to the next call of next().
constexpr const char *kStepLoop = R"(
import json, sys, time, torch
from torch.utils.data import DataLoader, Dataset
import loaderlab_probe

class Slow(Dataset):
    def __len__(self): return 48
    def __getitem__(self, i):
        time.sleep(0.025)
        return torch.full((2,), float(i))

out = sys.argv[1]
loader = loaderlab_probe.watch(DataLoader(Slow(), batch_size=4), out=out)
steps, got = [], None
batches = iter(loader)
while True:
    asked = time.monotonic_ns()
    if got is not None:
        steps.append(asked - got)
    try:
        batch = next(batches)
    except StopIteration:
        break
    got = time.monotonic_ns()
    time.sleep(0.02)  # the training step
loader.close()
with open(out + ".steps.json", "w") as f:
    json.dump(steps, f)
)";

struct Loop
{
    int exitCode = -1;
    QString err;
    QString out;
};

Loop runWatchedLoop(const QString &out, int workers, const QStringList &environment = {},
                    const char *script = kLoop)
{
    QProcess process;
    probeloop::start(process, script, {out, QString::number(workers)}, environment);
    if (!process.waitForFinished(180'000))
        return {};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardError()),
            QString::fromUtf8(process.readAllStandardOutput())};
}

} // namespace

class TestProbeWatch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theRunOpensWithTheLoopsBatchesAndWaits_data();
    void theRunOpensWithTheLoopsBatchesAndWaits();
    void theStepIsTimedFromTheDelivery();
    void eachRankWritesItsOwnRun();
    void aProbeThatCannotWriteNeverBreaksTheLoop();
};

void TestProbeWatch::theRunOpensWithTheLoopsBatchesAndWaits_data()
{
    QTest::addColumn<int>("workers");
    QTest::newRow("0 workers") << 0;
    QTest::newRow("2 workers") << 2;
}

void TestProbeWatch::theRunOpensWithTheLoopsBatchesAndWaits()
{
    REQUIRE_PYTORCH();
    QFETCH(int, workers);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("run"));
    const Loop loop = runWatchedLoop(out, workers);
    QVERIFY2(loop.exitCode == 0, qPrintable(loop.err));
    QVERIFY2(!loop.err.contains(QStringLiteral("loaderlab_probe")), qPrintable(loop.err));

    const OpenedRun run = openRun((out + QStringLiteral(".csv")).toStdString(),
                                  (out + QStringLiteral(".json")).toStdString());
    QCOMPARE(run.report.state, std::string("finished"));
    QCOMPARE(run.report.config.loader.numWorkers, workers);
    QCOMPARE(run.report.config.loader.batchSize, 8);
    QCOMPARE(run.report.config.engine, EngineKind::PyTorch);
    const auto records = run.trace->records();
    QCOMPARE(records.size(), std::size_t{50}); // 2 epochs of 200 / 8
    QCOMPARE(run.report.summary.samples, std::int64_t{400});

    std::ifstream in((out + QStringLiteral(".waits.json")).toStdString());
    const auto waits = nlohmann::json::parse(in);
    QCOMPARE(waits.size(), records.size());
    std::vector<std::int64_t> differences;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const TraceRecord &r = records[i];
        QCOMPARE(r.epoch, static_cast<std::int32_t>(i / 25));
        // The probe's wait lies inside the loop's own (a 1-15 ms wait here).
        const std::int64_t mine = waits[i].get<std::int64_t>();
        QVERIFY2(r.waitNs() <= mine && r.waitNs() > 0,
                 qPrintable(QStringLiteral("batch %1: probe %2 ns, loop %3 ns")
                                .arg(i)
                                .arg(r.waitNs())
                                .arg(mine)));
        differences.push_back(mine - r.waitNs());
        // The step is the time to the next request: the loop's 4 ms sleep and more.
        QVERIFY(r.computeNs() >= 4'000'000);
        // The stage the Dataset marks (8 samples of 1 ms), in whichever process loaded it.
        QVERIFY2(r.decodeNs >= 8'000'000 && r.loadNs() >= r.decodeNs,
                 qPrintable(QStringLiteral("batch %1: decode %2 ns, load %3 ns")
                                .arg(i)
                                .arg(r.decodeNs)
                                .arg(r.loadNs())));
        QCOMPARE(r.worker, workers == 0 ? kConsumerThread : static_cast<std::int32_t>(i % 25 % 2));
    }
    // ... and differs from it by the wrapper's call, tens of microseconds (a busy
    // machine can preempt any one batch: the median is what is checked).
    std::sort(differences.begin(), differences.end());
    const std::int64_t median = differences[differences.size() / 2];
    QVERIFY2(median < 300'000, qPrintable(QStringLiteral("median difference %1 ns").arg(median)));
}

void TestProbeWatch::theStepIsTimedFromTheDelivery()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("step"));
    const Loop loop = runWatchedLoop(out, 0, {}, kStepLoop);
    QVERIFY2(loop.exitCode == 0, qPrintable(loop.err));
    const OpenedRun run = openRun((out + QStringLiteral(".csv")).toStdString(),
                                  (out + QStringLiteral(".json")).toStdString());
    const auto records = run.trace->records();
    std::ifstream in((out + QStringLiteral(".steps.json")).toStdString());
    const auto steps = nlohmann::json::parse(in);
    QCOMPARE(records.size(), std::size_t{12});
    QCOMPARE(steps.size(), records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
        const TraceRecord &r = records[i];
        const std::int64_t mine = steps[i].get<std::int64_t>();
        const QString what = QStringLiteral("batch %1: delivery %2, step %3 to %4 ns, wait %5 ns, "
                                            "the loop's step %6 ns")
                                 .arg(i)
                                 .arg(r.deliveryNs)
                                 .arg(r.computeStartNs)
                                 .arg(r.computeEndNs)
                                 .arg(r.waitNs())
                                 .arg(mine);
        // The step begins when the batch is delivered, never while the loop waits ...
        QVERIFY2(r.computeStartNs >= r.deliveryNs, qPrintable(what));
        // ... and holds the loop's 20 ms sleep; the wait before it (100 ms of loading
        // here) is no part of it: the probe's step holds only its own calls beyond the
        // loop's (tens of microseconds), where one measured from the request would be
        // the loop's step and the whole wait.
        QVERIFY2(r.waitNs() >= 100'000'000, qPrintable(what));
        QVERIFY2(r.computeNs() >= 20'000'000 && r.computeNs() >= mine, qPrintable(what));
        QVERIFY2(r.computeNs() < mine + r.waitNs() / 2, qPrintable(what));
    }
}

void TestProbeWatch::eachRankWritesItsOwnRun()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("job"));
    for (const int rank : {0, 1}) {
        const Loop loop = runWatchedLoop(
            out, 1, {QStringLiteral("RANK=%1").arg(rank), QStringLiteral("WORLD_SIZE=2")});
        QVERIFY2(loop.exitCode == 0, qPrintable(loop.err));
    }
    for (const int rank : {0, 1}) {
        const QString base = out + QStringLiteral(".rank%1").arg(rank);
        const OpenedRun run = openRun((base + QStringLiteral(".csv")).toStdString(),
                                      (base + QStringLiteral(".json")).toStdString());
        QCOMPARE(run.report.config.devices, 2);
        for (const TraceRecord &r : run.trace->records())
            QCOMPARE(r.rank, rank);
        std::ifstream in((base + QStringLiteral(".json")).toStdString());
        const auto probe = nlohmann::json::parse(in).at("probe");
        QCOMPARE(probe.at("rank").get<int>(), rank);
        QCOMPARE(probe.at("world_size").get<int>(), 2);
        QVERIFY(probe.at("start_unix_ns").get<std::int64_t>() > 0);
    }
    QVERIFY(!QFile::exists(out + QStringLiteral(".csv"))); // no run without a rank

    // Opened from either rank's file, the set is one data-parallel run of 2 ranks.
    const OpenedRun set = openRankSet((out + QStringLiteral(".rank1.json")).toStdString());
    QCOMPARE(set.report.config.devices, 2);
    const auto records = set.trace->records();
    QCOMPARE(records.size(), std::size_t{100});
    int perRank[2] = {0, 0};
    for (const TraceRecord &r : records)
        ++perRank[r.rank];
    QCOMPARE(perRank[0], 50);
    QCOMPARE(perRank[1], 50);
    QCOMPARE(set.report.summary.samples, std::int64_t{800});
}

void TestProbeWatch::aProbeThatCannotWriteNeverBreaksTheLoop()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    // The run's folder does not exist: the probe cannot start, the loop goes on.
    const Loop loop = runWatchedLoop(dir.filePath(QStringLiteral("missing/run")), 2);
    QVERIFY2(loop.exitCode == 0, qPrintable(loop.err));
    QCOMPARE(loop.err.count(QStringLiteral("loaderlab_probe stopped recording")), 1);
    QVERIFY2(loop.out.contains(QStringLiteral("batches 50")), qPrintable(loop.out));
}

LOADERLAB_GUILESS_TEST_MAIN(TestProbeWatch)
#include "test_probe_watch.moc"
