// `loaderlab run` as a script sees it: outputs that fail late still leave the others
// written, signals stop a run with its outputs and a distinct exit code, the time
// limit holds during a long model step, and hostile config files are refused.

#include "cli_process.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

using clitest::Result;
using clitest::runLoaderlab;

namespace {

using clitest::readJson;

QByteArray bytesOf(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A run that goes on until stopped: 1x4x4 samples and a 5 ms step.
QStringList endlessRun()
{
    return {QStringLiteral("run"),   QStringLiteral("--shape"),
            QStringLiteral("1x4x4"), QStringLiteral("--samples"),
            QStringLiteral("64"),    QStringLiteral("--epochs"),
            QStringLiteral("0"),     QStringLiteral("--sleep-batch-ms"),
            QStringLiteral("5"),     QStringLiteral("--quiet")};
}

} // namespace

class TestCliRunOutputs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void lateOutputFailureKeepsTheOthers();
    void signalsWriteOutputsAndExitDistinctly_data();
    void signalsWriteOutputsAndExitDistinctly();
    void timeLimitHoldsDuringALongStep();
    void absurdNumbersAreRefused();
    void aRunWithoutAStepHasNoVerdict_data();
    void aRunWithoutAStepHasNoVerdict();
    void outputThatIsAnInputIsRefused();
    void partFileThatIsAnInputIsRefused_data();
    void partFileThatIsAnInputIsRefused();
    void symlinkedPartFileIsRefused();
    void outputInsideTheDatasetFolderIsRefused();
    void fullDiskKeepsTheMeasuredRows();
    void hostileConfigFilesAreRefused();
    void setOptionReachesAnyField();
    void strayArgumentsAreRefused();
    void pathThatIsNotUtf8Works();
    void devicesReportEveryRank();

private:
    QTemporaryDir m_dir;
};

void TestCliRunOutputs::lateOutputFailureKeepsTheOthers()
{
    // The CSV's folder exists when the run starts and is gone when it ends: the CSV
    // fails, the JSON is still written, and the exit code says something failed.
    const QString gone = m_dir.filePath(QStringLiteral("gone"));
    QVERIFY(QDir().mkpath(gone));
    const QString json = m_dir.filePath(QStringLiteral("late.json"));
    QProcess process;
    clitest::startLoaderlab(process, endlessRun() << QStringLiteral("--seconds")
                                                  << QStringLiteral("2") << QStringLiteral("--csv")
                                                  << gone + QStringLiteral("/t.csv")
                                                  << QStringLiteral("--json") << json);
    QVERIFY(process.waitForStarted());
    // Once the run has started (its CSV is being written), the folder goes.
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(gone + QStringLiteral("/t.csv.part")), 60'000);
    QTest::qWait(300);
    QVERIFY(QDir(gone).removeRecursively());
    const Result r = clitest::finish(process, 60'000);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(gone + QStringLiteral("/t.csv")), qPrintable(r.err));
    const auto summary = readJson(json);
    QCOMPARE(summary["state"].get<std::string>(), std::string("finished"));
    QVERIFY(summary["summary"]["batches"].get<int>() > 10);
}

void TestCliRunOutputs::signalsWriteOutputsAndExitDistinctly_data()
{
    QTest::addColumn<int>("signal");
    QTest::newRow("SIGINT") << SIGINT;
    QTest::newRow("SIGTERM") << SIGTERM;
    QTest::newRow("SIGHUP (ssh closed)") << SIGHUP;
}

void TestCliRunOutputs::signalsWriteOutputsAndExitDistinctly()
{
    QFETCH(int, signal);
    const QString csv = m_dir.filePath(QStringLiteral("sig%1.csv").arg(signal));
    const QString json = m_dir.filePath(QStringLiteral("sig%1.json").arg(signal));
    const QString perfetto = m_dir.filePath(QStringLiteral("sig%1.trace.json").arg(signal));
    QProcess process;
    clitest::startLoaderlab(process, endlessRun() << QStringLiteral("--csv") << csv
                                                  << QStringLiteral("--json") << json
                                                  << QStringLiteral("--trace-json") << perfetto);
    QVERIFY(process.waitForStarted());
    // Stopped once the run goes (its CSV is being written), however slow the start.
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(csv + QStringLiteral(".part")), 60'000);
    QTest::qWait(500);
    ::kill(static_cast<pid_t>(process.processId()), signal);
    const Result r = clitest::finish(process, 30'000);
    QCOMPARE(r.exitCode, 128 + signal);
    const auto summary = readJson(json);
    QCOMPARE(summary["state"].get<std::string>(), std::string("stopped"));
    const int batches = summary["summary"]["batches"].get<int>();
    QVERIFY(batches > 0);
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().count('\n'), batches + 1); // header + one row per batch
    // The Perfetto trace too: a step slice per batch on the consumer's track.
    const auto trace = readJson(perfetto);
    int steps = 0;
    for (const auto &e : trace["traceEvents"])
        steps += e["ph"] == "X" && e["name"] == "step";
    QCOMPARE(steps, batches);
    QVERIFY2(r.err.contains(QStringLiteral("wrote the trace for Perfetto to ")), qPrintable(r.err));
}

void TestCliRunOutputs::timeLimitHoldsDuringALongStep()
{
    QElapsedTimer timer;
    timer.start();
    const QString json = m_dir.filePath(QStringLiteral("limit.json"));
    const Result r = runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--shape"), QStringLiteral("1x4x4"),
         QStringLiteral("--sleep-batch-ms"), QStringLiteral("3000000"), QStringLiteral("--seconds"),
         QStringLiteral("2"), QStringLiteral("--quiet"), QStringLiteral("--json"), json},
        60'000);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(timer.elapsed() < 20'000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(readJson(json)["state"].get<std::string>(), std::string("finished"));
}

