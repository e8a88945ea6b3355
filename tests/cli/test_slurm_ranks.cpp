// `loaderlab run --engine pytorch --slurm-ranks` under a real job step: a one-node
// Slurm cluster on localhost (slurm_cluster.h) runs `srun -n 2` of it. Each task is
// one rank process (SLURM_PROCID of SLURM_NTASKS) that meets the other through
// torch.distributed's gloo and all-reduces a real gradient every step; each writes
// its own run under rank names with the summary's "probe" object, and the two open
// as one data-parallel run. Skipped, with the reason, where the cluster cannot start
// or torch is missing.

#include "core/io/rank_set.h"
#include "core/io/run_reader.h"

#include "slurm_cluster.h"
#include "tests/support/require_pytorch.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>

using namespace loaderlab;

class TestSlurmRanks : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void srunTasksAreOneRunsRanks();
    void refusedOutsideSlurmAndOnLoaderLabsEngine();
};

void TestSlurmRanks::srunTasksAreOneRunsRanks()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString why;
    const auto cluster = clitest::startTestCluster(dir.path(), &why);
    if (!cluster)
        QSKIP(qPrintable(why));
    const int port = clitest::freeLoopbackPort();
    QVERIFY(port > 0);
    QDir().mkpath(dir.filePath(QStringLiteral("runs")));
    const QString out = dir.filePath(QStringLiteral("runs/r"));
    // 96 samples over 2 ranks, batch 8: 6 batches a rank an epoch, 2 epochs.
    QString output;
    const int status = cluster->runClient(
        QStringLiteral("srun"),
        {QStringLiteral("-n"),
         QStringLiteral("2"),
         QStringLiteral("-N"),
         QStringLiteral("1"),
         QStringLiteral("--export=ALL,MASTER_ADDR=127.0.0.1,MASTER_PORT=") + QString::number(port),
         QStringLiteral(LOADERLAB_BINARY),
         QStringLiteral("run"),
         QStringLiteral("--engine"),
         QStringLiteral("pytorch"),
         QStringLiteral("--slurm-ranks"),
         QStringLiteral("--samples"),
         QStringLiteral("96"),
         QStringLiteral("--shape"),
         QStringLiteral("1x4x4"),
         QStringLiteral("--batch-size"),
         QStringLiteral("8"),
         QStringLiteral("--workers"),
         QStringLiteral("1"),
         QStringLiteral("--epochs"),
         QStringLiteral("2"),
         QStringLiteral("--gradient-mb"),
         QStringLiteral("2"),
         QStringLiteral("--sleep-batch-ms"),
         QStringLiteral("2"),
         QStringLiteral("--quiet"),
         QStringLiteral("--csv"),
         out + QStringLiteral(".csv"),
         QStringLiteral("--json"),
         out + QStringLiteral(".json")},
        300'000, &output);
    cluster->stop();
    QVERIFY2(status == 0, qPrintable(output));

    QVERIFY(!QFile::exists(out + QStringLiteral(".csv"))); // each task writes its rank's
    for (const int rank : {0, 1}) {
        const QString base = out + QStringLiteral(".rank%1").arg(rank);
        std::ifstream in((base + QStringLiteral(".json")).toStdString());
        QVERIFY2(in, qPrintable(base + QStringLiteral(".json missing")));
        const auto json = nlohmann::json::parse(in);
        QCOMPARE(json.at("probe").at("rank").get<int>(), rank);
        QCOMPARE(json.at("probe").at("world_size").get<int>(), 2);
        QVERIFY(json.at("probe").at("start_unix_ns").get<std::int64_t>() > 0);
        QCOMPARE(QString::fromStdString(json.at("state").get<std::string>()),
                 QStringLiteral("finished"));
    }
    // Opened from either rank's file: one run of 2 devices, 12 batches each, every
    // step after the barrier a 2 MB all-reduce.
    const OpenedRun set = openRankSet((out + QStringLiteral(".rank1.csv")).toStdString());
    QCOMPARE(set.report.config.devices, 2);
    int perRank[2] = {0, 0};
    for (const TraceRecord &r : set.trace->records()) {
        QVERIFY(r.rank == 0 || r.rank == 1);
        ++perRank[r.rank];
        QVERIFY(r.syncEndNs >= r.syncStartNs && r.syncStartNs > 0);
        QVERIFY(r.exchangeEndNs > r.syncEndNs);
    }
    QCOMPARE(perRank[0], 12);
    QCOMPARE(perRank[1], 12);
    QCOMPARE(set.report.summary.samples, std::int64_t{192});
}

void TestSlurmRanks::refusedOutsideSlurmAndOnLoaderLabsEngine()
{
    // Not in a job step: refused, saying how to start it (exit 2).
    QProcess run;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &name : environment.keys())
        if (name.startsWith(QLatin1String("SLURM_")))
            environment.remove(name);
    run.setProcessEnvironment(environment);
    run.start(QStringLiteral(LOADERLAB_BINARY),
              {QStringLiteral("run"), QStringLiteral("--engine"), QStringLiteral("pytorch"),
               QStringLiteral("--slurm-ranks"), QStringLiteral("--batches"), QStringLiteral("1")});
    QVERIFY(run.waitForFinished(60'000));
    QCOMPARE(run.exitCode(), 2);
    QVERIFY2(run.readAllStandardError().contains("not in a Slurm job step"), "no reason given");
    // LoaderLab's engine runs its ranks as threads of one process.
    environment.insert(QStringLiteral("SLURM_PROCID"), QStringLiteral("0"));
    environment.insert(QStringLiteral("SLURM_NTASKS"), QStringLiteral("2"));
    environment.insert(QStringLiteral("MASTER_ADDR"), QStringLiteral("127.0.0.1"));
    environment.insert(QStringLiteral("MASTER_PORT"), QStringLiteral("29999"));
    run.setProcessEnvironment(environment);
    run.start(QStringLiteral(LOADERLAB_BINARY),
              {QStringLiteral("run"), QStringLiteral("--slurm-ranks"), QStringLiteral("--batches"),
               QStringLiteral("1")});
    QVERIFY(run.waitForFinished(60'000));
    QCOMPARE(run.exitCode(), 2);
    QVERIFY2(run.readAllStandardError().contains("--engine pytorch"), "no reason given");
}

LOADERLAB_GUILESS_TEST_MAIN(TestSlurmRanks)
#include "test_slurm_ranks.moc"
