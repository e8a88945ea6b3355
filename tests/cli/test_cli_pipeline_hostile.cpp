// A user's pipeline file that misbehaves, through the real binary: LoaderLab never
// writes over a file it did not write (a module the pipeline imports, a user's CSV),
// a dataset that cannot run is refused with exit 2 and one that delivers nothing
// fails with exit 1, a hanging pipeline shows as "no batch for N s" in the progress,
// nothing of the engine outlives a loaderlab killed with SIGKILL, and a sweep none
// of whose cells can run is refused before it starts.

#include "tests/support/engine_checks.h"
#include "tests/support/require_pytorch.h"

#include "cli_process.h"
#include "tests/support/test_main.h"

#include <QElapsedTimer>
#include <QtTest>

#include <fstream>
#include <sstream>

#include <csignal>

using namespace clitest;

namespace {

std::string readHostileText(const QString &path)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void writeText(const QString &path, const std::string &text)
{
    std::ofstream(path.toStdString(), std::ios::binary) << text;
}

// A pipeline of `samples` small tensors whose __getitem__ runs `body` first (with
// `i` the index), in a package folder with a helper module it imports.
QString writePipeline(const QString &folder, int samples, const char *body = "pass")
{
    QDir().mkpath(folder);
    writeText(folder + QStringLiteral("/helper_mod.py"), "def scale(x):\n    return x * 2\n");
    const QString path = folder + QStringLiteral("/main.py");
    writeText(path, "import os, sys, time, torch\n"
                    "from helper_mod import scale\n"
                    "class D(torch.utils.data.Dataset):\n"
                    "    def __len__(self): return "
                        + std::to_string(samples)
                        + "\n"
                          "    def __getitem__(self, i):\n"
                          "        "
                        + body
                        + "\n"
                          "        return scale(torch.zeros(2))\n"
                          "def make_dataset(args): return D()\n");
    return path;
}

QStringList pipelineRun(const QString &path, int workers = 0)
{
    return {QStringLiteral("run"),
            QStringLiteral("--dataset"),
            QStringLiteral("python"),
            QStringLiteral("--path"),
            path,
            QStringLiteral("--workers"),
            QString::number(workers),
            QStringLiteral("--batch-size"),
            QStringLiteral("4"),
            QStringLiteral("--epochs"),
            QStringLiteral("1")};
}

} // namespace

class TestCliPipelineHostile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void anOutputNeverReplacesAFileLoaderLabDidNotWrite();
    void anEmptyDatasetIsRefusedAndANoSampleEpochFails();
    void aHangingPipelineShowsInTheProgress();
    void nothingOfTheEngineOutlivesAKilledLoaderlab();
    void aSweepNoCellOfWhichCanRunIsRefused();

private:
    QTemporaryDir m_dir;
};

void TestCliPipelineHostile::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

void TestCliPipelineHostile::anOutputNeverReplacesAFileLoaderLabDidNotWrite()
{
    REQUIRE_PYTORCH();
    const QString package = m_dir.filePath(QStringLiteral("pkg"));
    const QString pipeline = writePipeline(package, 8);
    const QString helper = package + QStringLiteral("/helper_mod.py");
    const std::string module = readHostileText(helper);
    // The module the pipeline imports, as --csv and as --json.
    for (const char *option : {"--csv", "--json", "--trace-json"}) {
        const Result r = runLoaderlab(pipelineRun(pipeline) << QLatin1String(option) << helper);
        QVERIFY2(r.exitCode == 2, qPrintable(r.err));
        QVERIFY2(r.err.contains(helper)
                     && r.err.contains(QStringLiteral("not a file LoaderLab "
                                                      "wrote")),
                 qPrintable(r.err));
        QCOMPARE(readHostileText(helper), module);
    }
    // A user's own CSV (a training job's labels) is refused too, and stays as it was.
    const QString labels = m_dir.filePath(QStringLiteral("labels.csv"));
    writeText(labels, "path,label\na.jpg,1\n");
    Result r = runLoaderlab(pipelineRun(pipeline) << QStringLiteral("--csv") << labels);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(readHostileText(labels), std::string("path,label\na.jpg,1\n"));
    // LoaderLab's own outputs of an earlier run, and an empty .csv made ready for
    // them, are replaced as before.
    const QString csv = m_dir.filePath(QStringLiteral("run.csv"));
    const QString json = m_dir.filePath(QStringLiteral("run.json"));
    writeText(csv, "");
    for (int round = 0; round < 2; ++round) {
        r = runLoaderlab(pipelineRun(pipeline)
                         << QStringLiteral("--csv") << csv << QStringLiteral("--json") << json);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }
    QVERIFY(readHostileText(csv).starts_with("index,epoch,worker,"));
}

