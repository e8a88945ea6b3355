// `loaderlab run --engine pytorch` with a Python that passes the import check and
// then misbehaves (fake "python" scripts, tests/support/fake_python.h, chosen with
// LOADERLAB_PYTHON): a bad record fails the run with exit 1 and the outputs of the
// batches before it; Ctrl-C ends promptly and leaves no process of the engine, even
// one that ignores SIGTERM with a `setsid` grandchild holding its stdout, and even
// while the import check hangs. No torch needed.

#include "cli_process.h"
#include "tests/support/fake_python.h"
#include "tests/support/test_main.h"

#include <QElapsedTimer>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>

#include <csignal>

using clitest::Result;
using namespace faketest;

namespace {

QStringList syntheticRun(const QString &csv, const QString &json)
{
    return {QStringLiteral("run"),
            QStringLiteral("--engine"),
            QStringLiteral("pytorch"),
            QStringLiteral("--shape"),
            QStringLiteral("1x4x4"),
            QStringLiteral("--samples"),
            QStringLiteral("100"),
            QStringLiteral("--batch-size"),
            QStringLiteral("4"),
            QStringLiteral("--workers"),
            QStringLiteral("0"),
            QStringLiteral("--epochs"),
            QStringLiteral("0"),
            QStringLiteral("--csv"),
            csv,
            QStringLiteral("--json"),
            json,
            QStringLiteral("--quiet")};
}

int csvRows(const QString &csv)
{
    QFile file(csv);
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    return static_cast<int>(file.readAll().count('\n')) - 1; // less the header
}

std::string state(const QString &json)
{
    std::ifstream in(json.toStdString());
    return nlohmann::json::parse(in)["state"].get<std::string>();
}

} // namespace

class TestCliPytorchChannel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void cleanup();
    void badRecordExitsOneWithTheOutputsSoFar();
    void ctrlCEndsAStubbornEnginePromptly();
    void ctrlCEndsAHangingImportCheck();

private:
    QTemporaryDir m_dir;
    std::vector<int> m_escaped;
};

void TestCliPytorchChannel::cleanup()
{
    for (int pid : m_escaped)
        kill(pid, SIGKILL);
    m_escaped.clear();
    qunsetenv("LOADERLAB_PYTHON");
}

void TestCliPytorchChannel::badRecordExitsOneWithTheOutputsSoFar()
{
    const QString python = writeFakePython(m_dir.path(), QStringLiteral("null_record"),
                                           QStringLiteral("line('null')\ntime.sleep(60)"));
    qputenv("LOADERLAB_PYTHON", python.toUtf8());
    const QString csv = m_dir.filePath(QStringLiteral("bad.csv"));
    const QString json = m_dir.filePath(QStringLiteral("bad.json"));
    QElapsedTimer timer;
    timer.start();
    const Result r = clitest::runLoaderlab(syntheticRun(csv, json), 30'000);
    QVERIFY2(r.exitCode == 1, qPrintable(r.err));
    QVERIFY(timer.elapsed() < 15'000);
    QVERIFY2(r.err.contains(QStringLiteral("failed: the PyTorch engine (") + python
                            + QStringLiteral(") sent a bad record on line 5 (not a JSON object "
                                             "but null): null")),
             qPrintable(r.err));
    QCOMPARE(csvRows(csv), 3);
    QCOMPARE(state(json), std::string("failed"));
    const std::vector<int> pids = notedPids(python);
    QCOMPARE(pids.size(), std::size_t{2});
    QTRY_VERIFY_WITH_TIMEOUT(livingInGroup(pids[1]).empty(), 3'000);
}

void TestCliPytorchChannel::ctrlCEndsAStubbornEnginePromptly()
{
    const QString python = writeFakePython(m_dir.path(), QStringLiteral("stubborn"),
                                           stubbornEngineStart()
                                               + QStringLiteral("while True:\n    time.sleep(1)"));
    qputenv("LOADERLAB_PYTHON", python.toUtf8());
    const QString csv = m_dir.filePath(QStringLiteral("stop.csv"));
    const QString json = m_dir.filePath(QStringLiteral("stop.json"));
    QProcess process;
    clitest::startLoaderlab(process, syntheticRun(csv, json));
    QVERIFY(process.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(notedPids(python).size() == 4, 20'000); // check, engine, 2 more
    const std::vector<int> pids = notedPids(python);
    m_escaped.push_back(pids[3]);
    QTest::qWait(200);
    QElapsedTimer timer;
    timer.start();
    ::kill(static_cast<pid_t>(process.processId()), SIGINT);
    const Result r = clitest::finish(process, 15'000);
    if (r.exitCode == -1)
        kill(pids[3], SIGKILL);
    QVERIFY2(r.exitCode == 128 + SIGINT, qPrintable(r.err));
    QVERIFY2(timer.elapsed() < 8'000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(csvRows(csv), 3);
    QCOMPARE(state(json), std::string("stopped"));
    QTRY_VERIFY_WITH_TIMEOUT(livingInGroup(pids[1]).empty(), 3'000);
}

void TestCliPytorchChannel::ctrlCEndsAHangingImportCheck()
{
    const QString python = writeFakePython(m_dir.path(), QStringLiteral("hanging_check"),
                                           QStringLiteral("pass"),
                                           QStringLiteral("time.sleep(600)"));
    qputenv("LOADERLAB_PYTHON", python.toUtf8());
    const QString csv = m_dir.filePath(QStringLiteral("check.csv"));
    const QString json = m_dir.filePath(QStringLiteral("check.json"));
    QProcess process;
    clitest::startLoaderlab(process, syntheticRun(csv, json));
    QVERIFY(process.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(notedPids(python).size() == 1, 20'000);
    const int check = notedPids(python)[0];
    QElapsedTimer timer;
    timer.start();
    ::kill(static_cast<pid_t>(process.processId()), SIGINT);
    const Result r = clitest::finish(process, 15'000);
    const bool leftBehind = alive(check);
    kill(check, SIGKILL);
    QVERIFY2(!leftBehind, "the import check's Python was left running");
    QVERIFY2(r.exitCode == 128 + SIGINT, qPrintable(r.err));
    QVERIFY2(timer.elapsed() < 5'000, qPrintable(QString::number(timer.elapsed())));
    QVERIFY2(r.err.contains(QStringLiteral("stopped (Interrupt) before the run started")),
             qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(csv));
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliPytorchChannel)
#include "test_cli_pytorch_channel.moc"
