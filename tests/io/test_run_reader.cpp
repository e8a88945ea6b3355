// Reading a run back from its per-batch CSV and summary JSON (core/io/run_reader.h):
// a real run written the way `loaderlab run --csv --json` writes it opens with the
// same figures, and broken or mismatched files are refused naming the file.

#include "core/engine/run_service.h"
#include "core/io/run_reader.h"
#include "core/io/trace_csv.h"

#include "tests/support/recorded_run.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace loaderlab;

namespace {

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void writeAll(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary) << text;
}

RunConfig readerRun(int workers, Strategy strategy)
{
    RunConfig c;
    c.dataset.syntheticShape = {3, 16, 16};
    c.dataset.syntheticSamples = 8 * 60;
    c.loader.numWorkers = workers;
    c.loader.batchSize = 8;
    c.loader.strategy = strategy;
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 1.0;
    c.warmupBatches = 3;
    return c;
}

} // namespace

class TestRunReader : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void openedRunHasTheRunsFigures_data();
    void openedRunHasTheRunsFigures();
    void partnerFileIsFoundBeside();
    void errorsNameTheFileAndReason();
    void dataParallelRunKeepsItsRanks();
    void fieldsOutOfRangeAreRefused_data();
    void fieldsOutOfRangeAreRefused();
    void jsonNumbersThatAreNotWholeAreRefused_data();
    void jsonNumbersThatAreNotWholeAreRefused();
    void sizeIsBounded();

private:
    QTemporaryDir m_dir;
    std::string path(const char *name) const
    {
        return m_dir.filePath(QString::fromLatin1(name)).toStdString();
    }
};

void TestRunReader::openedRunHasTheRunsFigures_data()
{
    QTest::addColumn<int>("workers");
    QTest::addColumn<int>("strategy");
    QTest::newRow("2 workers, per-worker") << 2 << static_cast<int>(Strategy::PerWorkerBatch);
    QTest::newRow("3 workers, sample-parallel") << 3 << static_cast<int>(Strategy::SampleParallel);
    QTest::newRow("in the consumer thread") << 0 << static_cast<int>(Strategy::PerWorkerBatch);
}

void TestRunReader::openedRunHasTheRunsFigures()
{
    QFETCH(int, workers);
    QFETCH(int, strategy);
    const RunConfig config = readerRun(workers, static_cast<Strategy>(strategy));
    const std::string csv = path("run.csv");
    const std::string json = path("run.json");
    const RunReport written = writeRun(config, csv, json);
    QCOMPARE(written.state, std::string("finished"));
    const RunSummary &expected = written.summary;
    QCOMPARE(expected.batches, std::int64_t{60});

    const OpenedRun opened = openRun(csv, json);
    const RunSummary &got = opened.report.summary;
    QCOMPARE(opened.trace->size(), std::size_t{60});
    QCOMPARE(got.batches, expected.batches);
    QCOMPARE(got.samples, expected.samples);
    QCOMPARE(got.warmupBatches, expected.warmupBatches);
    // The CSV holds integer nanoseconds, the same ones the run summarised.
    QCOMPARE(got.samplesPerSecMean, expected.samplesPerSecMean);
    QCOMPARE(got.samplesPerSecMedian, expected.samplesPerSecMedian);
    QCOMPARE(got.waitMeanMs, expected.waitMeanMs);
    QCOMPARE(got.waitP95Ms, expected.waitP95Ms);
    QCOMPARE(got.firstBatchLatencyMs, expected.firstBatchLatencyMs);
    QCOMPARE(got.inputBoundShare, expected.inputBoundShare);
    QCOMPARE(got.band, expected.band);
    QCOMPARE(got.peakMemoryBytes, expected.peakMemoryBytes);
    QCOMPARE(opened.maxWorkers, workers);
    QCOMPARE(opened.report.config.loader.batchSize, 8);
    QCOMPARE(opened.report.config.loader.strategy, config.loader.strategy);
    QCOMPARE(opened.report.dataset, written.dataset);
    QCOMPARE(opened.report.configVersions.size(), written.configVersions.size());
    // Worker spans rebuilt from the CSV: one per batch, or one per worker of a
    // sample-parallel batch, each over the batch's load.
    const std::size_t spansPerBatch = config.loader.strategy == Strategy::SampleParallel
                                          ? std::size_t(workers)
                                          : 1;
    QCOMPARE(opened.trace->spanCount(), 60 * spansPerBatch);
    const auto records = opened.trace->records();
    const auto spans = opened.trace->spans(0);
    QCOMPARE(spans.back().endNs, records.back().loadEndNs);
}