void TestCliPipelineHostile::anEmptyDatasetIsRefusedAndANoSampleEpochFails()
{
    REQUIRE_PYTORCH();
    const QString empty = writePipeline(m_dir.filePath(QStringLiteral("empty")), 0);
    Result r = runLoaderlab(pipelineRun(empty)
                            << QStringLiteral("--epochs") << QStringLiteral("0"));
    QVERIFY2(r.exitCode == 2, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("main.py: make_dataset(args) returned an empty D")),
             qPrintable(r.err));
    // Every sample raises: no batch of 0 samples goes on for ever (--epochs 0).
    const QString broken = writePipeline(m_dir.filePath(QStringLiteral("broken")), 12,
                                         "raise OSError('unreadable %d' % i)");
    r = runLoaderlab(pipelineRun(broken, 2) << QStringLiteral("--epochs") << QStringLiteral("0"));
    QVERIFY2(r.exitCode == 1, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("epoch 1 delivered no sample: all 12 samples")),
             qPrintable(r.err));
}

void TestCliPipelineHostile::aHangingPipelineShowsInTheProgress()
{
    REQUIRE_PYTORCH();
    // The first batch comes, then __getitem__ hangs. The run is stopped (Ctrl-C) once
    // two progress lines said how long no batch came: however long a busy machine
    // takes to start Python and deliver that first batch.
    const QString path = writePipeline(m_dir.filePath(QStringLiteral("hangs")), 64,
                                       "time.sleep(3600) if i >= 4 else None");
    QProcess process;
    clitest::startLoaderlab(process, pipelineRun(path)
                                         << QStringLiteral("--seconds") << QStringLiteral("600"));
    QVERIFY(process.waitForStarted());
    // Progress lines every 2 s (stderr is no terminal): the real time since the start,
    // not the last batch's, and how long no batch came.
    QString err;
    QStringList idle;
    QElapsedTimer waited;
    waited.start();
    while (idle.size() < 2 && waited.elapsed() < 240'000 && process.state() == QProcess::Running) {
        process.waitForReadyRead(1'000);
        err += QString::fromUtf8(process.readAllStandardError());
        idle.clear();
        for (const QString &line : err.split(QLatin1Char('\n'))) {
            if (line.contains(QStringLiteral("1 batches"))
                && line.contains(QStringLiteral("no batch for")))
                idle << line;
        }
    }
    ::kill(static_cast<pid_t>(process.processId()), SIGINT);
    const Result r = clitest::finish(process, 60'000);
    err += r.err;
    QVERIFY2(idle.size() >= 2, qPrintable(err));
    QVERIFY2(idle.first() != idle.last(), qPrintable(err)); // the time goes on
    QVERIFY2(r.exitCode == 128 + SIGINT, qPrintable(err));  // stopped, outputs written
}

void TestCliPipelineHostile::nothingOfTheEngineOutlivesAKilledLoaderlab()
{
    REQUIRE_PYTORCH();
    // The engine's pid comes from the pipeline itself, in its workers' group.
    const QString pidFile = m_dir.filePath(QStringLiteral("engine.pid"));
    const QString path = writePipeline(
        m_dir.filePath(QStringLiteral("orphan")), 64,
        qPrintable(QStringLiteral("open(%1, 'w').write(str(os.getpgid(0))); time.sleep(3600)")
                       .arg(QStringLiteral("'") + pidFile + QStringLiteral("'"))));
    QProcess process;
    startLoaderlab(process, pipelineRun(path, 2));
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(pidFile) && QFile(pidFile).size() > 0, 120'000);
    const int group = QString::fromStdString(readHostileText(pidFile)).toInt();
    QVERIFY(group > 1);
    QVERIFY(kill(-group, 0) == 0);
    process.kill(); // SIGKILL: loaderlab cannot end the group itself
    QVERIFY(process.waitForFinished(10'000));
    // The engine notices its parent is gone (it polls twice a second) and ends its
    // group, the worker that sleeps included.
    bool gone = false;
    for (int i = 0; i < 6 && !gone; ++i)
        gone = loaderlab::test::groupGone(group);
    QVERIFY2(gone, "the engine's process group outlived loaderlab");
}

void TestCliPipelineHostile::aSweepNoCellOfWhichCanRunIsRefused()
{
    const QString out = m_dir.filePath(QStringLiteral("sweep"));
    const Result r = runLoaderlab(
        {QStringLiteral("sweep"), QStringLiteral("--engine"), QStringLiteral("pytorch"),
         QStringLiteral("--dataset"), QStringLiteral("idx"), QStringLiteral("--path"), m_dir.path(),
         QStringLiteral("--axis"), QStringLiteral("loader.num_workers=0,1"),
         QStringLiteral("--budget-batches"), QStringLiteral("2"), QStringLiteral("--out"), out});
    QVERIFY2(r.exitCode == 2, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("no cell of the sweep can run (2 cells)"))
                 && r.err.contains(QStringLiteral("not idx datasets")),
             qPrintable(r.err));
    QVERIFY2(!QFileInfo::exists(out), "the refused sweep made its results folder");
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliPipelineHostile)
#include "test_cli_pipeline_hostile.moc"
