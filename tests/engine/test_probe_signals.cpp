// A training loop under loaderlab_probe.watch() that is ended from outside (real
// torch, real signals): a SIGTERM ends its run "stopped" with every row written and
// the process then ends exactly as it would without the probe (killed by the signal,
// or through the script's own handler; a SIGTERM the script ignores stays ignored),
// and when the writer is killed outright (SIGKILL) a follower of its run, which
// waits for a final summary that never comes, learns that the writer is gone.

#include "core/engine/pytorch/python_probe.h"
#include "core/engine/pytorch/pytorch_run.h"
#include "core/io/run_follow.h"
#include "core/io/run_reader.h"

#include "tests/support/probe_loop.h"
#include "tests/support/require_pytorch.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

using namespace loaderlab;

namespace {

// Batches of 4 from 64 items, epoch after epoch. After 10 batches it makes the file
// `ready`; at an epoch's end it stops once the file `release` exists.
constexpr const char *kSignalsLoop = R"(
import os, signal, sys, time, torch
from torch.utils.data import DataLoader, Dataset
import loaderlab_probe

out, workers, mode, ready, release = sys.argv[1:6]
if mode == "handler":
    def stop(signum, frame):
        print("the script's handler ran", flush=True)
        sys.exit(3)
    signal.signal(signal.SIGTERM, stop)
elif mode == "ignore":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

class Items(Dataset):
    def __len__(self): return 64
    def __getitem__(self, i): return torch.full((2,), float(i))

loader = DataLoader(Items(), batch_size=4, num_workers=int(workers))
if mode != "no probe":
    loader = loaderlab_probe.watch(loader, out=out)
batches = 0
for epoch in range(10000):
    for batch in loader:
        batches += 1
        if batches == 10:
            open(ready, "w").close()
        time.sleep(0.01)
    if os.path.exists(release):
        break
print("batches", batches)
)";

