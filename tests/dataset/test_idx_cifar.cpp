// Tests for IdxDataset (against the real Fashion-MNIST when installed, and small
// files written here, raw and gzipped) and Cifar10Dataset (fake batch files).

#include "core/dataset/cifar10_dataset.h"
#include "core/dataset/idx_dataset.h"
#include "tests/support/test_main.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <vector>

using namespace loaderlab;

namespace {

const std::string kFashionDir = "/usr/share/datasets/fashion-mnist";

void putBigEndian(std::vector<std::uint8_t> &bytes, std::uint32_t value)
{
    for (int shift : {24, 16, 8, 0})
        bytes.push_back(static_cast<std::uint8_t>(value >> shift));
}

// Pixel (image n, row r, column c) of the small IDX files.
std::uint8_t idxPixel(int n, int r, int c)
{
    return static_cast<std::uint8_t>((n * 50 + r * 7 + c * 3) % 256);
}

std::vector<std::uint8_t> idxImages(int count, int rows, int cols)
{
    std::vector<std::uint8_t> bytes;
    for (int v : {0x00000803, count, rows, cols})
        putBigEndian(bytes, static_cast<std::uint32_t>(v));
    for (int n = 0; n < count; ++n) {
        for (int r = 0; r < rows; ++r) {
            for (int c = 0; c < cols; ++c)
                bytes.push_back(idxPixel(n, r, c));
        }
    }
    return bytes;
}

std::vector<std::uint8_t> idxLabels(int count)
{
    std::vector<std::uint8_t> bytes;
    putBigEndian(bytes, 0x00000801u);
    putBigEndian(bytes, static_cast<std::uint32_t>(count));
    for (int n = 0; n < count; ++n)
        bytes.push_back(static_cast<std::uint8_t>((n * 3) % 10));
    return bytes;
}

void writeRaw(const std::string &path, const std::vector<std::uint8_t> &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
}

void writeGzip(const std::string &path, const std::vector<std::uint8_t> &bytes)
{
    gzFile file = gzopen(path.c_str(), "wb");
    QVERIFY(file);
    QCOMPARE(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())),
             static_cast<int>(bytes.size()));
    QCOMPARE(gzclose(file), Z_OK);
}

std::vector<float> loadSample(const Dataset &dataset, std::int64_t index, std::int64_t &label)
{
    std::vector<float> out(static_cast<std::size_t>(dataset.sampleShape().elements()));
    SampleContext context;
    label = dataset.load(index, std::as_writable_bytes(std::span(out)), context);
    return out;
}

template <typename Open>
void expectErrorNaming(const std::string &file, const Open &open)
{
    try {
        open();
        QFAIL("no DatasetError thrown");
    } catch (const DatasetError &error) {
        QVERIFY2(std::string(error.what()).find(file) != std::string::npos, error.what());
    }
}

// CIFAR record r of a fake batch: label and the byte at channel ch, row y, column x.
std::uint8_t cifarLabel(int r)
{
    return static_cast<std::uint8_t>((r * 7 + 2) % 10);
}

std::uint8_t cifarByte(int r, int ch, int y, int x)
{
    return static_cast<std::uint8_t>((r * 13 + ch * 101 + y * 5 + x) % 256);
}

void writeCifar(const std::string &path, int firstRecord, int records)
{
    std::vector<std::uint8_t> bytes;
    for (int r = firstRecord; r < firstRecord + records; ++r) {
        bytes.push_back(cifarLabel(r));
        for (int ch = 0; ch < 3; ++ch) {
            for (int y = 0; y < 32; ++y) {
                for (int x = 0; x < 32; ++x)
                    bytes.push_back(cifarByte(r, ch, y, x));
            }
        }
    }
    writeRaw(path, bytes);
}

} // namespace

class TestIdxCifar : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fashionMnistTrain();
    void fashionMnistTest();
    void smallIdxRawAndGzip();
    void truncatedIdxNamesTheFile();
    void badIdxHeaders();
    void cifarRecords();
    void cifarDirectoryOrder();
    void cifarBadFiles();

private:
    QTemporaryDir m_dir;
    std::string path(const char *name) const
    {
        return m_dir.filePath(QString::fromLatin1(name)).toStdString();
    }
};