void TestCliRunOutputs::absurdNumbersAreRefused()
{
    const auto refused = [](const QStringList &flags, const char *expected) {
        const Result r = runLoaderlab(QStringList{QStringLiteral("run")} + flags, 30'000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String(expected)), qPrintable(r.err));
    };
    refused({QStringLiteral("--sleep-batch-ms"), QStringLiteral("1e300")},
            "--sleep-batch-ms: consumer.sleep_per_batch_ms: 1e+300 is out of range");
    refused({QStringLiteral("--seconds"), QStringLiteral("nan")},
            "--seconds: max_seconds: nan is out of range");
    refused({QStringLiteral("--lr"), QStringLiteral("0")},
            "--lr: consumer.model.learning_rate: 0.0 is out of range");
    refused({QStringLiteral("--epochs"), QStringLiteral("-1")},
            "--epochs: epochs: -1 is out of range");
    refused({QStringLiteral("--devices"), QStringLiteral("0")},
            "--devices: devices: 0 is out of range");
    refused({QStringLiteral("--workers"), QStringLiteral("two")},
            "--workers: loader.num_workers: expected an integer");
}

void TestCliRunOutputs::outputThatIsAnInputIsRefused()
{
    const QString tensor = m_dir.filePath(QStringLiteral("d.bin"));
    const Result made = runLoaderlab({QStringLiteral("make-dataset"), tensor,
                                      QStringLiteral("--kind"), QStringLiteral("tensor"),
                                      QStringLiteral("--shape"), QStringLiteral("1x4x4"),
                                      QStringLiteral("--count"), QStringLiteral("8")});
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));
    const QByteArray before = [&] {
        QFile f(tensor);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }();
    const Result r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--dataset"),
                                   QStringLiteral("tensor"), QStringLiteral("--path"), tensor,
                                   QStringLiteral("--csv"), tensor});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("is an input of the run")), qPrintable(r.err));
    QFile after(tensor);
    QVERIFY(after.open(QIODevice::ReadOnly));
    QCOMPARE(after.readAll(), before);
}

void TestCliRunOutputs::partFileThatIsAnInputIsRefused_data()
{
    QTest::addColumn<QString>("option");
    QTest::newRow("--csv") << QStringLiteral("--csv");
    QTest::newRow("--json") << QStringLiteral("--json");
    QTest::newRow("--trace-json") << QStringLiteral("--trace-json");
}

void TestCliRunOutputs::partFileThatIsAnInputIsRefused()
{
    // The dataset is "train.part": an output "train" is written through it.
    QFETCH(QString, option);
    const QString dataset = m_dir.filePath(QStringLiteral("train.part"));
    if (!QFileInfo::exists(dataset)) {
        const Result made = runLoaderlab({QStringLiteral("make-dataset"), dataset,
                                          QStringLiteral("--kind"), QStringLiteral("tensor"),
                                          QStringLiteral("--count"), QStringLiteral("64"),
                                          QStringLiteral("--shape"), QStringLiteral("3x8x8")});
        QVERIFY2(made.exitCode == 0, qPrintable(made.err));
    }
    const QByteArray before = bytesOf(dataset);
    QVERIFY(!before.isEmpty());
    const QString out = m_dir.filePath(QStringLiteral("train"));
    const Result r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--dataset"),
                                   QStringLiteral("tensor"), QStringLiteral("--path"), dataset,
                                   option, out, QStringLiteral("--quiet")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(option + QLatin1Char(' ') + out), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("which is an input of the run (") + dataset),
             qPrintable(r.err));
    QCOMPARE(bytesOf(dataset), before);
    QVERIFY(!QFileInfo::exists(out));
}

