// Runs over data that goes bad, as a user meets it: a folder whose every image is
// corrupt, a tensor file truncated while the run reads it. The run must end with
// exit code 1 and say why once a whole epoch delivered nothing, and its warnings
// must stay a few lines, not megabytes (docs/limits.md, "Warnings"). Its summary
// gives no input-bound verdict over no sample, nor over a run without a model step
// (docs/metrics.md).

#include "cli_process.h"
#include "tests/support/test_main.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <thread>

using namespace clitest;

class TestCliBadData : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void aFolderOfCorruptImagesStopsAfterOneEpochSayingWhy();
    void aTensorFileTruncatedMidRunStopsWithoutAFlood();
    void aFewBadImagesAreSkippedAndTheRunFinishes();

private:
    QTemporaryDir m_dir;
};

namespace {

// Lines of stderr that report one skipped sample.
int skipLines(const QString &err)
{
    int lines = 0;
    for (const QString &line : err.split(QLatin1Char('\n')))
        lines += line.contains(QLatin1String("] skipped ")) ? 1 : 0;
    return lines;
}

// The "skipped samples" row of the summary table, -1 when there is none.
long long skippedRow(const QString &out)
{
    const QRegularExpressionMatch m =
        QRegularExpression(QStringLiteral("\\n  skipped samples +(\\d+)\\n")).match(out);
    return m.hasMatch() ? m.captured(1).toLongLong() : -1;
}

nlohmann::json summaryOf(const QString &jsonPath)
{
    std::ifstream in(jsonPath.toStdString());
    return nlohmann::json::parse(in, nullptr, false).value("summary", nlohmann::json::object());
}

void writeJunk(const QString &path, int i)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray("not an image, number ") + QByteArray::number(i));
}

} // namespace

void TestCliBadData::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

void TestCliBadData::aFolderOfCorruptImagesStopsAfterOneEpochSayingWhy()
{
    const QString root = m_dir.filePath(QStringLiteral("allbad"));
    for (const char *cls : {"cats", "dogs"}) {
        QVERIFY(QDir().mkpath(root + QLatin1Char('/') + QLatin1String(cls)));
        for (int i = 0; i < 60; ++i)
            writeJunk(QStringLiteral("%1/%2/img %3.jpg").arg(root, QLatin1String(cls)).arg(i), i);
    }
    // --epochs 0 runs until stopped: only the empty epoch may end it.
    const QString json = m_dir.filePath(QStringLiteral("allbad.json"));
    const Result r = runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("folder"),
         QStringLiteral("--path"), root, QStringLiteral("--epochs"), QStringLiteral("0"),
         QStringLiteral("--workers"), QStringLiteral("2"), QStringLiteral("--batch-size"),
         QStringLiteral("8"), QStringLiteral("--json"), json},
        60'000);
    QCOMPARE(r.exitCode, 1);
    // No verdict over no sample: the summary says so, with the skipped count it shows.
    const long long skipped = skippedRow(r.out);
    QVERIFY2(skipped >= 120, qPrintable(r.out));
    const QString why = QStringLiteral("no sample was delivered (%1 skipped), so there is no "
                                       "input-bound verdict")
                            .arg(skipped);
    QVERIFY2(r.out.contains(QStringLiteral("\n  ") + why + QStringLiteral("\n")),
             qPrintable(r.out));
    QVERIFY2(!r.out.contains(QStringLiteral("input-bound:")), qPrintable(r.out));
    const nlohmann::json summary = summaryOf(json);
    QCOMPARE(summary.value("samples", -1), 0);
    QCOMPARE(summary.value("input_bound_band", std::string()), std::string("no samples"));
    QCOMPARE(summary.value("advice", std::string()), why.toStdString());
    QVERIFY2(r.err.contains(QLatin1String("epoch 1 delivered no sample: all 120 samples it "
                                          "loaded were skipped")),
             qPrintable(r.err.right(2000)));
    QVERIFY2(r.err.contains(QLatin1String("not a JPEG or PNG image")),
             qPrintable(r.err.left(2000)));
    // 120 distinct files: the first 20 are shown, the rest counted.
    QVERIFY2(skipLines(r.err) <= 20, qPrintable(QString::number(skipLines(r.err))));
    QVERIFY2(r.err.contains(QLatin1String("held back 100 warnings")),
             qPrintable(r.err.right(2000)));
    QVERIFY2(r.errBytes.size() < 16'000, qPrintable(QString::number(r.errBytes.size())));
}

