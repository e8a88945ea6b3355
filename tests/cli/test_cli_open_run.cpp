// What the window's File -> Open run reads (core/io/run_reader.h) is what the real
// `loaderlab run --csv --json` writes: both engines' files open as one run with the
// figures the JSON reports.

#include "cli_process.h"

#include "core/engine/pytorch/pytorch_run.h"
#include "core/io/run_reader.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>

using clitest::Result;
using clitest::runLoaderlab;
using namespace loaderlab;

class TestCliOpenRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void cliFilesOpenWithTheirFigures_data();
    void cliFilesOpenWithTheirFigures();

private:
    QTemporaryDir m_dir;
};

void TestCliOpenRun::cliFilesOpenWithTheirFigures_data()
{
    QTest::addColumn<QString>("engine");
    QTest::newRow("loaderlab") << QStringLiteral("loaderlab");
    QTest::newRow("pytorch") << QStringLiteral("pytorch");
}

void TestCliOpenRun::cliFilesOpenWithTheirFigures()
{
    QFETCH(QString, engine);
    if (engine == QLatin1String("pytorch")) {
        if (const std::string problem = pytorchEngineProblem(); !problem.empty())
            QSKIP(problem.c_str());
    }
    const QString csv = m_dir.filePath(engine + QStringLiteral(".csv"));
    const QString json = m_dir.filePath(engine + QStringLiteral(".json"));
    const Result r = runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--engine"), engine, QStringLiteral("--shape"),
         QStringLiteral("3x16x16"), QStringLiteral("--samples"), QStringLiteral("480"),
         QStringLiteral("--batch-size"), QStringLiteral("16"), QStringLiteral("--workers"),
         QStringLiteral("2"), QStringLiteral("--sleep-batch-ms"), QStringLiteral("1"),
         QStringLiteral("--csv"), csv, QStringLiteral("--json"), json, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));

    std::ifstream in(json.toStdString());
    const auto written = nlohmann::json::parse(in)["summary"];
    const OpenedRun opened = openRun(csv.toStdString(), json.toStdString());
    const RunSummary &s = opened.report.summary;
    QCOMPARE(s.batches, written["batches"].get<std::int64_t>());
    QCOMPARE(s.batches, std::int64_t{30});
    QCOMPARE(s.samples, written["samples"].get<std::int64_t>());
    QCOMPARE(s.samplesPerSecMean, written["samples_per_sec_mean"].get<double>());
    QCOMPARE(s.waitMeanMs, written["wait_ms"]["mean"].get<double>());
    QCOMPARE(s.waitP95Ms, written["wait_ms"]["p95"].get<double>());
    QCOMPARE(s.inputBoundShare, written["input_bound_share"].get<double>());
    QCOMPARE(s.firstBatchLatencyMs, written["first_batch_latency_ms"].get<double>());
    QCOMPARE(opened.maxWorkers, 2);
    QCOMPARE(opened.trace->size(), std::size_t{30});
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliOpenRun)
#include "test_cli_open_run.moc"
