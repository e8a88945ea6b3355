// The headless CLI, end to end: real binary, real files, exit codes and messages.

#include "cli_process.h"

#include "core/config/dataset_config.h"
#include "core/dataset/tensor_file_format.h"
#include "core/io/trace_csv.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>

namespace {

using clitest::readJson;

using clitest::Result;
using clitest::runLoaderlab;

QStringList readLines(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return {};
    return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void runWritesCsvJsonAndTable();
    void missingDatasetPathIsAClearError();
    void aPathChoosesItsDataset();
    void tensorFileOfWrongSizeIsAClearError();
    void configFileWithOverridesAndUnknownKey();
    void imageFolderSkipAndFailPolicies();
    void preprocessThenRunOnTensorFile();
    void infoReportsMachine();
    void badOutputPathIsRefusedBeforeTheRun();
    void everyDatasetKindIsAnOption();
    void integerOptionsNameTheOptionAndTheValue();
    void secondsAloneRunsForThatLong();
    void helpListsEveryWindowOption();

private:
    QTemporaryDir m_dir;
    QString m_folder;
};

void TestCli::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_folder = m_dir.filePath(QStringLiteral("images"));
    const Result made = clitest::makeImageFolder(m_folder);
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));
}

void TestCli::runWritesCsvJsonAndTable()
{
    const QString csv = m_dir.filePath(QStringLiteral("run.csv"));
    const QString json = m_dir.filePath(QStringLiteral("run.json"));
    const Result r = runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("synthetic"),
         QStringLiteral("--shape"), QStringLiteral("3x32x32"), QStringLiteral("--samples"),
         QStringLiteral("640"), QStringLiteral("--batch-size"), QStringLiteral("32"),
         QStringLiteral("--workers"), QStringLiteral("2"), QStringLiteral("--sleep-batch-ms"),
         QStringLiteral("1"), QStringLiteral("--csv"), csv, QStringLiteral("--json"), json});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(r.out.contains(QStringLiteral("samples/s (mean)")));
    QVERIFY(r.out.contains(QStringLiteral("input-bound share")));

    const QStringList lines = readLines(csv);
    QCOMPARE(lines.size(), 21); // header + 640 / 32 batches
    QCOMPARE(lines.first(), QString::fromStdString(loaderlab::traceCsvHeader()));
    QCOMPARE(lines.at(1).section(QLatin1Char(','), 0, 0), QStringLiteral("0"));
    QCOMPARE(lines.at(20).section(QLatin1Char(','), 0, 0), QStringLiteral("19"));

    const auto summary = readJson(json);
    QCOMPARE(summary["summary"]["batches"].get<int>(), 20);
    QCOMPARE(summary["summary"]["samples"].get<int>(), 640);
    QCOMPARE(summary["config"]["loader"]["num_workers"].get<int>(), 2);
    QCOMPARE(summary["config"]["consumer"]["kind"].get<std::string>(), std::string("sleep"));
    QCOMPARE(summary["state"].get<std::string>(), std::string("finished"));
    QVERIFY(summary["machine"]["versions"].contains("qt"));
    QVERIFY(summary["machine"]["versions"].contains("opencv"));
    QVERIFY(summary["machine"]["logical_cores"].get<int>() > 0);
    QCOMPARE(summary["summary"]["worker_utilisation"].size(), std::size_t{2});
}

void TestCli::missingDatasetPathIsAClearError()
{
    const Result r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--dataset"),
                                   QStringLiteral("folder"), QStringLiteral("--path"),
                                   QStringLiteral("/nonexistent/loaderlab-data")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("/nonexistent/loaderlab-data")), qPrintable(r.err));
}

