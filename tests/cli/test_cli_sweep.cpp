// `loaderlab sweep` with the real binary: a sweep killed outright resumes without a
// duplicate or a missing cell, a failing cell is recorded and the sweep goes on,
// shards merged equal the unsharded sweep's cells, a folder of another sweep is
// refused, one budget option at most sets a cell's length.

#include "cli_process.h"
#include "tests/support/sweep_args.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>

#include <csignal>

using clitest::Result;
using clitest::runLoaderlab;

namespace {

// 2 x 3 cells of 8 batches each, 30 ms per batch: about 0.3 s a cell.
constexpr SmallSweep kSweep{
    .sleepBatchMs = 30, .batchSizes = "4,8,16", .budgetOption = "--budget-batches", .budget = 8};

// Every record line of the folder's cells*.jsonl files: order -> count of lines.
std::map<std::int64_t, int> recordLines(const QString &dir, std::set<std::string> *states = nullptr)
{
    std::map<std::int64_t, int> lines;
    for (const QString &name : QDir(dir).entryList({QStringLiteral("cells*.jsonl")}, QDir::Files)) {
        std::ifstream in(QDir(dir).filePath(name).toStdString());
        std::string line;
        while (std::getline(in, line)) {
            try {
                const auto j = nlohmann::json::parse(line);
                ++lines[j.at("order").get<std::int64_t>()];
                if (states)
                    states->insert(j.at("state").get<std::string>());
            } catch (const std::exception &) {
                // a line cut by the kill
            }
        }
    }
    return lines;
}

} // namespace

class TestCliSweep : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void killedSweepResumesWithoutDuplicates();
    void failingCellIsRecordedAndTheSweepGoesOn();
    void shardsMergeToTheWholeSweep();
    void anotherSweepInTheFolderIsRefused();
    void outAloneResumesTheFoldersSweep();
    void oneBudgetOptionSetsTheCellLength();

private:
    QTemporaryDir m_dir;
};

