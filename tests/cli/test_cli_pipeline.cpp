// A user's pipeline file through the real binary: `run --dataset python` picks the
// PyTorch engine and writes the run's files, a sweep with a dataset.args axis builds
// what each cell's arguments say, and `python-path` prints the folder of the probe
// module a training script imports (skipped, with the reason, where Python cannot
// import torch and torchvision; python-path needs no torch).

#include "core/io/run_reader.h"

#include "tests/support/require_pytorch.h"

#include "cli_process.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <vector>

namespace {

using clitest::readJson;

QString example(const char *name)
{
    return qEnvironmentVariable("LOADERLAB_SOURCE_DIR") + QStringLiteral("/resources/examples/")
           + QLatin1String(name);
}

// `run` on the fashion example with `samples` samples, then `more`.
QStringList fashionRun(int samples, const QStringList &more)
{
    return QStringList{QStringLiteral("run"),
                       QStringLiteral("--dataset"),
                       QStringLiteral("python"),
                       QStringLiteral("--path"),
                       example("fashion_augment.py"),
                       QStringLiteral("--set"),
                       QStringLiteral("dataset.args.samples=%1").arg(samples)}
           + more;
}

std::string readText(const QString &path)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Each row's epoch and samples from a sweep cell's per-batch CSV (the header left out).
std::vector<std::pair<int, int>> epochsAndSamples(const QString &csv)
{
    std::vector<std::pair<int, int>> rows;
    std::ifstream trace(csv.toStdString());
    std::string row;
    std::getline(trace, row); // the header: index,epoch,worker,samples,...
    while (std::getline(trace, row)) {
        std::stringstream fields(row);
        std::string index, epoch, worker, samples;
        std::getline(fields, index, ',');
        std::getline(fields, epoch, ',');
        std::getline(fields, worker, ',');
        std::getline(fields, samples, ',');
        rows.emplace_back(std::stoi(epoch), std::stoi(samples));
    }
    return rows;
}

} // namespace

class TestCliPipeline : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void runPicksThePyTorchEngineAndWritesTheRun();
    void sweepOverAPipelineArgument();
    void sweepOverTheTextExample();
    void pythonPathHoldsTheProbeModule();
    void loaderlabsEngineIsRefusedWithTheReason();
    void aLessonOnAPipelineFile();
    void autotuneDrivesAPipeline();
};

void TestCliPipeline::runPicksThePyTorchEngineAndWritesTheRun()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("run.json"));
    const QString csv = dir.filePath(QStringLiteral("run.csv"));
    const QString perfetto = dir.filePath(QStringLiteral("run.trace.json"));
    const clitest::Result r = clitest::runLoaderlab(fashionRun(
        100, {QStringLiteral("--set"), QStringLiteral("dataset.args.size=32"),
              QStringLiteral("--batch-size"), QStringLiteral("32"), QStringLiteral("--workers"),
              QStringLiteral("2"), QStringLiteral("--json"), json, QStringLiteral("--csv"), csv,
              QStringLiteral("--trace-json"), perfetto, QStringLiteral("--quiet")}));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const auto summary = readJson(json);
    QCOMPARE(summary.at("config").at("engine").get<std::string>(), std::string("pytorch"));
    QCOMPARE(summary.at("config").at("dataset").at("kind").get<std::string>(),
             std::string("python"));
    QCOMPARE(summary.at("config").at("dataset").at("args").at("samples").get<int>(), 100);
    QCOMPARE(summary.at("summary").at("batches").get<int>(), 4); // 3 x 32 + 4
    QCOMPARE(summary.at("summary").at("samples").get<int>(), 100);
    QVERIFY(QString::fromStdString(summary.at("dataset").get<std::string>())
                .contains(QStringLiteral("AugmentedFashion from fashion_augment.py")));

    // Open run reads it back whole.
    const loaderlab::OpenedRun opened = loaderlab::openRun(csv.toStdString(), json.toStdString());
    QCOMPARE(opened.trace->size(), std::size_t{4});
    QCOMPARE(opened.report.summary.samples, std::int64_t{100});
    // Perfetto: a step per batch on the consumer's track, and each sample's
    // __getitem__ a slice of its own on its worker's track (32 for batch 0).
    const auto trace = readJson(perfetto);
    int steps = 0;
    int batch0 = 0;
    for (const auto &e : trace.at("traceEvents")) {
        steps += e.at("ph") == "X" && e.at("name") == "step";
        batch0 += e.at("ph") == "X" && e.at("name") == "batch 0";
    }
    QCOMPARE(steps, 4);
    QVERIFY2(batch0 >= 32, qPrintable(QString::number(batch0)));
}