void TestRunReader::partnerFileIsFoundBeside()
{
    const std::string csv = path("beside.csv");
    const std::string json = path("beside.json");
    writeRun(readerRun(1, Strategy::PerWorkerBatch), csv, json);
    QCOMPARE(summaryJsonBeside(csv), json);
    QCOMPARE(traceCsvBeside(json), csv);
    QCOMPARE(summaryJsonBeside(path("nothing-beside.csv")), std::string());
}

void TestRunReader::errorsNameTheFileAndReason()
{
    const std::string csv = path("good.csv");
    const std::string json = path("good.json");
    writeRun(readerRun(2, Strategy::PerWorkerBatch), csv, json);
    const auto messageOf = [](const std::string &c, const std::string &j) -> std::string {
        try {
            openRun(c, j);
        } catch (const std::runtime_error &e) {
            return e.what();
        }
        return "(opened)";
    };
    const auto check = [](const std::string &message, const std::string &file,
                          const std::string &reason) {
        QVERIFY2(message.rfind(file, 0) == 0, message.c_str());
        QVERIFY2(message.find(reason) != std::string::npos, message.c_str());
    };

    check(messageOf(path("missing.csv"), json), path("missing.csv"), "cannot");
    check(messageOf(csv, path("missing.json")), path("missing.json"), "cannot read");

    // A row cut short: the CSV's reader names the line.
    std::string text = readAll(csv);
    const std::string bad = path("cut.csv");
    const std::size_t third = text.find('\n', text.find('\n', text.find('\n') + 1) + 1);
    writeAll(bad, text.substr(0, third + 1) + "7,0,1\n" + text.substr(third + 1));
    check(messageOf(bad, json), bad, "line 4");

    // Not a summary at all, and truncated JSON.
    const std::string notSummary = path("config.json");
    writeAll(notSummary, "{\"format\": \"something-else\"}");
    check(messageOf(csv, notSummary), notSummary, "not a LoaderLab run summary");
    // A "format" that is no string is the same refusal, not a JSON type error.
    writeAll(notSummary, "{\"format\": 7}");
    check(messageOf(csv, notSummary), notSummary, "not a LoaderLab run summary");
    const std::string cut = path("cut.json");
    const std::string jsonText = readAll(json);
    writeAll(cut, jsonText.substr(0, jsonText.size() / 2));
    check(messageOf(csv, cut), cut, "");

    // A CSV whose rows name a config version the JSON does not have.
    std::istringstream in(readAll(csv));
    std::vector<TraceRecord> records = readTraceCsv(in, csv);
    records[5].configVersion = 3;
    const std::string otherRun = path("other.csv");
    saveTraceCsv(otherRun, records);
    check(messageOf(otherRun, json), otherRun, "config version 3");
}