void TestIdxCifar::fashionMnistTrain()
{
    if (!std::filesystem::exists(kFashionDir + "/train-images-idx3-ubyte.gz"))
        QSKIP("Fashion-MNIST is not installed (package dataset-fashion-mnist)");
    // The directory form picks the training set.
    const IdxDataset dataset(kFashionDir);
    QCOMPARE(dataset.size(), 60000);
    QVERIFY(dataset.sampleShape() == (SampleShape{1, 28, 28}));

    std::array<int, 10> perClass{};
    std::vector<float> out(28 * 28);
    SampleContext context;
    float maxValue = 0.0f;
    for (std::int64_t i = 0; i < dataset.size(); ++i) {
        const auto label = dataset.load(i, std::as_writable_bytes(std::span(out)), context);
        QVERIFY(label >= 0 && label < 10);
        ++perClass[static_cast<std::size_t>(label)];
        if (i % 1000 == 0) {
            for (float v : out) {
                QVERIFY(v >= 0.0f && v <= 1.0f);
                maxValue = std::max(maxValue, v);
            }
        }
    }
    for (int count : perClass)
        QCOMPARE(count, 6000);
    QVERIFY(maxValue > 0.5f); // real images, not all black
    QVERIFY(context.timing.transformNs > 0);
}

void TestIdxCifar::fashionMnistTest()
{
    const std::string images = kFashionDir + "/t10k-images-idx3-ubyte.gz";
    if (!std::filesystem::exists(images))
        QSKIP("Fashion-MNIST is not installed (package dataset-fashion-mnist)");
    const IdxDataset dataset(images);
    QCOMPARE(dataset.size(), 10000);
    QVERIFY(dataset.sampleShape() == (SampleShape{1, 28, 28}));
    QCOMPARE(dataset.labelsPath(), kFashionDir + "/t10k-labels-idx1-ubyte.gz");
}

void TestIdxCifar::smallIdxRawAndGzip()
{
    const int count = 5, rows = 3, cols = 4;
    writeRaw(path("raw-images-idx3-ubyte"), idxImages(count, rows, cols));
    writeRaw(path("raw-labels-idx1-ubyte"), idxLabels(count));
    QDir(m_dir.path()).mkdir(QStringLiteral("gz"));
    writeGzip(path("gz/train-images-idx3-ubyte.gz"), idxImages(count, rows, cols));
    writeGzip(path("gz/train-labels-idx1-ubyte.gz"), idxLabels(count));

    const IdxDataset raw(path("raw-images-idx3-ubyte"));
    const IdxDataset gz(path("gz"));
    for (const IdxDataset *dataset : {&raw, &gz}) {
        QCOMPARE(dataset->size(), count);
        QVERIFY(dataset->sampleShape() == (SampleShape{1, rows, cols}));
        for (int n = 0; n < count; ++n) {
            std::int64_t label = -1;
            const auto values = loadSample(*dataset, n, label);
            QCOMPARE(label, std::int64_t{(n * 3) % 10});
            for (int r = 0; r < rows; ++r) {
                for (int c = 0; c < cols; ++c) {
                    const float expected = static_cast<float>(idxPixel(n, r, c)) / 255.0f;
                    QCOMPARE(values[static_cast<std::size_t>(r * cols + c)], expected);
                }
            }
        }
    }
}

void TestIdxCifar::truncatedIdxNamesTheFile()
{
    auto images = idxImages(4, 5, 5);
    images.resize(images.size() - 3);
    writeRaw(path("cut-images-idx3-ubyte"), images);
    writeRaw(path("cut-labels-idx1-ubyte"), idxLabels(4));
    const std::string rawFile = path("cut-images-idx3-ubyte");
    expectErrorNaming(rawFile, [&] { IdxDataset{rawFile}; });

    // A gzip stream cut short.
    writeGzip(path("cutgz-images-idx3-ubyte.gz"), idxImages(40, 10, 10));
    writeGzip(path("cutgz-labels-idx1-ubyte.gz"), idxLabels(40));
    const std::string gzFile = path("cutgz-images-idx3-ubyte.gz");
    std::filesystem::resize_file(gzFile, std::filesystem::file_size(gzFile) / 2);
    expectErrorNaming(gzFile, [&] { IdxDataset{gzFile}; });
}