void TestCliSweep::killedSweepResumesWithoutDuplicates()
{
    const QString out = m_dir.filePath(QStringLiteral("killed"));
    QProcess process;
    clitest::startLoaderlab(process, sweepArgs(out, kSweep));
    QVERIFY(process.waitForStarted());
    // Kill it once two cells are recorded, in the middle of the third.
    QTRY_VERIFY_WITH_TIMEOUT(recordLines(out).size() >= 2, 120'000);
    ::kill(static_cast<pid_t>(process.processId()), SIGKILL);
    QVERIFY(process.waitForFinished(10'000));
    const std::size_t before = recordLines(out).size();
    QVERIFY(before >= 2 && before < 6);

    const Result r = runLoaderlab(sweepArgs(out, kSweep));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("%1 found done").arg(before)), qPrintable(r.err));
    const auto lines = recordLines(out);
    QCOMPARE(lines.size(), std::size_t{6});
    for (const auto &[order, count] : lines)
        QVERIFY2(count == 1,
                 qPrintable(QStringLiteral("cell %1 recorded %2 times").arg(order).arg(count)));
    // Every recorded cell has its trace; no half-written one is left.
    QCOMPARE(QDir(out + QStringLiteral("/traces")).entryList({QStringLiteral("*.csv")}).size(), 6);
    QVERIFY(QDir(out + QStringLiteral("/traces")).entryList({QStringLiteral("*.part")}).isEmpty());
    QVERIFY2(r.out.contains(QStringLiteral("recommended: ")), qPrintable(r.out));
}

void TestCliSweep::failingCellIsRecordedAndTheSweepGoesOn()
{
    const QString out = m_dir.filePath(QStringLiteral("failing"));
    const QString missing = m_dir.filePath(QStringLiteral("no-such.bin"));
    const Result r = runLoaderlab(
        {QStringLiteral("sweep"), QStringLiteral("--dataset"), QStringLiteral("synthetic"),
         QStringLiteral("--shape"), QStringLiteral("1x8x8"), QStringLiteral("--axis"),
         QStringLiteral("dataset.kind=synthetic,tensor"), QStringLiteral("--set"),
         QStringLiteral("dataset.path=") + missing, QStringLiteral("--budget-batches"),
         QStringLiteral("4"), QStringLiteral("--out"), out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    std::set<std::string> states;
    QCOMPARE(recordLines(out, &states).size(), std::size_t{2});
    QCOMPARE(states, (std::set<std::string>{"finished", "failed"}));
    QVERIFY2(r.out.contains(QStringLiteral("failed: ")) && r.out.contains(missing),
             qPrintable(r.out));
    QVERIFY2(r.err.contains(QStringLiteral("(1 failed)")), qPrintable(r.err));
}

void TestCliSweep::shardsMergeToTheWholeSweep()
{
    const QString a = m_dir.filePath(QStringLiteral("shard1"));
    const QString b = m_dir.filePath(QStringLiteral("shard2"));
    const QString merged = m_dir.filePath(QStringLiteral("merged"));
    Result r = runLoaderlab(sweepArgs(a, kSweep)
                            << QStringLiteral("--shard") << QStringLiteral("1/2"));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // The second shard from Slurm's array variables, as a job array task sees them.
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SLURM_ARRAY_TASK_ID"), QStringLiteral("1"));
    env.insert(QStringLiteral("SLURM_ARRAY_TASK_COUNT"), QStringLiteral("2"));
    env.insert(QStringLiteral("SLURM_ARRAY_TASK_MIN"), QStringLiteral("0"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(LOADERLAB_BINARY), sweepArgs(b, kSweep));
    r = clitest::finish(process, 240'000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("shard 2/2")), qPrintable(r.err));
    const auto first = recordLines(a);
    const auto second = recordLines(b);
    QCOMPARE(first.size() + second.size(), std::size_t{6});
    for (const auto &[order, count] : first)
        QVERIFY(!second.count(order));

    r = runLoaderlab(
        {QStringLiteral("sweep"), QStringLiteral("merge"), QStringLiteral("--out"), merged, a, b});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto all = recordLines(merged);
    QCOMPARE(all.size(), std::size_t{6});
    for (std::int64_t order = 0; order < 6; ++order)
        QCOMPARE(all.at(order), 1);
    QCOMPARE(QDir(merged + QStringLiteral("/traces")).entryList({QStringLiteral("*.csv")}).size(),
             6);
    // The merged folder reads back as the whole sweep.
    r = runLoaderlab({QStringLiteral("sweep"), QStringLiteral("report"), merged});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(r.out.count(QLatin1Char('\n')) >= 7, true);
}

void TestCliSweep::anotherSweepInTheFolderIsRefused()
{
    const QString out = m_dir.filePath(QStringLiteral("killed"));
    QStringList other = sweepArgs(out, kSweep);
    other.replace(other.indexOf(QStringLiteral("loader.batch_size=4,8,16")),
                  QStringLiteral("loader.batch_size=4,32"));
    const Result r = runLoaderlab(other);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("holds the results of another sweep")),
             qPrintable(r.err));
    const Result bad = runLoaderlab({QStringLiteral("sweep"), QStringLiteral("--axis"),
                                     QStringLiteral("loader.workerz=1"), QStringLiteral("--out"),
                                     out});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains(QStringLiteral("loader.workerz: unknown key")), qPrintable(bad.err));
}

void TestCliSweep::outAloneResumesTheFoldersSweep()
{
    // "killed" holds the whole sweep by now: --out alone reads its definition.
    const QString out = m_dir.filePath(QStringLiteral("killed"));
    Result r = runLoaderlab({QStringLiteral("sweep"), QStringLiteral("--out"), out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("ran 0 cells (0 failed), 6 found done")),
             qPrintable(r.err));
    // A run option there would be lost: refused, as is a folder without a sweep.
    r = runLoaderlab({QStringLiteral("sweep"), QStringLiteral("--out"), out,
                      QStringLiteral("--workers"), QStringLiteral("3")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("--workers: give --axis")), qPrintable(r.err));
    // So would the grid's own options; the sweep's other options still apply.
    for (const char *option : {"--repeats", "--budget-batches"}) {
        r = runLoaderlab({QStringLiteral("sweep"), QStringLiteral("--out"), out,
                          QLatin1String(option), QStringLiteral("2")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String(option) + QStringLiteral(": give --axis")),
                 qPrintable(r.err));
    }
    r = runLoaderlab({QStringLiteral("sweep"), QStringLiteral("--out"), out,
                      QStringLiteral("--quiet"), QStringLiteral("--no-traces"),
                      QStringLiteral("--log-level"), QStringLiteral("error")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString empty = m_dir.filePath(QStringLiteral("empty"));
    r = runLoaderlab({QStringLiteral("sweep"), QStringLiteral("--out"), empty});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("holds no sweep to resume")), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(empty));
    // The job array's options go with --slurm-script only.
    r = runLoaderlab(sweepArgs(out, kSweep)
                     << QStringLiteral("--slurm-tasks") << QStringLiteral("2"));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("--slurm-tasks: goes with --slurm-script")),
             qPrintable(r.err));
    const QString script = m_dir.filePath(QStringLiteral("too-many.sbatch"));
    r = runLoaderlab(sweepArgs(out, kSweep)
                     << QStringLiteral("--slurm-script") << script
                     << QStringLiteral("--slurm-tasks") << QStringLiteral("7"));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("7 tasks for 6 cells")), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(script));
}

void TestCliSweep::oneBudgetOptionSetsTheCellLength()
{
    // The three budget options are listed after --out, at most one is given, and a
    // run's own length options point to them; each is refused before a cell runs.
    const Result help = runLoaderlab({QStringLiteral("sweep"), QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    qsizetype at = help.out.indexOf(QStringLiteral("--out <dir>"));
    for (const char *option :
         {"--budget-samples <n>", "--budget-batches <n>", "--budget-seconds <s>", "--repeats"}) {
        const qsizetype next = help.out.indexOf(QLatin1String(option));
        QVERIFY2(at >= 0 && next > at, option);
        at = next;
    }
    const QString out = m_dir.filePath(QStringLiteral("budget"));
    QStringList args = sweepArgs(out, kSweep);
    Result r = runLoaderlab(QStringList(args)
                            << QStringLiteral("--budget-seconds") << QStringLiteral("2"));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral(
                 "give one of --budget-samples, --budget-batches, --budget-seconds")),
             qPrintable(r.err));
    args.replace(args.indexOf(QStringLiteral("--budget-batches")),
                 QStringLiteral("--budget-seconds"));
    r = runLoaderlab(QStringList(args) << QStringLiteral("--epochs") << QStringLiteral("1"));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("--epochs: a sweep sets each cell's length with "
                                           "--budget-samples (default 10240), --budget-batches "
                                           "or --budget-seconds")),
             qPrintable(r.err));
    args.replace(args.indexOf(QStringLiteral("8")), QStringLiteral("0"));
    r = runLoaderlab(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("--budget-seconds: '0' is not a positive number")),
             qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out));
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliSweep)
#include "test_cli_sweep.moc"