void TestRunReader::dataParallelRunKeepsItsRanks()
{
    // 2 ranks, 2 workers each: the opened run's worker spans sit in their rank's lanes,
    // so utilisation and the per-rank figures are the run's own.
    RunConfig config = readerRun(2, Strategy::PerWorkerBatch);
    config.devices = 2;
    const std::string csv = path("ranks.csv");
    const std::string json = path("ranks.json");
    const RunReport written = writeRun(config, csv, json);
    const OpenedRun opened = openRun(csv, json);
    const RunSummary &got = opened.report.summary;
    QCOMPARE(got.ranks.size(), std::size_t{2});
    for (std::size_t r = 0; r < 2; ++r) {
        QCOMPARE(got.ranks[r].samples, written.summary.ranks[r].samples);
        QCOMPARE(got.ranks[r].samplesPerSecMean, written.summary.ranks[r].samplesPerSecMean);
    }
    QCOMPARE(got.workerUtilisation.size(), std::size_t{4});
    for (std::size_t lane = 0; lane < 4; ++lane)
        QVERIFY2(got.workerUtilisation[lane] > 0.0, qPrintable(QString::number(lane)));
    for (const WorkerSpan &span : opened.trace->spans())
        QCOMPARE(span.rank, (*opened.trace)[static_cast<std::size_t>(span.batch)].rank);
}

void TestRunReader::fieldsOutOfRangeAreRefused_data()
{
    // One field of the good file's fourth row (line 4) set to a value no run of its
    // JSON (1 device, 2 workers, batches of 8) can have.
    QTest::addColumn<QString>("column");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("reason");
    QTest::newRow("rank INT32_MAX") << "rank"
                                    << "2147483647"
                                    << "rank 2147483647 is not in 0..63";
    QTest::newRow("rank 10^9") << "rank"
                               << "1000000000"
                               << "rank 1000000000 is not in 0..63";
    QTest::newRow("rank past the devices") << "rank"
                                           << "1"
                                           << "rank 1 but the run had 1 device";
    QTest::newRow("rank negative") << "rank"
                                   << "-1"
                                   << "rank -1 is not in 0..63";
    QTest::newRow("negative time") << "load_start_ns"
                                   << "-5"
                                   << "time -5 ns is not in 0..";
    QTest::newRow("INT64 time") << "compute_end_ns"
                                << "9223372036854775807"
                                << "time 9223372036854775807 ns is not in 0..";
    QTest::newRow("worker past the workers") << "worker"
                                             << "2"
                                             << "worker 2 but the run had at most 2 worker";
    QTest::newRow("worker below -2") << "worker"
                                     << "-3"
                                     << "worker -3 is not a worker";
    QTest::newRow("samples past the batch") << "samples"
                                            << "9"
                                            << "in a batch of at most 8";
    QTest::newRow("negative samples") << "samples"
                                      << "-1"
                                      << "must not be negative";
    QTest::newRow("index repeated") << "index"
                                    << "1"
                                    << "index 1 does not follow 1";
    QTest::newRow("index negative") << "index"
                                    << "-1"
                                    << "index -1 is negative";
}

void TestRunReader::fieldsOutOfRangeAreRefused()
{
    QFETCH(QString, column);
    QFETCH(QString, value);
    QFETCH(QString, reason);
    const std::string csv = path("range.csv");
    const std::string json = path("range.json");
    if (!QFileInfo::exists(QString::fromStdString(json)))
        writeRun(readerRun(2, Strategy::PerWorkerBatch), csv, json);
    QStringList lines = QString::fromStdString(readAll(csv)).split(QLatin1Char('\n'));
    const qsizetype at = lines[0].split(QLatin1Char(',')).indexOf(column);
    QVERIFY(at >= 0);
    QStringList fields = lines[3].split(QLatin1Char(','));
    fields[at] = value;
    lines[3] = fields.join(QLatin1Char(','));
    const std::string bad = path("range-bad.csv");
    writeAll(bad, lines.join(QLatin1Char('\n')).toStdString());
    try {
        openRun(bad, json);
        QFAIL("opened");
    } catch (const std::runtime_error &e) {
        const QString message = QString::fromUtf8(e.what());
        QVERIFY2(message.startsWith(QString::fromStdString(bad) + QStringLiteral(": line 4: ")),
                 e.what());
        QVERIFY2(message.contains(reason), e.what());
    }
}

