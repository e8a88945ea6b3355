// Tests for the tensor file format: round trips through TensorFileWriter and
// TensorFileDataset, and the errors for truncated, corrupt and unfinished files.

#include "core/dataset/tensor_file_dataset.h"
#include "core/dataset/tensor_file_format.h"
#include "tests/support/test_main.h"

#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

using namespace loaderlab;

namespace {

// The float value written for element `i` of sample `s`: distinct everywhere.
float floatValue(int s, int i)
{
    return static_cast<float>(s) * 1000.0f + static_cast<float>(i) * 0.25f - 3.0f;
}

std::uint8_t byteValue(int s, int i)
{
    return static_cast<std::uint8_t>((s * 31 + i * 7) % 256);
}

void writeFloatFile(const std::string &path, SampleShape shape, int samples)
{
    TensorFileWriter writer(path, DType::Float32, shape);
    std::vector<float> sample(static_cast<std::size_t>(shape.elements()));
    for (int s = 0; s < samples; ++s) {
        for (std::size_t i = 0; i < sample.size(); ++i)
            sample[i] = floatValue(s, static_cast<int>(i));
        writer.append(100 + s * 3, std::as_bytes(std::span(sample)));
    }
    writer.finish();
}

std::vector<char> readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeAll(const std::string &path, const std::vector<char> &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

} // namespace

class TestTensorFile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void floatRoundTrip();
    void uint8RoundTrip();
    void headerAndFileSize();
    void truncatedFileNamesTheFile();
    void badMagicIsRejected();
    void recordSizeMismatchIsRejected();
    void unfinishedWriterLeavesNoFile();
    void unfinishedWriterKeepsExistingFile();
    void wrongSampleSizeIsRejected();

private:
    QTemporaryDir m_dir;
    std::string path(const char *name) const
    {
        return m_dir.filePath(QString::fromLatin1(name)).toStdString();
    }
};

void TestTensorFile::floatRoundTrip()
{
    const SampleShape shape{3, 4, 5};
    const std::string file = path("float.lltensor");
    writeFloatFile(file, shape, 6);

    TensorFileDataset dataset(file);
    QCOMPARE(dataset.size(), 6);
    QCOMPARE(dataset.dtype(), DType::Float32);
    QVERIFY(dataset.sampleShape() == shape);
    QCOMPARE(dataset.sampleBytes(), std::size_t{3 * 4 * 5 * 4});

    std::vector<float> out(static_cast<std::size_t>(shape.elements()));
    SampleContext context;
    // Out of order, to show records are addressed by index and not read sequentially.
    for (int s : {5, 0, 3, 1, 4, 2}) {
        const auto label = dataset.load(s, std::as_writable_bytes(std::span(out)), context);
        QCOMPARE(label, std::int64_t{100 + s * 3});
        for (std::size_t i = 0; i < out.size(); ++i)
            QCOMPARE(out[i], floatValue(s, static_cast<int>(i)));
    }
    QVERIFY(context.timing.readNs > 0);
}

void TestTensorFile::uint8RoundTrip()
{
    const SampleShape shape{1, 7, 3};
    const std::string file = path("bytes.lltensor");
    {
        TensorFileWriter writer(file, DType::UInt8, shape);
        std::vector<std::uint8_t> sample(21);
        for (int s = 0; s < 4; ++s) {
            for (std::size_t i = 0; i < sample.size(); ++i)
                sample[i] = byteValue(s, static_cast<int>(i));
            writer.append(-s, std::as_bytes(std::span(sample)));
        }
        QCOMPARE(writer.count(), std::uint64_t{4});
        writer.finish();
    }

    TensorFileDataset dataset(file);
    QCOMPARE(dataset.size(), 4);
    QCOMPARE(dataset.dtype(), DType::UInt8);
    QCOMPARE(dataset.sampleBytes(), std::size_t{21});
    std::vector<std::uint8_t> out(21);
    SampleContext context;
    for (int s = 3; s >= 0; --s) {
        const auto label = dataset.load(s, std::as_writable_bytes(std::span(out)), context);
        QCOMPARE(label, std::int64_t{-s});
        for (std::size_t i = 0; i < out.size(); ++i)
            QCOMPARE(out[i], byteValue(s, static_cast<int>(i)));
    }
}