void TestIdxCifar::badIdxHeaders()
{
    // Labels file with the images magic.
    writeRaw(path("mix-images-idx3-ubyte"), idxImages(3, 2, 2));
    auto labels = idxLabels(3);
    labels[3] = 0x03;
    writeRaw(path("mix-labels-idx1-ubyte"), labels);
    const std::string labelsFile = path("mix-labels-idx1-ubyte");
    expectErrorNaming(labelsFile, [&] { IdxDataset{path("mix-images-idx3-ubyte")}; });

    // Counts that do not match.
    writeRaw(path("count-images-idx3-ubyte"), idxImages(3, 2, 2));
    writeRaw(path("count-labels-idx1-ubyte"), idxLabels(4));
    expectErrorNaming(path("count-labels-idx1-ubyte"),
                      [&] { IdxDataset{path("count-images-idx3-ubyte")}; });

    // No labels file next to the images.
    writeRaw(path("lonely-images-idx3-ubyte"), idxImages(3, 2, 2));
    expectErrorNaming(path("lonely-labels-idx1-ubyte"),
                      [&] { IdxDataset{path("lonely-images-idx3-ubyte")}; });
}

void TestIdxCifar::cifarRecords()
{
    const std::string file = path("seven.bin");
    writeCifar(file, 0, 7);
    const Cifar10Dataset dataset(file);
    QCOMPARE(dataset.size(), 7);
    QVERIFY(dataset.sampleShape() == (SampleShape{3, 32, 32}));
    for (int r = 0; r < 7; ++r) {
        std::int64_t label = -1;
        const auto values = loadSample(dataset, r, label);
        QCOMPARE(label, std::int64_t{cifarLabel(r)});
        for (auto [ch, y, x] : {std::array{0, 0, 0}, std::array{0, 31, 31}, std::array{1, 3, 17},
                                std::array{2, 0, 5}, std::array{2, 31, 0}}) {
            const float expected = static_cast<float>(cifarByte(r, ch, y, x)) / 255.0f;
            QCOMPARE(values[static_cast<std::size_t>(ch * 1024 + y * 32 + x)], expected);
        }
    }
}

void TestIdxCifar::cifarDirectoryOrder()
{
    QDir(m_dir.path()).mkpath(QStringLiteral("cifar/cifar-10-batches-bin"));
    // Batches 1 and 3 only, written out of order: records follow the batch numbers.
    writeCifar(path("cifar/cifar-10-batches-bin/data_batch_3.bin"), 4, 2);
    writeCifar(path("cifar/cifar-10-batches-bin/data_batch_1.bin"), 0, 4);
    writeCifar(path("cifar/cifar-10-batches-bin/test_batch.bin"), 100, 3);
    const Cifar10Dataset train(path("cifar"));
    QCOMPARE(train.size(), 6);
    QCOMPARE(train.files().size(), std::size_t{2});
    std::int64_t label = -1;
    const auto values = loadSample(train, 5, label);
    QCOMPARE(label, std::int64_t{cifarLabel(5)});
    QCOMPARE(values[1024 + 64 + 2], static_cast<float>(cifarByte(5, 1, 2, 2)) / 255.0f);

    // With no training batches, the test batch is used.
    QDir(m_dir.path()).mkpath(QStringLiteral("cifartest"));
    writeCifar(path("cifartest/test_batch.bin"), 100, 3);
    const Cifar10Dataset test(path("cifartest"));
    QCOMPARE(test.size(), 3);
    loadSample(test, 2, label);
    QCOMPARE(label, std::int64_t{cifarLabel(102)});

    QDir(m_dir.path()).mkpath(QStringLiteral("empty"));
    expectErrorNaming(path("empty"), [&] { Cifar10Dataset{path("empty")}; });
}

void TestIdxCifar::cifarBadFiles()
{
    const std::string file = path("odd.bin");
    writeCifar(file, 0, 3);
    std::filesystem::resize_file(file, 3 * 3073 - 10);
    expectErrorNaming(file, [&] { Cifar10Dataset{file}; });

    // A bad file inside a directory is named, not the directory.
    QDir(m_dir.path()).mkpath(QStringLiteral("badcifar"));
    writeCifar(path("badcifar/data_batch_1.bin"), 0, 2);
    writeCifar(path("badcifar/data_batch_2.bin"), 0, 2);
    std::filesystem::resize_file(path("badcifar/data_batch_2.bin"), 3073 + 1);
    expectErrorNaming(path("badcifar/data_batch_2.bin"), [&] { Cifar10Dataset{path("badcifar")}; });

    const std::string labelFile = path("label.bin");
    std::vector<std::uint8_t> record(3073, 0);
    record[0] = 10;
    writeRaw(labelFile, record);
    expectErrorNaming(labelFile, [&] { Cifar10Dataset{labelFile}; });
}

LOADERLAB_GUILESS_TEST_MAIN(TestIdxCifar)
#include "test_idx_cifar.moc"