void TestRunReader::jsonNumbersThatAreNotWholeAreRefused_data()
{
    // A float where the summary holds a whole number: 1e77 does not fit an int64_t,
    // and converting it would be undefined behaviour (found by fuzz_run_reader).
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("reason");
    QTest::newRow("peak memory 1e77")
        << "/summary/peak_memory_bytes" << 1e77 << "peak_memory_bytes: expected a whole number";
    QTest::newRow("skipped samples 2.5")
        << "/summary/skipped_samples" << 2.5 << "skipped_samples: expected a whole number";
    QTest::newRow("first batch -1e300") << "/config_versions/0/first_batch" << -1e300
                                        << "config_versions: first_batch: expected a whole";
    QTest::newRow("version 0.5") << "/config_versions/0/version" << 0.5
                                 << "config_versions: version: expected a whole number";
}

void TestRunReader::jsonNumbersThatAreNotWholeAreRefused()
{
    QFETCH(QString, pointer);
    QFETCH(double, value);
    QFETCH(QString, reason);
    const std::string csv = path("whole.csv");
    const std::string json = path("whole.json");
    if (!QFileInfo::exists(QString::fromStdString(json)))
        writeRun(readerRun(2, Strategy::PerWorkerBatch), csv, json);
    nlohmann::json j = nlohmann::json::parse(readAll(json));
    j[nlohmann::json::json_pointer(pointer.toStdString())] = value;
    const std::string bad = path("whole-bad.json");
    writeAll(bad, j.dump());
    try {
        openRun(csv, bad);
        QFAIL("opened");
    } catch (const std::runtime_error &e) {
        QVERIFY2(QString::fromUtf8(e.what()).startsWith(QString::fromStdString(bad + ": ")),
                 e.what());
        QVERIFY2(QString::fromUtf8(e.what()).contains(reason), e.what());
    }
}

void TestRunReader::sizeIsBounded()
{
    const std::string csv = path("size.csv");
    const std::string json = path("size.json");
    writeRun(readerRun(1, Strategy::PerWorkerBatch), csv, json);
    const std::string text = readAll(csv);
    const std::string header = text.substr(0, text.find('\n') + 1);
    const auto messageOf = [&](const std::string &c, const std::string &j) -> std::string {
        try {
            openRun(c, j);
        } catch (const std::runtime_error &e) {
            return e.what();
        }
        return "(opened)";
    };
    // One row more than kMaxTraceCsvRows (blank lines count: a file of nothing but
    // newlines is not read to its end either).
    const std::string many = path("many.csv");
    writeAll(many, header + std::string(static_cast<std::size_t>(kMaxTraceCsvRows) + 1, '\n'));
    std::string message = messageOf(many, json);
    QVERIFY2(message.rfind(many + ": more than 1000000 rows", 0) == 0, message.c_str());
    // A line of 2,000 bytes is no row: refused without reading it whole.
    const std::string longLine = path("long.csv");
    writeAll(longLine, header + std::string(2'000, '1') + "\n");
    message = messageOf(longLine, json);
    QVERIFY2(message.rfind(longLine + ": line 2: longer than 1024 bytes", 0) == 0, message.c_str());
    // A summary JSON past its bound is not parsed.
    const std::string bigJson = path("big.json");
    writeAll(bigJson, readAll(json));
    std::filesystem::resize_file(bigJson, kMaxSummaryJsonBytes + 1);
    message = messageOf(csv, bigJson);
    QVERIFY2(message.rfind(bigJson + ": 67108865 bytes, more than a run summary has", 0) == 0,
             message.c_str());
    // The good file still opens.
    QCOMPARE(messageOf(csv, json), std::string("(opened)"));
}

LOADERLAB_GUILESS_TEST_MAIN(TestRunReader)
#include "test_run_reader.moc"