void TestCli::aPathChoosesItsDataset()
{
    // --path without --dataset: a folder is read as an image folder, not the synthetic
    // default beside it.
    const QString json = m_dir.filePath(QStringLiteral("path-only.json"));
    Result r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--path"), m_folder,
                             QStringLiteral("--json"), json, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    auto summary = readJson(json);
    QCOMPARE(summary["config"]["dataset"]["kind"].get<std::string>(), std::string("folder"));
    QCOMPARE(summary["summary"]["samples"].get<int>(), 6); // 2 classes of 3 images
    // A file is taken for a tensor file, and one that is not says so, naming it.
    const QString text = m_dir.filePath(QStringLiteral("notes.txt"));
    std::ofstream(text.toStdString()) << "not a tensor file\n";
    r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--path"), text});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(text), qPrintable(r.err));
    // A dataset asked for wins over what the path looks like.
    r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--dataset"),
                      QStringLiteral("synthetic"), QStringLiteral("--samples"),
                      QStringLiteral("64"), QStringLiteral("--path"), m_folder,
                      QStringLiteral("--json"), json, QStringLiteral("--quiet")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    summary = readJson(json);
    QCOMPARE(summary["config"]["dataset"]["kind"].get<std::string>(), std::string("synthetic"));
    QCOMPARE(summary["summary"]["samples"].get<int>(), 64);
}

void TestCli::tensorFileOfWrongSizeIsAClearError()
{
    const QString path = m_dir.filePath(QStringLiteral("short.tensor"));
    {
        loaderlab::TensorFileWriter writer(path.toStdString(), loaderlab::DType::UInt8, {1, 4, 4});
        std::vector<std::byte> sample(16, std::byte{7});
        for (int i = 0; i < 10; ++i)
            writer.append(i, sample);
        writer.finish();
    }
    QVERIFY(QFile::resize(path, QFileInfo(path).size() - 5));
    const Result r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--dataset"),
                                   QStringLiteral("tensor"), QStringLiteral("--path"), path});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(path), qPrintable(r.err));
}

void TestCli::configFileWithOverridesAndUnknownKey()
{
    const QString config = m_dir.filePath(QStringLiteral("config.json"));
    const QString json = m_dir.filePath(QStringLiteral("config-run.json"));
    {
        std::ofstream out(config.toStdString());
        out << R"({"dataset": {"kind": "synthetic", "synthetic_shape": [1, 8, 8], "synthetic_samples": 100},
                   "loader": {"batch_size": 10, "num_workers": 1}, "max_batches": 7})";
    }
    Result r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--config"), config,
                             QStringLiteral("--workers"), QStringLiteral("3"),
                             QStringLiteral("--json"), json});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto summary = readJson(json);
    QCOMPARE(summary["summary"]["batches"].get<int>(), 7);
    QCOMPARE(summary["config"]["loader"]["num_workers"].get<int>(), 3); // the flag wins
    QCOMPARE(summary["config"]["loader"]["batch_size"].get<int>(), 10); // from the file

    {
        std::ofstream out(config.toStdString());
        out << R"({"loader": {"batch_sise": 10}})";
    }
    r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--config"), config});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("batch_sise")), qPrintable(r.err));
    QVERIFY(r.err.contains(config));
}

void TestCli::imageFolderSkipAndFailPolicies()
{
    const QString classDir = QDir(m_folder).entryList(QDir::Dirs | QDir::NoDotAndDotDot).first();
    const QString broken = m_folder + QLatin1Char('/') + classDir
                           + QStringLiteral("/zz_broken.jpg");
    {
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("this is not a JPEG");
    }
    const QString json = m_dir.filePath(QStringLiteral("skip.json"));
    Result r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--dataset"),
                             QStringLiteral("folder"), QStringLiteral("--path"), m_folder,
                             QStringLiteral("--batch-size"), QStringLiteral("4"),
                             QStringLiteral("--json"), json});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto summary = readJson(json);
    QCOMPARE(summary["summary"]["samples"].get<int>(), 6);
    QCOMPARE(summary["summary"]["skipped_samples"].get<int>(), 1);
    QVERIFY(summary["skipped"][0]["source"].get<std::string>().find("zz_broken.jpg")
            != std::string::npos);

    r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("folder"),
                      QStringLiteral("--path"), m_folder, QStringLiteral("--bad-samples"),
                      QStringLiteral("fail")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QStringLiteral("zz_broken.jpg")), qPrintable(r.err));
    QFile::remove(broken);
}