void TestCliPipeline::sweepOverAPipelineArgument()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("sweep"));
    const clitest::Result r = clitest::runLoaderlab({QStringLiteral("sweep"),
                                                     QStringLiteral("--out"),
                                                     out,
                                                     QStringLiteral("--dataset"),
                                                     QStringLiteral("python"),
                                                     QStringLiteral("--path"),
                                                     example("fashion_augment.py"),
                                                     QStringLiteral("--set"),
                                                     QStringLiteral("dataset.args.size=32"),
                                                     QStringLiteral("--set"),
                                                     QStringLiteral("dataset.args.step=forward"),
                                                     QStringLiteral("--batch-size"),
                                                     QStringLiteral("16"),
                                                     QStringLiteral("--budget-samples"),
                                                     QStringLiteral("96"),
                                                     QStringLiteral("--axis"),
                                                     QStringLiteral("dataset.args.samples=48,96"),
                                                     QStringLiteral("--axis"),
                                                     QStringLiteral("loader.num_workers=0,2"),
                                                     QStringLiteral("--quiet")},
                                                    600'000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY2(r.out.contains(QStringLiteral("dataset.args.samples")), qPrintable(r.out));
    // Each cell ran the file with its own argument: 96 samples are two epochs of 48
    // or one of 96 (the trace's epoch column).
    std::map<std::pair<int, int>, int> epochs;
    std::ifstream cells((out + QStringLiteral("/cells.jsonl")).toStdString());
    for (std::string line; std::getline(cells, line);) {
        const auto record = nlohmann::json::parse(line);
        QCOMPARE(record.at("state").get<std::string>(), std::string("finished"));
        QCOMPARE(record.at("summary").at("samples").get<int>(), 96);
        const auto &values = record.at("values");
        int last = -1;
        for (const auto &[epoch, samples] :
             epochsAndSamples(out + QLatin1Char('/')
                              + QString::fromStdString(record.at("trace").get<std::string>())))
            last = std::max(last, epoch);
        epochs[{values[0].get<int>(), values[1].get<int>()}] = last + 1;
    }
    QCOMPARE(epochs.size(), std::size_t{4});
    for (const auto &[cell, count] : epochs)
        QCOMPARE(count, 96 / cell.first);
}

// The stream example on the sweep path: each cell reads as many files as its
// argument says: an epoch of 2 files is shorter than one of 16 (more epochs in the
// cell's 40 batches), and holds the same windows whatever the workers.
void TestCliPipeline::sweepOverTheTextExample()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("sweep"));
    const clitest::Result r = clitest::runLoaderlab(
        {QStringLiteral("sweep"), QStringLiteral("--out"), out, QStringLiteral("--dataset"),
         QStringLiteral("python"), QStringLiteral("--path"), example("text_tokens.py"),
         QStringLiteral("--set"), QStringLiteral("dataset.args.step=none"),
         QStringLiteral("--batch-size"), QStringLiteral("16"), QStringLiteral("--budget-batches"),
         QStringLiteral("40"), QStringLiteral("--axis"),
         QStringLiteral("dataset.args.max_files=2,16"), QStringLiteral("--axis"),
         QStringLiteral("loader.num_workers=1,2"), QStringLiteral("--quiet")},
        600'000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    std::map<std::pair<int, int>, std::pair<int, int>> epochs; // cell: epochs, epoch 0's samples
    std::ifstream cells((out + QStringLiteral("/cells.jsonl")).toStdString());
    for (std::string line; std::getline(cells, line);) {
        const auto record = nlohmann::json::parse(line);
        QCOMPARE(record.at("state").get<std::string>(), std::string("finished"));
        const auto &values = record.at("values");
        int last = -1, firstEpochSamples = 0;
        for (const auto &[epoch, samples] :
             epochsAndSamples(out + QLatin1Char('/')
                              + QString::fromStdString(record.at("trace").get<std::string>()))) {
            last = std::max(last, epoch);
            if (epoch == 0)
                firstEpochSamples += samples;
        }
        epochs[{values[0].get<int>(), values[1].get<int>()}] = {last + 1, firstEpochSamples};
    }
    QCOMPARE(epochs.size(), std::size_t{4});
    const auto twoFiles = epochs[std::pair(2, 1)];
    const auto twoFilesTwoWorkers = epochs[std::pair(2, 2)];
    const auto sixteenFiles = epochs[std::pair(16, 1)];
    QCOMPARE(twoFiles.second, twoFilesTwoWorkers.second);
    QVERIFY(twoFiles.first > sixteenFiles.first);
    QVERIFY(twoFiles.second < sixteenFiles.second || sixteenFiles.first == 1);
}