void TestCliRunOutputs::symlinkedPartFileIsRefused()
{
    const QString precious = m_dir.filePath(QStringLiteral("precious.txt"));
    {
        QFile f(precious);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("my notes\n");
    }
    const QString out = m_dir.filePath(QStringLiteral("planted.csv"));
    QCOMPARE(::symlink(QFile::encodeName(precious).constData(),
                       QFile::encodeName(out + QStringLiteral(".part")).constData()),
             0);
    const Result r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--shape"),
                                   QStringLiteral("1x4x4"), QStringLiteral("--samples"),
                                   QStringLiteral("16"), QStringLiteral("--csv"), out,
                                   QStringLiteral("--quiet")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(out + QStringLiteral(".part is a symbolic link")), qPrintable(r.err));
    QCOMPARE(bytesOf(precious), QByteArray("my notes\n"));
    QVERIFY(!QFileInfo::exists(out));
}

void TestCliRunOutputs::outputInsideTheDatasetFolderIsRefused()
{
    // Rule: nothing is written anywhere inside a folder dataset's folder, the photos
    // themselves included.
    const QString folder = m_dir.filePath(QStringLiteral("photos"));
    const Result made = clitest::makeImageFolder(folder, 2);
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));
    QDirIterator it(folder, {QStringLiteral("*.JPEG")}, QDir::Files, QDirIterator::Subdirectories);
    QVERIFY(it.hasNext());
    const QString photo = it.next();
    const QByteArray before = bytesOf(photo);
    const QStringList outputs{photo, folder + QStringLiteral("/run.json")};
    for (const QString &out : outputs) {
        const Result r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--dataset"),
                                       QStringLiteral("folder"), QStringLiteral("--path"), folder,
                                       QStringLiteral("--csv"), out, QStringLiteral("--quiet")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--csv ") + out
                                + QStringLiteral(": is inside the input folder ") + folder),
                 qPrintable(r.err));
    }
    QCOMPARE(bytesOf(photo), before);
    QVERIFY(!QFileInfo::exists(folder + QStringLiteral("/run.json")));
}

void TestCliRunOutputs::fullDiskKeepsTheMeasuredRows()
{
    // A 64 KiB file system fills up a few hundred rows into the CSV: the error is
    // reported once with its reason, the rows written so far stay in the .part file
    // (whole rows only), and the run exits 1 naming it.
    const QString mountPoint = m_dir.filePath(QStringLiteral("small-fs"));
    QVERIFY(QDir().mkpath(mountPoint));
    const QByteArray mp = QFile::encodeName(mountPoint);
    if (::mount("tmpfs", mp.constData(), "tmpfs", 0, "size=64k") != 0)
        QSKIP(qPrintable(QStringLiteral("cannot mount a small tmpfs (needs root): %1")
                             .arg(QString::fromLocal8Bit(std::strerror(errno)))));
    struct Unmount
    {
        QByteArray path;
        ~Unmount() { ::umount2(path.constData(), MNT_DETACH); }
    } unmount{mp};
    const QString csv = mountPoint + QStringLiteral("/run.csv");
    const QString json = m_dir.filePath(QStringLiteral("full-disk.json"));
    const Result r = runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--shape"), QStringLiteral("1x4x4"),
         QStringLiteral("--samples"), QStringLiteral("64"), QStringLiteral("--batch-size"),
         QStringLiteral("1"), QStringLiteral("--epochs"), QStringLiteral("60"),
         QStringLiteral("--csv"), csv, QStringLiteral("--json"), json, QStringLiteral("--quiet")});
    QCOMPARE(r.exitCode, 1);
    const QString part = csv + QStringLiteral(".part");
    QVERIFY2(r.err.contains(QStringLiteral("No space left on device")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("kept in ") + part), qPrintable(r.err));
    QCOMPARE(r.err.count(QStringLiteral("no more batches are written")), 1);
    QVERIFY(!QFileInfo::exists(csv));
    QVERIFY(QFileInfo::exists(part));
    // Whole rows, in order, as many as the message says.
    const QList<QByteArray> lines = bytesOf(part).split('\n');
    QVERIFY(lines.size() > 100);
    QVERIFY(lines.last().isEmpty()); // ends with a whole row's newline
    QVERIFY(lines[0].endsWith(",exchange_end_ns"));
    const qsizetype rows = lines.size() - 2;
    QVERIFY2(r.err.contains(QStringLiteral("the %1 batches written before it are kept").arg(rows)),
             qPrintable(r.err));
    for (qsizetype i = 1; i <= rows; ++i)
        QCOMPARE(lines[i].split(',').first().toLongLong(), i - 1);
    // The summary, elsewhere, is written all the same.
    QCOMPARE(readJson(json)["summary"]["batches"].get<int>(), 64 * 60);
}

