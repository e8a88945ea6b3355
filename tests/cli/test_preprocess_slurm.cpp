// Offline preprocessing as a cluster job for real: `loaderlab preprocess --shards 4
// --slurm-script --slurm-tasks 2` writes an sbatch script, the one-node cluster
// (started and stopped by this test) runs it as a 2-task job array whose tasks share
// the 4 shards out, and the shards, read in order, hold the records of the
// one-process tensor file byte for byte; a run opens the manifest as one dataset. Skipped, with the
// reason, only where the cluster cannot start (not root, the packages missing).

#include "cli_process.h"
#include "slurm_cluster.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <csignal>
#include <fstream>
#include <iterator>

using clitest::Result;
using clitest::runLoaderlab;

namespace {

// A tensor file's records: everything after its 64-byte header.
QByteArray recordsOf(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll().mid(64) : QByteArray();
}

} // namespace

class TestPreprocessSlurm : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void jobArrayWritesTheSingleFilesRecords();
};

void TestPreprocessSlurm::jobArrayWritesTheSingleFilesRecords()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString images = dir.filePath(QStringLiteral("images"));
    Result r = clitest::makeImageFolder(images, 5);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString single = dir.filePath(QStringLiteral("single.lltensor"));
    r = runLoaderlab({QStringLiteral("preprocess"), images, single, QStringLiteral("--dtype"),
                      QStringLiteral("uint8"), QStringLiteral("--size"), QStringLiteral("32x32")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));

    clitest::SlurmCluster cluster(dir.filePath(QStringLiteral("cluster")));
    QDir().mkpath(dir.filePath(QStringLiteral("cluster")));
    QString why;
    if (!cluster.start(&why)) {
        cluster.stop();
        QSKIP(qPrintable(QStringLiteral("no one-node Slurm cluster here: ") + why));
    }
    // A shard folder with a space in its name: the script keeps it whole.
    const QString shards = dir.filePath(QStringLiteral("my shards"));
    const QString script = dir.filePath(QStringLiteral("preprocess.sbatch"));
    r = runLoaderlab({QStringLiteral("preprocess"), images, shards, QStringLiteral("--dtype"),
                      QStringLiteral("uint8"), QStringLiteral("--size"), QStringLiteral("32x32"),
                      QStringLiteral("--shards"), QStringLiteral("4"),
                      QStringLiteral("--slurm-tasks"), QStringLiteral("2"),
                      QStringLiteral("--slurm-script"), script});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("a Slurm job array of 2 tasks sharing 4 shards")),
             qPrintable(r.err));
    QVERIFY(QFileInfo(script).isExecutable());
    QVERIFY2(QDir(shards).entryList({QStringLiteral("*.lltensor")}, QDir::Files).isEmpty(),
             "writing the script decodes nothing");

    QString output;
    const int submitted = cluster.runClient(QStringLiteral("sbatch"),
                                            {QStringLiteral("--wait"), script}, 300'000, &output);
    QVERIFY2(submitted == 0, qPrintable(output));
    QCOMPARE(QDir(shards).entryList({QStringLiteral("slurm-*.out")}, QDir::Files).size(), 2);
    QVERIFY(QFile::exists(shards + QStringLiteral("/manifest.json")));
    QByteArray sharded;
    for (int k = 0; k < 4; ++k)
        sharded += recordsOf(
            shards + QStringLiteral("/shard-%1-of-00004.lltensor").arg(k, 5, 10, QLatin1Char('0')));
    QVERIFY(!sharded.isEmpty());
    QVERIFY2(sharded == recordsOf(single), "the shards differ from the one-process file");

    // The manifest as one dataset: 10 samples, one epoch of batches of 5.
    r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("tensor"),
                      QStringLiteral("--path"), shards + QStringLiteral("/manifest.json"),
                      QStringLiteral("--batch-size"), QStringLiteral("5"),
                      QStringLiteral("--epochs"), QStringLiteral("1")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains(QRegularExpression(QStringLiteral("samples\\s+10\\b"))),
             qPrintable(r.out));

    const auto pids = cluster.pids();
    cluster.stop();
    for (const qint64 pid : pids)
        QVERIFY2(::kill(static_cast<pid_t>(pid), 0) != 0, "a daemon outlived stop()");
}

LOADERLAB_GUILESS_TEST_MAIN(TestPreprocessSlurm)
#include "test_preprocess_slurm.moc"