void TestTensorFile::headerAndFileSize()
{
    const std::string file = path("header.lltensor");
    writeFloatFile(file, {2, 3, 4}, 5);
    const TensorFileHeader header = readTensorFileHeader(file);
    QCOMPARE(header.count, std::uint64_t{5});
    QCOMPARE(header.recordBytes(), std::uint64_t{8 + 2 * 3 * 4 * 4});
    // Size computed from the documented layout, not from the header class.
    QCOMPARE(std::filesystem::file_size(file), std::uintmax_t{64 + 5 * (8 + 96)});
    const std::vector<char> bytes = readAll(file);
    QCOMPARE(std::string(bytes.data(), 8), std::string("LLTENSOR"));
    std::int64_t firstLabel = 0;
    std::memcpy(&firstLabel, bytes.data() + 64, sizeof(firstLabel));
    QCOMPARE(firstLabel, std::int64_t{100});
}

void TestTensorFile::truncatedFileNamesTheFile()
{
    const std::string file = path("truncated.lltensor");
    writeFloatFile(file, {3, 8, 8}, 4);
    std::filesystem::resize_file(file, std::filesystem::file_size(file) - 5);
    try {
        TensorFileDataset dataset(file);
        QFAIL("a truncated file was accepted");
    } catch (const DatasetError &error) {
        const std::string message = error.what();
        QVERIFY2(message.find(file) != std::string::npos, error.what());
        // The reason gives the actual size.
        const auto actual = std::to_string(std::filesystem::file_size(file));
        QVERIFY2(message.find(actual) != std::string::npos, error.what());
    }
}

void TestTensorFile::badMagicIsRejected()
{
    const std::string file = path("magic.lltensor");
    writeFloatFile(file, {1, 2, 2}, 2);
    std::vector<char> bytes = readAll(file);
    bytes[0] = 'X';
    writeAll(file, bytes);
    try {
        readTensorFileHeader(file);
        QFAIL("a bad magic was accepted");
    } catch (const DatasetError &error) {
        const std::string message = error.what();
        QVERIFY2(message.find(file) != std::string::npos, error.what());
        QVERIFY2(message.find("magic") != std::string::npos, error.what());
    }
    QVERIFY_THROWS_EXCEPTION(DatasetError, TensorFileDataset{file});
}

void TestTensorFile::recordSizeMismatchIsRejected()
{
    const std::string file = path("record.lltensor");
    writeFloatFile(file, {1, 2, 2}, 2);
    std::vector<char> bytes = readAll(file);
    bytes[16] = 2; // channels 1 -> 2: the record size no longer matches
    writeAll(file, bytes);
    QVERIFY_THROWS_EXCEPTION(DatasetError, readTensorFileHeader(file));

    const std::string tiny = path("tiny.lltensor");
    writeAll(tiny, std::vector<char>(10, 'L'));
    QVERIFY_THROWS_EXCEPTION(DatasetError, readTensorFileHeader(tiny));
}

void TestTensorFile::unfinishedWriterLeavesNoFile()
{
    const std::string file = path("unfinished.lltensor");
    {
        TensorFileWriter writer(file, DType::UInt8, {1, 2, 2});
        const std::vector<std::byte> sample(4, std::byte{7});
        writer.append(1, sample);
        QVERIFY(std::filesystem::exists(file + ".part"));
    }
    QVERIFY(!std::filesystem::exists(file));
    QVERIFY(!std::filesystem::exists(file + ".part"));
}

void TestTensorFile::unfinishedWriterKeepsExistingFile()
{
    const std::string file = path("keep.lltensor");
    writeFloatFile(file, {1, 3, 3}, 3);
    const std::vector<char> before = readAll(file);
    {
        TensorFileWriter writer(file, DType::UInt8, {1, 1, 1});
        const std::vector<std::byte> sample(1, std::byte{1});
        writer.append(9, sample);
    }
    QCOMPARE(readAll(file), before);
    QVERIFY(!std::filesystem::exists(file + ".part"));
    TensorFileDataset dataset(file);
    QCOMPARE(dataset.size(), 3);
}

void TestTensorFile::wrongSampleSizeIsRejected()
{
    const std::string file = path("wrong.lltensor");
    TensorFileWriter writer(file, DType::Float32, {1, 2, 2});
    const std::vector<std::byte> sample(15);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, writer.append(0, sample));
    QCOMPARE(writer.count(), std::uint64_t{0});
}

LOADERLAB_GUILESS_TEST_MAIN(TestTensorFile)
#include "test_tensor_file.moc"
