// Exports are atomic: a failed write never replaces a good file; config JSON round-trips.

#include "core/config/run_config_json.h"
#include "core/io/summary_json.h"
#include "core/io/trace_csv.h"
#include "core/system/atomic_file.h"
#include "core/system/output_guard.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

using namespace loaderlab;

namespace {

std::string readExport(const std::string &path)
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
    void symlinkedPartIsNeverWrittenThrough();
    void stalePartIsReplacedNotWrittenThrough();
    void partThatIsAnInputIsRefused();
    void outputInsideAnInputFolderIsRefused();
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
    QCOMPARE(readExport(path), std::string("good\n"));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, writeFileAtomically(path, [](std::ostream &out) {
                                 out << "half of a new fi";
                                 throw std::runtime_error("disk went away");
                             }));
    QCOMPARE(readExport(path), std::string("good\n"));
    QVERIFY(!QFile::exists(QString::fromStdString(path + ".part")));
}

void TestExports::symlinkedPartIsNeverWrittenThrough()
{
    // A link planted under the ".part" name: the write is refused, the link's
    // target and the output stay as they were.
    QTemporaryDir dir;
    const std::string precious = dir.filePath(QStringLiteral("precious.txt")).toStdString();
    const std::string out = dir.filePath(QStringLiteral("out.csv")).toStdString();
    std::ofstream(precious) << "mine\n";
    QCOMPARE(::symlink(precious.c_str(), (out + ".part").c_str()), 0);
    try {
        writeFileAtomically(out, [](std::ostream &o) { o << "export\n"; });
        QFAIL("a symlinked .part was written through");
    } catch (const std::runtime_error &e) {
        const std::string message = e.what();
        QVERIFY2(message.find(out + ".part is a symbolic link") != std::string::npos,
                 message.c_str());
    }
    QCOMPARE(readExport(precious), std::string("mine\n"));
    QVERIFY(!QFile::exists(QString::fromStdString(out)));
    // A dangling link too: creating the file would make it, through the link.
    const std::string dangling = dir.filePath(QStringLiteral("nowhere")).toStdString();
    const std::string other = dir.filePath(QStringLiteral("other.json")).toStdString();
    QCOMPARE(::symlink(dangling.c_str(), (other + ".part").c_str()), 0);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, AtomicFile file(other));
    QVERIFY(!QFile::exists(QString::fromStdString(dangling)));
}

void TestExports::stalePartIsReplacedNotWrittenThrough()
{
    // A stale ".part" that is a hard link to another file: the export replaces the
    // name with a new file and the other file keeps its bytes.
    QTemporaryDir dir;
    const std::string other = dir.filePath(QStringLiteral("other.bin")).toStdString();
    const std::string out = dir.filePath(QStringLiteral("out.json")).toStdString();
    std::ofstream(other) << "keep me\n";
    QCOMPARE(::link(other.c_str(), (out + ".part").c_str()), 0);
    writeFileAtomically(out, [](std::ostream &o) { o << "{}\n"; });
    QCOMPARE(readExport(out), std::string("{}\n"));
    QCOMPARE(readExport(other), std::string("keep me\n"));
    QVERIFY(!QFile::exists(QString::fromStdString(out + ".part")));
}

void TestExports::partThatIsAnInputIsRefused()
{
    // The dataset is named "train.part"; an export to "train" would write through it.
    QTemporaryDir dir;
    const std::string dataset = dir.filePath(QStringLiteral("train.part")).toStdString();
    const std::string out = dir.filePath(QStringLiteral("train")).toStdString();
    std::ofstream(dataset) << "dataset bytes";
    try {
        writeFileAtomically(out, [](std::ostream &o) { o << "x"; }, {dataset});
        QFAIL("an input was overwritten");
    } catch (const std::runtime_error &e) {
        const std::string message = e.what();
        QVERIFY2(message.find("which is an input of the run (" + dataset) != std::string::npos,
                 message.c_str());
    }
    QCOMPARE(readExport(dataset), std::string("dataset bytes"));
    QVERIFY(!QFile::exists(QString::fromStdString(out)));
    // An input of a run this process started is protected without being named.
    protectInput(dataset);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                             writeFileAtomically(out, [](std::ostream &o) { o << "x"; }));
    QCOMPARE(readExport(dataset), std::string("dataset bytes"));
}

void TestExports::outputInsideAnInputFolderIsRefused()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("photos"));
    QVERIFY(QDir().mkpath(folder + QStringLiteral("/cats/deep")));
    const std::string photo = (folder + QStringLiteral("/cats/x.jpg")).toStdString();
    std::ofstream(photo) << "jpeg";
    // By another spelling of the folder: a symlink to it.
    const QString link = dir.filePath(QStringLiteral("link"));
    QCOMPARE(::symlink(folder.toLocal8Bit().constData(), link.toLocal8Bit().constData()), 0);
    const std::vector<std::string> inputs{link.toStdString()};
    for (const std::string &out :
         {photo, (folder + QStringLiteral("/cats/deep/new.csv")).toStdString(),
          (link + QStringLiteral("/run.json")).toStdString()}) {
        const std::string conflict = outputInputConflict(out, inputs);
        QVERIFY2(conflict.find("is inside the input folder " + link.toStdString())
                     != std::string::npos,
                 (out + ": " + conflict).c_str());
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                                 writeFileAtomically(
                                     out, [](std::ostream &o) { o << "x"; }, inputs));
    }
    QCOMPARE(readExport(photo), std::string("jpeg"));
    // Beside the folder is fine.
    QCOMPARE(outputInputConflict(dir.filePath(QStringLiteral("photos.csv")).toStdString(), inputs),
             std::string());
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

LOADERLAB_GUILESS_TEST_MAIN(TestExports)
#include "test_exports.moc"