void TestCliRunOutputs::hostileConfigFilesAreRefused()
{
    // 50,000 levels of nesting in a known key: refused, short message, no crash.
    const QString nested = m_dir.filePath(QStringLiteral("nested.json"));
    {
        std::ofstream out(nested.toStdString());
        out << R"({"dataset":{"path":)" << std::string(50'000, '[') << std::string(50'000, ']')
            << "}}";
    }
    Result r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--config"), nested}, 30'000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("nested deeper than 32 levels")), qPrintable(r.err));
    QVERIFY2(r.err.size() < 400, qPrintable(r.err));

    // A FIFO would block the reader until a writer comes; a directory is no file.
    const QString fifo = m_dir.filePath(QStringLiteral("config.json"));
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--config"), fifo}, 30'000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("is a FIFO")), qPrintable(r.err));
    r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--config"), m_dir.path()}, 30'000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("is a directory")), qPrintable(r.err));
}

void TestCliRunOutputs::setOptionReachesAnyField()
{
    const QString json = m_dir.filePath(QStringLiteral("set.json"));
    const Result r = runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--shape"), QStringLiteral("1x4x4"),
         QStringLiteral("--samples"), QStringLiteral("30"), QStringLiteral("--set"),
         QStringLiteral("loader.batch_size=3"), QStringLiteral("--set"),
         QStringLiteral("dataset.max_file_bytes=1000"), QStringLiteral("--json"), json});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto summary = readJson(json);
    QCOMPARE(summary["config"]["loader"]["batch_size"].get<int>(), 3);
    QCOMPARE(summary["config"]["dataset"]["max_file_bytes"].get<int>(), 1000);
    QCOMPARE(summary["summary"]["batches"].get<int>(), 10);
    const Result bad = runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--set"), QStringLiteral("loader.nope=1")});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains(QStringLiteral("--set: loader.nope: unknown key")),
             qPrintable(bad.err));
}