void TestCliBadData::aTensorFileTruncatedMidRunStopsWithoutAFlood()
{
    const QString file = m_dir.filePath(QStringLiteral("samples.tensor"));
    QCOMPARE(
        runLoaderlab({QStringLiteral("make-dataset"), file, QStringLiteral("--kind"),
                      QStringLiteral("tensor"), QStringLiteral("--count"), QStringLiteral("512"),
                      QStringLiteral("--shape"), QStringLiteral("3x8x8")})
            .exitCode,
        0);
    QProcess process;
    startLoaderlab(process,
                   {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("tensor"),
                    QStringLiteral("--path"), file, QStringLiteral("--epochs"), QStringLiteral("0"),
                    QStringLiteral("--seconds"), QStringLiteral("60"),
                    QStringLiteral("--batch-size"), QStringLiteral("16")});
    QVERIFY(process.waitForStarted());
    // Wait until the run reports progress on stderr (left unread for finish()), so the
    // file was opened whole; then cut it to its header while the run reads it.
    process.setReadChannel(QProcess::StandardError);
    QElapsedTimer waited;
    waited.start();
    while (process.bytesAvailable() == 0 && waited.elapsed() < 30'000)
        process.waitForReadyRead(100);
    QVERIFY(process.bytesAvailable() > 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    QVERIFY(QFile::resize(file, 64));
    const Result r = finish(process, 60'000);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QLatin1String("delivered no sample: all 512 samples it loaded were "
                                          "skipped")),
             qPrintable(r.err.right(2000)));
    QVERIFY2(r.errBytes.size() < 16'000, qPrintable(QString::number(r.errBytes.size())));
}

void TestCliBadData::aFewBadImagesAreSkippedAndTheRunFinishes()
{
    const QString root = m_dir.filePath(QStringLiteral("somebad"));
    QCOMPARE(makeImageFolder(root, 6).exitCode, 0);
    const QStringList classes = QDir(root).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QVERIFY(!classes.isEmpty());
    writeJunk(root + QLatin1Char('/') + classes.first() + QStringLiteral("/broken.jpg"), 0);
    const QString json = m_dir.filePath(QStringLiteral("somebad.json"));
    const Result r = runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("folder"),
         QStringLiteral("--path"), root, QStringLiteral("--epochs"), QStringLiteral("5"),
         QStringLiteral("--batch-size"), QStringLiteral("4"), QStringLiteral("--json"), json});
    QCOMPARE(r.exitCode, 0);
    // Skipped in each of the 5 epochs, shown once.
    QCOMPARE(skipLines(r.err), 1);
    QVERIFY2(r.err.contains(QLatin1String("held back 4 warnings (4 repeating one already shown")),
             qPrintable(r.err));
    QCOMPARE(skippedRow(r.out), 5LL);
    // No model step (no --consumer, no step times): the run waits for every batch by
    // construction, so the summary advises no workers.
    const QString why = QStringLiteral(
        "no model step: the consumer waits for every batch by construction, so samples/s is "
        "the loader's own rate; set a step (a simulated step or a model) to see whether "
        "loading keeps up");
    QVERIFY2(r.out.contains(QStringLiteral("\n  ") + why + QStringLiteral("\n")),
             qPrintable(r.out));
    QVERIFY2(!r.out.contains(QStringLiteral("add workers")), qPrintable(r.out));
    const nlohmann::json summary = summaryOf(json);
    QCOMPARE(summary.value("input_bound_band", std::string()), std::string("no model step"));
    QCOMPARE(summary.value("advice", std::string()), why.toStdString());
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliBadData)
#include "test_cli_bad_data.moc"
