// Runs too long to keep every batch in memory: `--keep-batches` bounds the trace
// while the CSV, written as the run goes, and the summary still cover every batch;
// a run killed outright leaves the batches so far in "<csv>.part".

#include "cli_process.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <string>

#include <csignal>

using clitest::Result;
using clitest::runLoaderlab;

namespace {

// As fast as the loader goes: one 1x1x1 sample per batch, no step, until `limit`
// (--seconds S or --batches N).
QStringList fastEndlessRun(const QString &limit, const QString &value)
{
    return QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                       QStringLiteral("synthetic")}
           << QStringLiteral("--shape") << QStringLiteral("1x1x1") << QStringLiteral("--batch-size")
           << QStringLiteral("1") << QStringLiteral("--epochs") << QStringLiteral("0") << limit
           << value << QStringLiteral("--quiet");
}

// Rows of a CSV file, and whether each is a whole row (the header's columns, batch indices
// counting up from 0 without a gap).
struct CsvCheck
{
    std::int64_t rows = 0;
    bool whole = true;
    QString problem;
};

CsvCheck checkCsv(const QString &path, bool lastLineMayBeCut)
{
    CsvCheck c;
    std::ifstream in(path.toStdString());
    std::string line;
    if (!std::getline(in, line) || line.rfind("index,", 0) != 0) {
        c.whole = false;
        c.problem = QStringLiteral("no header");
        return c;
    }
    const auto columns = std::count(line.begin(), line.end(), ',');
    while (std::getline(in, line)) {
        const bool last = in.peek() == std::char_traits<char>::eof();
        if (last && lastLineMayBeCut && (in.eof() || line.empty()))
            break;
        const auto commas = std::count(line.begin(), line.end(), ',');
        const std::int64_t index = std::stoll(line.substr(0, line.find(',')));
        if (commas != columns || index != c.rows) {
            c.whole = false;
            c.problem =
                QStringLiteral("row %1: '%2'").arg(c.rows).arg(QString::fromStdString(line));
            return c;
        }
        ++c.rows;
    }
    return c;
}

} // namespace

class TestCliLongRuns : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void keptBatchesBoundTheTraceNotTheOutputs();
    void keepBatchesIsChecked();
    void killedRunLeavesTheBatchesSoFar();

private:
    QTemporaryDir m_dir;
};

void TestCliLongRuns::keptBatchesBoundTheTraceNotTheOutputs()
{
    const QString csv = m_dir.filePath(QStringLiteral("kept.csv"));
    const QString json = m_dir.filePath(QStringLiteral("kept.json"));
    // 2.5 times what the trace keeps (a few seconds; longer under a sanitizer).
    const Result r = runLoaderlab(
        fastEndlessRun(QStringLiteral("--batches"), QStringLiteral("250000"))
        << QStringLiteral("--keep-batches") << QStringLiteral("100000") << QStringLiteral("--csv")
        << csv << QStringLiteral("--json") << json);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    std::ifstream in(json.toStdString());
    const auto summary = nlohmann::json::parse(in)["summary"];
    const auto batches = summary["batches"].get<std::int64_t>();
    QCOMPARE(batches, std::int64_t{250'000});
    const CsvCheck c = checkCsv(csv, false);
    QVERIFY2(c.whole, qPrintable(c.problem));
    QCOMPARE(c.rows, batches);
    QVERIFY2(r.err.contains(QStringLiteral("wrote %1 batches to").arg(batches)), qPrintable(r.err));
    QCOMPARE(summary["samples"].get<std::int64_t>(), batches);
    QCOMPARE(summary["segments"][0]["batches"].get<std::int64_t>(), batches);
    QVERIFY(summary["samples_per_sec_mean"].get<double>() > 0);
    QVERIFY(summary["wait_ms"]["p95"].get<double>() >= summary["wait_ms"]["p50"].get<double>());
    QVERIFY(!QFile::exists(csv + QStringLiteral(".part")));
}

void TestCliLongRuns::keepBatchesIsChecked()
{
    for (const char *bad : {"5", "99999", "-1", "many"}) {
        const Result r = runLoaderlab(
            fastEndlessRun(QStringLiteral("--seconds"), QStringLiteral("1"))
            << QStringLiteral("--keep-batches") << QLatin1String(bad));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--keep-batches")), qPrintable(r.err));
    }
}

void TestCliLongRuns::killedRunLeavesTheBatchesSoFar()
{
    const QString csv = m_dir.filePath(QStringLiteral("killed.csv"));
    const QString part = csv + QStringLiteral(".part");
    QProcess process;
    clitest::startLoaderlab(process,
                            fastEndlessRun(QStringLiteral("--seconds"), QStringLiteral("120"))
                                << QStringLiteral("--csv") << csv);
    QVERIFY(process.waitForStarted());
    // The CSV grows while the run goes on.
    // About 110 bytes a row: well over 1,000 rows.
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(part).size() > 300'000, 60'000);
    ::kill(static_cast<pid_t>(process.processId()), SIGKILL);
    QVERIFY(process.waitForFinished(10'000));
    QVERIFY(!QFile::exists(csv));
    const CsvCheck c = checkCsv(part, true);
    QVERIFY2(c.whole, qPrintable(c.problem));
    QVERIFY(c.rows > 1'000);
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliLongRuns)
#include "test_cli_long_runs.moc"
