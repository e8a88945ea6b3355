// Exports are atomic: a failed write never replaces a good file; config JSON round-trips.

#include "core/io/atomic_file.h"
#include "core/io/summary_json.h"
#include "core/io/trace_csv.h"
#include "core/run/run_config_json.h"

#include <QtTest>

#include <fstream>
#include <sstream>

using namespace loaderlab;

namespace {

std::string readAll(const std::string &path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

class TestExports : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void failedWriteKeepsTheOldFile();
    void csvHasOneRowPerBatch();
    void configRoundTrips();
    void configErrorsNameTheKey();
    void markersRoundTripWithTheirFields();
};

void TestExports::failedWriteKeepsTheOldFile()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("trace.csv")).toStdString();
    writeFileAtomically(path, [](std::ostream &out) { out << "good\n"; });
    QCOMPARE(readAll(path), std::string("good\n"));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, writeFileAtomically(path, [](std::ostream &out) {
                                 out << "half of a new fi";
                                 throw std::runtime_error("disk went away");
                             }));
    QCOMPARE(readAll(path), std::string("good\n"));
    QVERIFY(!QFile::exists(QString::fromStdString(path + ".part")));
}

void TestExports::csvHasOneRowPerBatch()
{
    std::vector<TraceRecord> records(3);
    for (int i = 0; i < 3; ++i) {
        records[i].index = i;
        records[i].requestNs = 100 * i;
        records[i].deliveryNs = 100 * i + 42;
    }
    std::ostringstream out;
    writeTraceCsv(out, records);
    std::istringstream in(out.str());
    std::string line;
    std::vector<std::string> lines;
    while (std::getline(in, line))
        lines.push_back(line);
    QCOMPARE(lines.size(), std::size_t{4});
    QCOMPARE(lines[0], traceCsvHeader());
    const auto columns = QString::fromStdString(lines[0]).split(QLatin1Char(','));
    const auto row = QString::fromStdString(lines[3]).split(QLatin1Char(','));
    QCOMPARE(row.size(), columns.size());
    QCOMPARE(row[columns.indexOf(QStringLiteral("wait_ns"))], QStringLiteral("42"));
    QCOMPARE(row[columns.indexOf(QStringLiteral("request_ns"))], QStringLiteral("200"));
}

void TestExports::configRoundTrips()
{
    RunConfig c;
    c.dataset.kind = DatasetKind::ImageFolder;
    c.dataset.path = "/data/imagenette";
    c.dataset.transform = TransformKind::Train;
    c.loader.numWorkers = 5;
    c.loader.batchSize = 256;
    c.loader.strategy = Strategy::SampleParallel;
    c.loader.pinMemory = true;
    c.loader.inOrder = false;
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerSampleMs = 0.25;
    c.maxSeconds = 12.5;
    const RunConfig back = runConfigFromJson(toJson(c));
    QCOMPARE(toJson(back), toJson(c));
    QCOMPARE(back.loader, c.loader);
    QCOMPARE(back.consumer, c.consumer);
    QCOMPARE(back.dataset.path, c.dataset.path);
}

void TestExports::configErrorsNameTheKey()
{
    const auto message = [](const char *text) -> std::string {
        try {
            runConfigFromJson(nlohmann::json::parse(text));
        } catch (const std::invalid_argument &e) {
            return e.what();
        }
        return {};
    };
    QVERIFY(message(R"({"loader": {"num_workers": "two"}})").find("loader.num_workers")
            != std::string::npos);
    QVERIFY(message(R"({"loader": {"strategy": "magic"}})").find("magic") != std::string::npos);
    QVERIFY(message(R"({"colour": 1})").find("colour") != std::string::npos);
    QVERIFY(message(R"({"loader": {"batch_size": 0}})")
                .starts_with("loader.batch_size: 0 is out of range"));
}

void TestExports::markersRoundTripWithTheirFields()
{
    RunReport report;
    report.markers = {
        {12,
         3'400'000,
         MarkerKind::Reconfigure,
         1,
         {{"loader.num_workers", "2", "4"}, {"loader.shuffle", "false", "true"}},
         {}},
        {40, 9'000'000, MarkerKind::Epoch, 1, {}, "1"},
        {41, 9'500'000, MarkerKind::Autotune, 2, {{"loader.prefetch_factor", "2", "3"}}, "+18 %"},
    };
    // Through the file, as a reader of the summary would get it.
    std::stringstream text;
    text << toJson(report).dump(2);
    const nlohmann::json json = nlohmann::json::parse(text);
    QCOMPARE(json["markers"].size(), std::size_t{3});
    QCOMPARE(json["markers"][0]["kind"].get<std::string>(), std::string("reconfigure"));
    QCOMPARE(json["markers"][0]["changes"][0]["field"].get<std::string>(),
             std::string("loader.num_workers"));
    QCOMPARE(json["markers"][0]["text"].get<std::string>(),
             std::string("workers 2 -> 4, shuffle off -> on"));
    QCOMPARE(json["markers"][2]["text"].get<std::string>(),
             std::string("autotune: prefetch 2 -> 3 (+18 %)"));
    for (std::size_t i = 0; i < report.markers.size(); ++i)
        QVERIFY(markerFromJson(json["markers"][i]) == report.markers[i]);
    nlohmann::json bad = json["markers"][0];
    bad["kind"] = "teleport";
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, markerFromJson(bad));
}

QTEST_GUILESS_MAIN(TestExports)
#include "test_exports.moc"
