// The Slurm path for real: a one-node cluster on localhost (Debian's munged,
// slurmctld and slurmd, started and stopped by this test), the sbatch script that
// `loaderlab sweep --slurm-script` writes, submitted as a 2-task job array; the
// two shards' cells, merged, equal the cells of the same sweep run unsharded.
// Skipped, with the reason, only where the cluster cannot start (not root, the
// packages missing).

#include "cli_process.h"
#include "slurm_cluster.h"
#include "tests/support/sweep_args.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <string>
#include <tuple>

using clitest::Result;
using clitest::runLoaderlab;

namespace {

// 2 x 3 cells of 8 batches of 20 ms each.
constexpr SmallSweep kSlurmSweep{
    .sleepBatchMs = 20, .batchSizes = "4,8,16", .budgetOption = "--budget-batches", .budget = 8};

// What identifies a cell's record: order, grid, repeat, values and state; the
// timings differ from run to run.
using CellKey = std::tuple<std::int64_t, std::int64_t, int, std::string, std::string>;

std::set<CellKey> cellKeys(const QString &dir, int *lines)
{
    std::set<CellKey> keys;
    *lines = 0;
    for (const QString &name : QDir(dir).entryList({QStringLiteral("cells*.jsonl")}, QDir::Files)) {
        std::ifstream in(QDir(dir).filePath(name).toStdString());
        std::string line;
        while (std::getline(in, line)) {
            const auto j = nlohmann::json::parse(line);
            ++*lines;
            keys.emplace(j.at("order").get<std::int64_t>(), j.at("grid").get<std::int64_t>(),
                         j.at("repeat").get<int>(), j.at("values").dump(),
                         j.at("state").get<std::string>());
        }
    }
    return keys;
}

QString readSlurmFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

} // namespace

class TestCliSlurm : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void jobArrayShardsMergeToTheUnshardedSweep();
};

void TestCliSlurm::jobArrayShardsMergeToTheUnshardedSweep()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    clitest::SlurmCluster cluster(dir.filePath(QStringLiteral("cluster")));
    QDir().mkpath(dir.filePath(QStringLiteral("cluster")));
    QString why;
    if (!cluster.start(&why)) {
        cluster.stop();
        QSKIP(qPrintable(QStringLiteral("no one-node Slurm cluster here: ") + why));
    }
    qInfo("cluster up: daemons with PIDs %s", qPrintable(QStringLiteral("%1, %2, %3")
                                                             .arg(cluster.pids()[0])
                                                             .arg(cluster.pids()[1])
                                                             .arg(cluster.pids()[2])));

    // A results folder name with a space: the script must keep it whole.
    const QString results = dir.filePath(QStringLiteral("array results"));
    const QString script = dir.filePath(QStringLiteral("sweep.sbatch"));
    Result r = runLoaderlab(sweepArgs(results, kSlurmSweep)
                            << QStringLiteral("--slurm-script") << script
                            << QStringLiteral("--slurm-tasks") << QStringLiteral("2"));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("job array of 2 tasks over 6 cells")),
             qPrintable(r.err));
    QVERIFY(QFileInfo(script).isExecutable());
    QVERIFY(QFile::exists(results + QStringLiteral("/sweep.json")));
    QVERIFY2(!QDir(results).entryList({QStringLiteral("cells*.jsonl")}).size(),
             "writing the script runs no cell");

    QString output;
    const int submitted = cluster.runClient(QStringLiteral("sbatch"),
                                            {QStringLiteral("--wait"), script}, 300'000, &output);
    QVERIFY2(submitted == 0, qPrintable(output));
    const QStringList logs = QDir(results).entryList({QStringLiteral("slurm-*.out")}, QDir::Files);
    QCOMPARE(logs.size(), 2);
    QString allLogs;
    for (const QString &log : logs)
        allLogs += readSlurmFile(QDir(results).filePath(log));
    QVERIFY2(allLogs.contains(QStringLiteral("shard 1/2"))
                 && allLogs.contains(QStringLiteral("shard 2/2")),
             qPrintable(allLogs));
    QVERIFY(QFile::exists(results + QStringLiteral("/cells-1-of-2.jsonl")));
    QVERIFY(QFile::exists(results + QStringLiteral("/cells-2-of-2.jsonl")));

    const QString merged = dir.filePath(QStringLiteral("merged"));
    r = runLoaderlab({QStringLiteral("sweep"), QStringLiteral("merge"), QStringLiteral("--out"),
                      merged, results});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString whole = dir.filePath(QStringLiteral("unsharded"));
    r = runLoaderlab(sweepArgs(whole, kSlurmSweep));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));

    int mergedLines = 0;
    int wholeLines = 0;
    const auto mergedCells = cellKeys(merged, &mergedLines);
    const auto wholeCells = cellKeys(whole, &wholeLines);
    QCOMPARE(wholeCells.size(), std::size_t{6});
    QCOMPARE(mergedLines, 6); // every cell exactly once
    QVERIFY(mergedCells == wholeCells);
    for (const auto &cell : mergedCells)
        QCOMPARE(std::get<4>(cell), std::string("finished"));

    const auto pids = cluster.pids();
    cluster.stop();
    for (const qint64 pid : pids)
        QVERIFY2(::kill(static_cast<pid_t>(pid), 0) != 0, "a daemon outlived stop()");
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliSlurm)
#include "test_cli_slurm.moc"
