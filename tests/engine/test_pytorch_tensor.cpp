// Tensor files on the PyTorch engine (real torch; skipped with the reason where
// Python cannot import it): one file and a manifest's shards are read as LoaderLab's
// engine reads them, every record once per epoch (by the samples' ids), and a file
// that does not hold what it says is refused before Python starts, naming it.

#include "core/dataset/tensor_file_format.h"
#include "core/engine/pytorch/pytorch_run.h"

#include "tests/support/engine_checks.h"
#include "tests/support/require_pytorch.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <vector>

using namespace loaderlab;
using loaderlab::test::epochIds;

namespace {

void writeRecords(const std::string &path, DType dtype, int records, int firstLabel)
{
    const SampleShape shape{1, 4, 4};
    TensorFileWriter writer(path, dtype, shape);
    const std::size_t bytes = static_cast<std::size_t>(shape.elements())
                              * (dtype == DType::Float32 ? 4 : 1);
    std::vector<std::byte> sample(bytes);
    for (int r = 0; r < records; ++r) {
        for (std::size_t i = 0; i < bytes; ++i)
            sample[i] = static_cast<std::byte>((r * 13 + static_cast<int>(i)) % 251);
        writer.append(firstLabel + r, sample);
    }
    writer.finish();
}

RunConfig tensorRun(const std::string &path)
{
    RunConfig c;
    c.engine = EngineKind::PyTorch;
    c.dataset.kind = DatasetKind::TensorFile;
    c.dataset.path = path;
    c.loader.numWorkers = 1;
    c.loader.batchSize = 8;
    c.consumer.kind = ConsumerKind::None;
    c.epochs = 1;
    c.maxBatches = 0;
    return c;
}

} // namespace

class TestPyTorchTensor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void readsEveryRecordOfAFile();
    void readsAManifestsShardsAsOneDataset();
    void refusesAFileThatIsNotWhole();

private:
    QTemporaryDir m_dir;
};

void TestPyTorchTensor::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY(pytorchConfigProblem(tensorRun("x.lltensor")).empty());
}

void TestPyTorchTensor::readsEveryRecordOfAFile()
{
    REQUIRE_PYTORCH();
    const std::string path = m_dir.filePath(QStringLiteral("fifty.lltensor")).toStdString();
    writeRecords(path, DType::Float32, 50, 0);
    PyTorchRun run;
    run.start(tensorRun(path));
    QVERIFY(run.wait(120'000));
    QVERIFY2(run.state() == RunState::Finished, run.error().c_str());
    QCOMPARE(run.trace()->size(), std::size_t{7}); // 6 x 8 + 2
    QCOMPARE(run.epochSamples().at(0).samples, std::int64_t{50});
    QCOMPARE(run.epochSamples().at(0).ids, epochIds(50));
    std::int64_t read = 0;
    for (const TraceRecord &r : run.trace()->records())
        read += r.readNs;
    QVERIFY(read > 0); // each record a pread, timed as its read
    QVERIFY2(QString::fromStdString(run.datasetDescription()).contains(QStringLiteral("fifty")),
             run.datasetDescription().c_str());
}

void TestPyTorchTensor::readsAManifestsShardsAsOneDataset()
{
    REQUIRE_PYTORCH();
    // 30 + 20 uint8 records in two shards, shuffled over two epochs and two ranks.
    const QString folder = m_dir.filePath(QStringLiteral("shards"));
    QVERIFY(QDir().mkpath(folder));
    writeRecords((folder + QStringLiteral("/a.lltensor")).toStdString(), DType::UInt8, 30, 0);
    writeRecords((folder + QStringLiteral("/b.lltensor")).toStdString(), DType::UInt8, 20, 30);
    std::ofstream(folder.toStdString() + "/manifest.json")
        << R"({"format": "loaderlab-tensor-shards", "dtype": "uint8", "shape": [1, 4, 4],)"
        << R"( "records": 50, "shards": [)"
        << R"({"file": "a.lltensor", "first_image": 0, "end_image": 30, "records": 30, "skipped": 0},)"
        << R"({"file": "b.lltensor", "first_image": 30, "end_image": 50, "records": 20, "skipped": 0}]})";
    RunConfig config = tensorRun(folder.toStdString());
    config.loader.shuffle = true;
    config.epochs = 2;
    config.devices = 2;
    PyTorchRun run;
    run.start(config);
    QVERIFY(run.wait(180'000));
    QVERIFY2(run.state() == RunState::Finished, run.error().c_str());
    const auto epochs = run.epochSamples();
    QCOMPARE(epochs.size(), std::size_t{2});
    for (const auto &[epoch, seen] : epochs) {
        QCOMPARE(seen.samples, std::int64_t{50}); // 25 a rank: no padding
        QCOMPARE(seen.ids, epochIds(50));
    }
}

void TestPyTorchTensor::refusesAFileThatIsNotWhole()
{
    REQUIRE_PYTORCH();
    const std::string path = m_dir.filePath(QStringLiteral("cut.lltensor")).toStdString();
    writeRecords(path, DType::Float32, 10, 0);
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 7);
    PyTorchRun run;
    try {
        run.start(tensorRun(path));
        QFAIL("a cut tensor file was not refused");
    } catch (const std::exception &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QString::fromStdString(path)), e.what());
    }
}

LOADERLAB_GUILESS_TEST_MAIN(TestPyTorchTensor)
#include "test_pytorch_tensor.moc"