void TestCli::preprocessThenRunOnTensorFile()
{
    const QString tensor = m_dir.filePath(QStringLiteral("images.tensor"));
    Result r = runLoaderlab({QStringLiteral("preprocess"), m_folder, tensor});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto header = loaderlab::readTensorFileHeader(tensor.toStdString());
    QCOMPARE(header.count, std::uint64_t{6});
    QCOMPARE(header.shape, (loaderlab::SampleShape{3, 224, 224}));
    const QString json = m_dir.filePath(QStringLiteral("tensor.json"));
    r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("tensor"),
                      QStringLiteral("--path"), tensor, QStringLiteral("--batch-size"),
                      QStringLiteral("4"), QStringLiteral("--json"), json});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(readJson(json)["summary"]["samples"].get<int>(), 6);
}

void TestCli::infoReportsMachine()
{
    const Result r = runLoaderlab({QStringLiteral("info"), QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    const auto info = nlohmann::json::parse(r.out.toStdString());
    QVERIFY(info["logical_cores"].get<int>() > 0);
    QVERIFY(info["memory_bytes"].get<std::int64_t>() > 0);
    QVERIFY(info["versions"].contains("libtorch"));
    QVERIFY(info.contains("cuda_available"));
}

void TestCli::badOutputPathIsRefusedBeforeTheRun()
{
    QElapsedTimer timer;
    timer.start();
    const Result r = runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--shape"), QStringLiteral("1x4x4"),
         QStringLiteral("--samples"), QStringLiteral("64"), QStringLiteral("--seconds"),
         QStringLiteral("30"), QStringLiteral("--epochs"), QStringLiteral("0"),
         QStringLiteral("--json"), m_dir.filePath(QStringLiteral("ok.json")),
         QStringLiteral("--csv"), QStringLiteral("/nonexistent-dir/run.csv")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("/nonexistent-dir/run.csv")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("does not exist")), qPrintable(r.err));
    QVERIFY(!r.out.contains(QStringLiteral("LoaderLab run summary"))); // nothing ran
    QVERIFY(timer.elapsed() < 20'000);                                 // not the 30 s run
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("ok.json"))));
}

void TestCli::secondsAloneRunsForThatLong()
{
    // 64 samples in batches of 8: one epoch is 8 batches. `--seconds` alone goes on
    // past it, epoch after epoch, until its time; with `--epochs 1` one epoch ends it.
    const auto run = [this](const QStringList &extra, const QString &name) {
        const QString json = m_dir.filePath(name);
        const Result r = runLoaderlab(
            QStringList{
                QStringLiteral("run"), QStringLiteral("--shape"), QStringLiteral("1x4x4"),
                QStringLiteral("--samples"), QStringLiteral("64"), QStringLiteral("--batch-size"),
                QStringLiteral("8"), QStringLiteral("--sleep-batch-ms"), QStringLiteral("1"),
                QStringLiteral("--seconds"), QStringLiteral("1"), QStringLiteral("--json"), json}
            + extra);
        return std::pair{r, readJson(json)};
    };
    const auto [alone, aloneJson] = run({}, QStringLiteral("seconds-alone.json"));
    QVERIFY2(alone.exitCode == 0, qPrintable(alone.err));
    QCOMPARE(aloneJson.at("config").at("epochs").get<int>(), 0);
    QVERIFY2(aloneJson.at("summary").at("batches").get<std::int64_t>() > 8,
             aloneJson.at("summary").dump().c_str());
    const auto [oneEpoch, oneJson] = run({QStringLiteral("--epochs"), QStringLiteral("1")},
                                         QStringLiteral("seconds-epoch.json"));
    QVERIFY2(oneEpoch.exitCode == 0, qPrintable(oneEpoch.err));
    QCOMPARE(oneJson.at("config").at("epochs").get<int>(), 1);
    QCOMPARE(oneJson.at("summary").at("batches").get<std::int64_t>(), std::int64_t{8});
}