void TestCliRunOutputs::strayArgumentsAreRefused()
{
    const Result r = runLoaderlab({QStringLiteral("run"), QStringLiteral("workers=4")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("unexpected argument: workers=4")), qPrintable(r.err));
    // Without a command, the window refuses them too rather than opening.
    const Result window = runLoaderlab({QStringLiteral("rnu")}, 20'000);
    QCOMPARE(window.exitCode, 2);
    QVERIFY2(window.err.contains(QStringLiteral("'rnu' is not a command")), qPrintable(window.err));
}

void TestCliRunOutputs::pathThatIsNotUtf8Works()
{
    // A tensor file whose name holds the bytes 0xE9 and 0xFF (Latin-1 and worse),
    // passed as raw bytes the way a shell passes them.
    const QByteArray dir = QFile::encodeName(m_dir.path());
    const QByteArray raw = dir + "/caf\xe9\xff.bin";
    const QString tensor = m_dir.filePath(QStringLiteral("utf8-source.bin"));
    const Result made = runLoaderlab({QStringLiteral("make-dataset"), tensor,
                                      QStringLiteral("--kind"), QStringLiteral("tensor"),
                                      QStringLiteral("--shape"), QStringLiteral("1x4x4"),
                                      QStringLiteral("--count"), QStringLiteral("6")});
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));
    QCOMPARE(::rename(QFile::encodeName(tensor).constData(), raw.constData()), 0);
    const QString json = m_dir.filePath(QStringLiteral("raw.json"));
    QProcess shell;
    shell.start(
        QStringLiteral("/bin/sh"),
        {QStringLiteral("-c"),
         QStringLiteral(
             "exec \"$0\" run --dataset tensor --path \"$(printf '%s/caf\\351\\377.bin' \"$1\")\" "
             "--batch-size 2 --json \"$2\""),
         QStringLiteral(LOADERLAB_BINARY), m_dir.path(), json});
    QVERIFY(shell.waitForFinished(60'000));
    const QString err = QString::fromUtf8(shell.readAllStandardError());
    QVERIFY2(shell.exitCode() == 0, qPrintable(err));
    const auto summary = readJson(json);
    QCOMPARE(summary["summary"]["samples"].get<int>(), 6);
    // The path is written with the bytes escaped, never lost.
    QVERIFY2(
        summary["config"]["dataset"]["path"].get<std::string>().ends_with("/caf\\xE9\\xFF.bin"),
        summary["config"]["dataset"]["path"].get<std::string>().c_str());
    ::unlink(raw.constData());
}

void TestCliRunOutputs::devicesReportEveryRank()
{
    // 3 ranks over 100 samples: 34 each (DistributedSampler's padding), every output
    // with the ranks: the table's per-rank rows, the CSV's rank column, the JSON's ranks.
    const QString csv = m_dir.filePath(QStringLiteral("ranks.csv"));
    const QString json = m_dir.filePath(QStringLiteral("ranks.json"));
    const Result r = runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--shape"), QStringLiteral("1x4x4"),
         QStringLiteral("--samples"), QStringLiteral("100"), QStringLiteral("--batch-size"),
         QStringLiteral("10"), QStringLiteral("--devices"), QStringLiteral("3"),
         QStringLiteral("--csv"), csv, QStringLiteral("--json"), json, QStringLiteral("--quiet")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains(QStringLiteral("ranks (data-parallel devices")), qPrintable(r.out));
    for (int rank = 0; rank < 3; ++rank)
        QVERIFY2(r.out.contains(QRegularExpression(QStringLiteral("\\n +%1 +4 +34 ").arg(rank))),
                 qPrintable(r.out));
    const nlohmann::json summary = readJson(json)["summary"];
    QCOMPARE(summary["samples"].get<int>(), 102);
    QCOMPARE(summary["ranks"].size(), std::size_t{3});
    for (int rank = 0; rank < 3; ++rank) {
        QCOMPARE(summary["ranks"][rank]["rank"].get<int>(), rank);
        QCOMPARE(summary["ranks"][rank]["samples"].get<int>(), 34);
    }
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    const qsizetype rankColumn = lines[0].split(',').indexOf("rank");
    QVERIFY(rankColumn > 0);
    std::map<QByteArray, int> batchesOf;
    for (qsizetype i = 1; i < lines.size(); ++i)
        ++batchesOf[lines[i].split(',').at(rankColumn)];
    QCOMPARE(batchesOf.size(), std::size_t{3});
    for (const auto &[rank, batches] : batchesOf)
        QCOMPARE(batches, 4);
}

void TestCliRunOutputs::aRunWithoutAStepHasNoVerdict_data()
{
    QTest::addColumn<QStringList>("step");
    QTest::addColumn<QString>("band");
    QTest::newRow("no consumer") << QStringList() << QStringLiteral("no model step");
    // A 0 ms simulated step still takes microseconds: only the config can tell.
    QTest::newRow("a 0 ms step") << QStringList{
        QStringLiteral("--consumer"), QStringLiteral("sleep"), QStringLiteral("--sleep-batch-ms"),
        QStringLiteral("0")} << QStringLiteral("no model step");
    QTest::newRow("a 5 ms step") << QStringList{QStringLiteral("--sleep-batch-ms"),
                                                QStringLiteral("5")}
                                 << QString();
}

void TestCliRunOutputs::aRunWithoutAStepHasNoVerdict()
{
    QFETCH(QStringList, step);
    QFETCH(QString, band);
    const QString json = m_dir.filePath(
        QStringLiteral("step-%1.json").arg(QLatin1String(QTest::currentDataTag())));
    const Result r = runLoaderlab(QStringList{QStringLiteral("run"), QStringLiteral("--shape"),
                                              QStringLiteral("1x4x4"), QStringLiteral("--samples"),
                                              QStringLiteral("64"), QStringLiteral("--batch-size"),
                                              QStringLiteral("8"), QStringLiteral("--quiet"),
                                              QStringLiteral("--json"), json}
                                  + step);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const std::string written = readJson(json).at("summary").at("input_bound_band");
    if (band.isEmpty()) { // one of the share's bands, with its advice
        QVERIFY2(written.ends_with("input-bound"), written.c_str());
        QVERIFY2(!r.out.contains(QStringLiteral("no model step")), qPrintable(r.out));
    } else {
        QCOMPARE(QString::fromStdString(written), band);
        QVERIFY2(r.out.contains(QStringLiteral("no model step: the consumer waits for every "
                                               "batch by construction")),
                 qPrintable(r.out));
        QVERIFY2(!r.out.contains(QStringLiteral("add workers")), qPrintable(r.out));
    }
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliRunOutputs)
#include "test_cli_run_outputs.moc"