class SignalsLoop
{
public:
    SignalsLoop(const QTemporaryDir &dir, int workers, const QString &mode)
        : out(dir.filePath(QStringLiteral("run")))
        , m_ready(dir.filePath(QStringLiteral("ready")))
        , m_release(dir.filePath(QStringLiteral("release")))
    {
        probeloop::start(process, kSignalsLoop,
                         {out, QString::number(workers), mode, m_ready, m_release});
        process.waitForStarted();
    }
    // It has recorded 10 batches and goes on.
    bool waitUntilReady()
    {
        for (int i = 0; i < 1200 && process.state() == QProcess::Running; ++i) {
            if (QFile::exists(m_ready))
                return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return false;
    }
    void release() { QFile(m_release).open(QIODevice::WriteOnly); }
    bool waitForEnd() { return process.waitForFinished(120'000); }
    nlohmann::json summary() const
    {
        std::ifstream in((out + QStringLiteral(".json")).toStdString());
        return nlohmann::json::parse(in);
    }
    OpenedRun opened() const
    {
        return openRun((out + QStringLiteral(".csv")).toStdString(),
                       (out + QStringLiteral(".json")).toStdString());
    }
    QString err() { return QString::fromUtf8(process.readAllStandardError()); }

    QString out;
    QProcess process;

private:
    QString m_ready;
    QString m_release;
};

// The whole rows in the run's CSV, its header not counted.
std::size_t csvRows(const QString &out)
{
    std::ifstream in((out + QStringLiteral(".csv")).toStdString(), std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) - 1;
}

} // namespace

class TestProbeSignals : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sigtermEndsTheRunStopped_data();
    void sigtermEndsTheRunStopped();
    void theScriptsOwnHandlerStillEndsIt();
    void anIgnoredSigtermStaysIgnored();
    void aFollowerLearnsThatAKilledWriterIsGone();
};

void TestProbeSignals::sigtermEndsTheRunStopped_data()
{
    QTest::addColumn<int>("workers");
    QTest::newRow("0 workers") << 0;
    QTest::newRow("2 workers") << 2; // forked after the probe's handler was installed
}

void TestProbeSignals::sigtermEndsTheRunStopped()
{
    REQUIRE_PYTORCH();
    QFETCH(int, workers);
    QTemporaryDir dir;
    SignalsLoop loop(dir, workers, QStringLiteral("default"));
    QVERIFY(loop.waitUntilReady());
    const qint64 pid = loop.process.processId();
    loop.process.terminate();
    QVERIFY(loop.waitForEnd());
    // Killed by the signal, as the script is without the probe (below).
    QCOMPARE(loop.process.exitStatus(), QProcess::CrashExit);
    QCOMPARE(loop.process.exitCode(), SIGTERM);

    const nlohmann::json summary = loop.summary();
    QCOMPARE(summary.at("state").get<std::string>(), std::string("stopped"));
    QVERIFY2(summary.at("error").get<std::string>().find("SIGTERM") != std::string::npos,
             summary.dump().c_str());
    QCOMPARE(summary.at("probe").at("pid").get<qint64>(), pid);
    // Every batch delivered has its whole row, and the run opens as one that stopped.
    const OpenedRun run = loop.opened();
    QCOMPARE(run.report.state, std::string("stopped"));
    const auto batches = summary.at("summary").at("batches").get<std::size_t>();
    QVERIFY(batches >= 10);
    QCOMPARE(run.trace->size(), batches);
    QCOMPARE(csvRows(loop.out), batches);
    QVERIFY(!QFile::exists(loop.out + QStringLiteral(".lock")));

    if (workers == 0) {
        QTemporaryDir plainDir;
        SignalsLoop plain(plainDir, 0, QStringLiteral("no probe"));
        QVERIFY(plain.waitUntilReady());
        plain.process.terminate();
        QVERIFY(plain.waitForEnd());
        QCOMPARE(plain.process.exitStatus(), loop.process.exitStatus());
        QCOMPARE(plain.process.exitCode(), loop.process.exitCode());
    }
}

void TestProbeSignals::theScriptsOwnHandlerStillEndsIt()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    SignalsLoop loop(dir, 2, QStringLiteral("handler"));
    QVERIFY(loop.waitUntilReady());
    loop.process.terminate();
    QVERIFY(loop.waitForEnd());
    QCOMPARE(loop.process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(loop.process.exitCode(), 3); // the script's sys.exit(3)
    QVERIFY(loop.process.readAllStandardOutput().contains("the script's handler ran"));
    const nlohmann::json summary = loop.summary();
    QCOMPARE(summary.at("state").get<std::string>(), std::string("stopped"));
    QVERIFY2(summary.at("error").get<std::string>().find("SIGTERM") != std::string::npos,
             summary.dump().c_str());
    QCOMPARE(loop.opened().trace->size(), summary.at("summary").at("batches").get<std::size_t>());
}

void TestProbeSignals::anIgnoredSigtermStaysIgnored()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    SignalsLoop loop(dir, 0, QStringLiteral("ignore"));
    QVERIFY(loop.waitUntilReady());
    loop.process.terminate(); // delivered (and ignored) before the loop sees `release`
    loop.release();
    QVERIFY(loop.waitForEnd());
    QCOMPARE(loop.process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(loop.process.exitCode(), 0);
    const QByteArray printed = loop.process.readAllStandardOutput();
    const nlohmann::json summary = loop.summary();
    QCOMPARE(summary.at("state").get<std::string>(), std::string("finished"));
    const auto batches = summary.at("summary").at("batches").get<std::size_t>();
    QVERIFY2(printed.contains("batches " + QByteArray::number(qulonglong(batches))),
             printed.constData());
    QCOMPARE(loop.opened().trace->size(), batches);
}

void TestProbeSignals::aFollowerLearnsThatAKilledWriterIsGone()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    SignalsLoop loop(dir, 2, QStringLiteral("default"));
    QVERIFY(loop.waitUntilReady());
    const qint64 pid = loop.process.processId();
    RunFollow follow((loop.out + QStringLiteral(".csv")).toStdString());
    follow.poll();
    QVERIFY(follow.running());
    loop.process.kill();
    QVERIFY(loop.waitForEnd());
    QCOMPARE(loop.summary().at("state").get<std::string>(), std::string("running"));

    // The JSON says "running" for good; the follow ends all the same.
    QString why;
    for (int i = 0; i < 600 && why.isEmpty(); ++i) {
        try {
            follow.poll();
        } catch (const std::exception &e) {
            why = QString::fromStdString(e.what());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    QVERIFY2(why.contains(QStringLiteral("the writer (pid %1) is gone").arg(pid))
                 && why.contains(QLatin1String("without its summary"))
                 && why.contains(loop.out + QStringLiteral(".json")),
             qPrintable(why));
    QVERIFY(!follow.running());
    QCOMPARE(follow.trace()->size(), csvRows(loop.out)); // every whole row, kept
}

LOADERLAB_GUILESS_TEST_MAIN(TestProbeSignals)
#include "test_probe_signals.moc"