void TestCli::helpListsEveryWindowOption()
{
    const Result help = runLoaderlab({QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    const qsizetype window = help.out.indexOf(QStringLiteral("Window options:"));
    QVERIFY2(window > 0, qPrintable(help.out));
    for (const char *option :
         {"--config FILE", "--lang CODE", "--screenshot FILE", "--seconds S", "--json FILE",
          "--size WxH", "--view NAME", "--sweep DIR", "--keep-batches N"}) {
        QVERIFY2(help.out.indexOf(QStringLiteral("\n  ") + QLatin1String(option), window) > 0,
                 qPrintable(QLatin1String(option) + QStringLiteral(" in\n") + help.out));
    }
}

void TestCli::everyDatasetKindIsAnOption()
{
    // `run --help` lists the table's kinds for --dataset, and each of them parses:
    // the run then stops at the bad --workers after it, not at the kind.
    const Result help = runLoaderlab({QStringLiteral("run"), QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    QStringList names;
    for (const loaderlab::DatasetKindInfo &kind : loaderlab::datasetKinds())
        names << QString::fromLatin1(kind.name.data());
    const QString list = names.join(QStringLiteral(", "));
    QVERIFY2(help.out.simplified().contains(list), qPrintable(help.out));
    for (const QString &name : names) {
        const Result r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--dataset"), name,
                                       QStringLiteral("--workers"), QStringLiteral("many")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--workers: loader.num_workers: expected an "
                                               "integer, got 'many'")),
                 qPrintable(name + QLatin1Char(' ') + r.err));
    }
    const Result bad = runLoaderlab(
        {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("mnist")});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains(QStringLiteral("unknown value \"mnist\" (") + list + u')'),
             qPrintable(bad.err));
}

void TestCli::integerOptionsNameTheOptionAndTheValue()
{
    // Every command reads integer options one way: a value that is not an integer
    // in range is a usage error (exit 2) naming the option, the range and the value.
    const QString out = m_dir.filePath(QStringLiteral("never-written"));
    const struct
    {
        QStringList arguments;
        const char *message;
    } cases[] = {
        {{QStringLiteral("make-dataset"), out, QStringLiteral("--classes"), QStringLiteral("x")},
         "--classes: expected an integer >= 1, got 'x'"},
        {{QStringLiteral("make-dataset"), out, QStringLiteral("--min-side"), QStringLiteral("20"),
          QStringLiteral("--max-side"), QStringLiteral("10")},
         "--max-side: expected an integer >= 20, got '10'"},
        {{QStringLiteral("preprocess"), m_folder, out, QStringLiteral("--threads"),
          QStringLiteral("-1")},
         "--threads: expected an integer >= 0, got '-1'"},
        {{QStringLiteral("run"), QStringLiteral("--keep-batches"), QStringLiteral("lots")},
         "--keep-batches: expected an integer >= 0, got 'lots'"},
        {{QStringLiteral("run"), QStringLiteral("--keep-batches"), QStringLiteral("5")},
         "--keep-batches: expected 0 or an integer >= 100000, got '5'"},
#ifdef LOADERLAB_WITH_WINDOW
        // The window keeps batches by the same rule.
        {{QStringLiteral("--keep-batches"), QStringLiteral("5")},
         "--keep-batches: expected 0 or an integer >= 100000, got '5'"},
        {{QStringLiteral("--keep-batches"), QStringLiteral("lots")},
         "--keep-batches: expected an integer >= 0, got 'lots'"},
#else
        // A build without the window says so, whatever the window's options.
        {{QStringLiteral("--keep-batches"), QStringLiteral("5")},
         "this build has no window (LOADERLAB_WITH_WINDOW=OFF)"},
#endif
        {{QStringLiteral("sweep"), QStringLiteral("--axis"), QStringLiteral("loader.num_workers=0"),
          QStringLiteral("--out"), out, QStringLiteral("--repeats"), QStringLiteral("two")},
         "--repeats: expected an integer, got 'two'"},
        {{QStringLiteral("sweep"), QStringLiteral("--axis"), QStringLiteral("loader.num_workers=0"),
          QStringLiteral("--out"), out, QStringLiteral("--slurm-script"),
          m_dir.filePath(QStringLiteral("job.sbatch")), QStringLiteral("--slurm-tasks"),
          QStringLiteral("99999999999")},
         "--slurm-tasks: expected an integer, got '99999999999'"},
    };
    for (const auto &c : cases) {
        const Result r = runLoaderlab(c.arguments);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String(c.message)),
                 qPrintable(c.arguments.join(QLatin1Char(' ')) + QStringLiteral(": ") + r.err));
    }
    QVERIFY(!QFileInfo::exists(out));
}

LOADERLAB_GUILESS_TEST_MAIN(TestCli)
#include "test_cli.moc"
