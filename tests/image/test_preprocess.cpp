// Tests of preprocessImageFolder: the tensor file holds exactly the eval
// pipeline's samples, in order, bad images are skipped and reported, and a failed
// run leaves an existing output file as it was.

#include "core/tools/preprocess.h"

#include "core/dataset/tensor_file_format.h"
#include "core/image/image_folder_dataset.h"
#include "tests/support/test_main.h"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <QtTest/QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

using namespace loaderlab;
namespace fs = std::filesystem;

namespace {

constexpr int kResize = 40;
constexpr int kCrop = 32;
constexpr std::size_t kElements = 3 * kCrop * kCrop;

std::vector<char> readPreprocessed(const std::string &path)
{
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// Record `i` of a tensor file: the label and the sample bytes.
std::int64_t recordAt(const std::vector<char> &file, std::size_t i, std::size_t sampleBytes,
                      void *sample)
{
    const std::size_t offset = kTensorFileHeaderBytes + i * (8 + sampleBytes);
    std::int64_t label = 0;
    std::memcpy(&label, file.data() + offset, 8);
    std::memcpy(sample, file.data() + offset + 8, sampleBytes);
    return label;
}

PreprocessOptions options(DType dtype)
{
    PreprocessOptions o;
    o.dtype = dtype;
    o.threads = 2;
    o.resizeSize = kResize;
    o.cropSize = kCrop;
    return o;
}

} // namespace

class TestPreprocess : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_input = m_dir.path().toStdString() + "/input";
        // 2 classes, 6 JPEGs of different sizes and one text file named .jpg.
        for (int i = 0; i < 6; ++i) {
            const fs::path cls = fs::path(m_input) / (i < 3 ? "ant" : "bee");
            fs::create_directories(cls);
            cv::Mat img(50 + i * 7, 60 + i * 5, CV_8UC3);
            cv::RNG(static_cast<std::uint64_t>(i)).fill(img, cv::RNG::UNIFORM, 0, 256);
            QVERIFY(cv::imwrite((cls / ("img" + std::to_string(i) + ".jpg")).string(), img));
        }
        m_badPath = m_input + "/ant/img1_broken.jpg";
        std::ofstream(m_badPath) << "not an image";
    }

    void float32MatchesEvalLoad()
    {
        const std::string output = m_dir.path().toStdString() + "/f32.tensor";
        std::vector<std::int64_t> progress;
        const PreprocessResult result = preprocessImageFolder(
            m_input, output, options(DType::Float32), [&](std::int64_t done, std::int64_t total) {
                QCOMPARE(total, std::int64_t{7});
                progress.push_back(done);
            });
        QCOMPARE(result.written, std::int64_t{6});
        QCOMPARE(result.skipped.size(), std::size_t{1});
        QCOMPARE(result.skipped[0].source, m_badPath);
        QVERIFY(result.skipped[0].reason.find("not a JPEG or PNG") != std::string::npos);
        QCOMPARE(progress, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7}));

        const TensorFileHeader header = readTensorFileHeader(output);
        QCOMPARE(header.count, std::uint64_t{6});
        QVERIFY(header.dtype == DType::Float32);
        QCOMPARE(header.shape, (SampleShape{3, kCrop, kCrop}));

        DatasetConfig config;
        config.kind = DatasetKind::ImageFolder;
        config.path = m_input;
        config.resizeSize = kResize;
        config.cropSize = kCrop;
        const ImageFolderDataset dataset(config);
        const std::vector<char> file = readPreprocessed(output);
        std::size_t record = 0;
        for (std::int64_t i = 0; i < dataset.size(); ++i) {
            if (dataset.entries()[static_cast<std::size_t>(i)].path == m_badPath)
                continue;
            std::vector<float> expected(kElements);
            SampleContext context;
            const std::int64_t label = dataset.load(i, std::as_writable_bytes(std::span(expected)),
                                                    context);
            std::vector<float> actual(kElements);
            QCOMPARE(recordAt(file, record++, kElements * 4, actual.data()), label);
            QCOMPARE(actual, expected);
        }
        QCOMPARE(record, std::size_t{6});
        QVERIFY(!fs::exists(output + ".part"));
    }

    void uint8IsTheUnnormalisedCrop()
    {
        // The uint8 file normalised by hand must equal the float32 file.
        const std::string f32 = m_dir.path().toStdString() + "/a.tensor";
        const std::string u8 = m_dir.path().toStdString() + "/b.tensor";
        preprocessImageFolder(m_input, f32, options(DType::Float32));
        const PreprocessResult result = preprocessImageFolder(m_input, u8, options(DType::UInt8));
        QCOMPARE(result.written, std::int64_t{6});
        QVERIFY(readTensorFileHeader(u8).dtype == DType::UInt8);
        const std::vector<char> floats = readPreprocessed(f32);
        const std::vector<char> bytes = readPreprocessed(u8);
        const float mean[3] = {0.485f, 0.456f, 0.406f};
        const float stddev[3] = {0.229f, 0.224f, 0.225f};
        for (std::size_t r = 0; r < 6; ++r) {
            std::vector<float> f(kElements);
            std::vector<std::uint8_t> u(kElements);
            QCOMPARE(recordAt(bytes, r, kElements, u.data()),
                     recordAt(floats, r, kElements * 4, f.data()));
            for (std::size_t i = 0; i < kElements; ++i) {
                const std::size_t c = i / (kCrop * kCrop);
                const float v = (static_cast<float>(u[i]) / 255.0f - mean[c]) / stddev[c];
                QVERIFY(qAbs(v - f[i]) < 1e-5f);
            }
        }
    }

    void unwritableOutputThrows()
    {
        // The parent of the output is a regular file: not even root can create it.
        const std::string blocker = m_dir.path().toStdString() + "/blocker";
        std::ofstream(blocker) << "keep me";
        QVERIFY_THROWS_EXCEPTION(
            std::runtime_error,
            preprocessImageFolder(m_input, blocker + "/out.tensor", options(DType::Float32)));
        QCOMPARE(readPreprocessed(blocker), (std::vector<char>{'k', 'e', 'e', 'p', ' ', 'm', 'e'}));
    }

    void failedRunLeavesExistingFileUntouched()
    {
        // An earlier run's tensor file, which a new run may replace.
        const std::string output = m_dir.path().toStdString() + "/existing.tensor";
        preprocessImageFolder(m_input, output, options(DType::UInt8));
        const std::vector<char> before = readPreprocessed(output);
        // A progress callback that throws interrupts the run midway.
        QVERIFY_THROWS_EXCEPTION(
            std::runtime_error, preprocessImageFolder(m_input, output, options(DType::Float32),
                                                      [](std::int64_t done, std::int64_t) {
                                                          if (done == 3)
                                                              throw std::runtime_error("cancelled");
                                                      }));
        QCOMPARE(readPreprocessed(output), before);
        QVERIFY(!fs::exists(output + ".part"));
    }

    void aFileLoaderLabDidNotWriteIsNeverReplaced()
    {
        const std::string output = m_dir.path().toStdString() + "/notes.tensor";
        std::ofstream(output) << "a user's file";
        const std::vector<char> before = readPreprocessed(output);
        try {
            preprocessImageFolder(m_input, output, options(DType::Float32));
            QFAIL("expected std::invalid_argument");
        } catch (const std::invalid_argument &e) {
            QVERIFY2(std::string(e.what()).find("not a file LoaderLab wrote") != std::string::npos,
                     e.what());
        }
        QCOMPARE(readPreprocessed(output), before);
        QVERIFY(!fs::exists(output + ".part"));
    }

    void badInputFolderThrowsDatasetError()
    {
        const std::string missing = m_dir.path().toStdString() + "/nope";
        try {
            preprocessImageFolder(missing, m_dir.path().toStdString() + "/x.tensor",
                                  options(DType::Float32));
            QFAIL("expected DatasetError");
        } catch (const DatasetError &e) {
            QVERIFY2(std::string(e.what()).find(missing) != std::string::npos, e.what());
        }
    }

private:
    QTemporaryDir m_dir;
    std::string m_input;
    std::string m_badPath;
};

LOADERLAB_GUILESS_TEST_MAIN(TestPreprocess)
#include "test_preprocess.moc"