void TestCliPipeline::pythonPathHoldsTheProbeModule()
{
    QTemporaryDir cache;
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LOADERLAB_CACHE_DIR"), cache.path());
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(LOADERLAB_BINARY), {QStringLiteral("python-path")});
    QVERIFY(process.waitForFinished(30'000));
    QCOMPARE(process.exitCode(), 0);
    const QString folder = QString::fromUtf8(process.readAllStandardOutput()).trimmed();
    QVERIFY2(folder.startsWith(cache.path()), qPrintable(folder));
    // The module there is the source's, byte for byte.
    const std::string source = readText(
        qEnvironmentVariable("LOADERLAB_SOURCE_DIR")
        + QStringLiteral("/core/engine/pytorch/python/loaderlab_probe.py"));
    QVERIFY(!source.empty());
    QVERIFY(readText(folder + QStringLiteral("/loaderlab_probe.py")) == source);
    // A cache that cannot be written: a clear error, exit 1.
    env.insert(QStringLiteral("LOADERLAB_CACHE_DIR"), QStringLiteral("/proc/no-such-place"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(LOADERLAB_BINARY), {QStringLiteral("python-path")});
    QVERIFY(process.waitForFinished(30'000));
    QCOMPARE(process.exitCode(), 1);
    QVERIFY(QString::fromUtf8(process.readAllStandardError())
                .contains(QStringLiteral("/proc/no-such-place")));
}

void TestCliPipeline::loaderlabsEngineIsRefusedWithTheReason()
{
    const clitest::Result r = clitest::runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--engine"), QStringLiteral("loaderlab"),
         QStringLiteral("--dataset"), QStringLiteral("python"), QStringLiteral("--path"),
         example("fashion_augment.py"), QStringLiteral("--quiet")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("engine pytorch")), qPrintable(r.err));
}

void TestCliPipeline::aLessonOnAPipelineFile()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("lesson.json"));
    const clitest::Result r = clitest::runLoaderlab(
        {QStringLiteral("lesson"), QStringLiteral("first-batch"), QStringLiteral("--pipeline"),
         example("fashion_augment.py"), QStringLiteral("--set"),
         QStringLiteral("dataset.args.samples=1200"), QStringLiteral("--set"),
         QStringLiteral("dataset.args.step=none"), QStringLiteral("--json"), json});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const auto lesson = readJson(json);
    QCOMPARE(lesson.at("engine").get<std::string>(), std::string("pytorch"));
    QCOMPARE(lesson.at("phases").size(), std::size_t{1});
    QVERIFY(lesson.at("phases")[0].at("batches").get<int>() >= 30);
    // A lesson that compares an image folder with the tensor file preprocessed from it
    // cannot take a pipeline file for the folder: refused, saying why.
    const clitest::Result refused = clitest::runLoaderlab(
        {QStringLiteral("lesson"), QStringLiteral("tensors-vs-jpeg"), QStringLiteral("--pipeline"),
         example("fashion_augment.py")});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("so it needs the image folder; "))
                 && refused.err.contains(QStringLiteral("fashion_augment.py is a Python pipeline "
                                                        "file")),
             qPrintable(refused.err));
}

void TestCliPipeline::autotuneDrivesAPipeline()
{
    REQUIRE_PYTORCH();
    // One worker and a 1 ms step on the fashion example, tuned by the hill climb, whose
    // first trial is always one more worker: the autotuner drives the pipeline's
    // DataLoader, each change a config version and a marker. (The model search moves
    // only where the model predicts a gain, and whether a second worker gains depends
    // on the machine: beside a busy loop on one of 2 cores both workers share the other
    // core, and the model rightly predicts next to nothing; test_loader_model_search
    // checks its decisions on known throughputs, test_model_autotune on a consumer whose
    // best setting is known.) For 15 s, not one epoch (188 batches).
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("auto.json"));
    const clitest::Result r = clitest::runLoaderlab(fashionRun(
        6000, {QStringLiteral("--set"), QStringLiteral("dataset.args.step=none"),
               QStringLiteral("--sleep-batch-ms"), QStringLiteral("1"), QStringLiteral("--workers"),
               QStringLiteral("1"), QStringLiteral("--autotune"),
               QStringLiteral("--autotune-search"), QStringLiteral("hill"),
               QStringLiteral("--epochs"), QStringLiteral("0"), QStringLiteral("--seconds"),
               QStringLiteral("15"), QStringLiteral("--json"), json, QStringLiteral("--quiet")}));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const auto summary = readJson(json);
    QCOMPARE(summary.at("config").at("engine").get<std::string>(), std::string("pytorch"));
    QVERIFY(summary.at("config_versions").size() >= 2);
    bool tried = false;
    for (const auto &marker : summary.at("markers"))
        tried = tried
                || (marker.at("kind") == "autotune"
                    && marker.at("text").get<std::string>().find("workers 1 -> 2")
                           != std::string::npos);
    QVERIFY2(tried, summary.at("markers").dump().c_str());
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliPipeline)
#include "test_cli_pipeline.moc"
