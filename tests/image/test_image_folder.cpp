// Tests of ImageFolderDataset: torchvision's scan order and labels, folder errors,
// and the eval/train load output.

#include "core/image/image_folder_dataset.h"
#include "core/loader/loader.h"
#include "core/system/clock.h"
#include "tests/support/test_main.h"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <QtTest/QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <vector>

using namespace loaderlab;
namespace fs = std::filesystem;

namespace {

void writeFolderImage(const fs::path &path, const cv::Mat &bgr)
{
    fs::create_directories(path.parent_path());
    QVERIFY(cv::imwrite(path.string(), bgr));
}

// A smooth colour gradient, so different crops give different pixels.
cv::Mat gradient(int width, int height)
{
    cv::Mat img(height, width, CV_8UC3);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            img.at<cv::Vec3b>(y, x) = cv::Vec3b(static_cast<uchar>(x * 255 / width),
                                                static_cast<uchar>(y * 255 / height), 90);
    return img;
}

DatasetConfig imageFolderConfig(const QString &dir)
{
    DatasetConfig config;
    config.kind = DatasetKind::ImageFolder;
    config.path = dir.toStdString();
    config.resizeSize = 40;
    config.cropSize = 32;
    return config;
}

} // namespace

class TestImageFolder : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void scansLikeTorchvision()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const cv::Mat img = gradient(20, 20);
        writeFolderImage(root / "dog" / "b.png", img);
        writeFolderImage(root / "dog" / "A.JPG", img);
        writeFolderImage(root / "dog" / "sub" / "c.jpeg", img);
        writeFolderImage(root / "cat" / "z.jpg", img);
        std::ofstream(root / "cat" / "notes.txt") << "not an image";
        std::ofstream(root / "README.jpg.txt") << "top-level files are not classes";
        fs::create_directories(root / "empty");

        const ImageFolderDataset dataset(imageFolderConfig(dir.path()));
        QCOMPARE(dataset.classes(), (std::vector<std::string>{"cat", "dog", "empty"}));
        QCOMPARE(dataset.size(), std::int64_t{4});
        const auto &e = dataset.entries();
        // Sorted byte-wise as Python sorts: 'A' (0x41) before 'b'; subfolders after
        // the class folder's own files (os.walk order).
        QCOMPARE(e[0].path, (root / "cat" / "z.jpg").string());
        QCOMPARE(e[1].path, (root / "dog" / "A.JPG").string());
        QCOMPARE(e[2].path, (root / "dog" / "b.png").string());
        QCOMPARE(e[3].path, (root / "dog" / "sub" / "c.jpeg").string());
        QCOMPARE(e[0].label, std::int64_t{0});
        QCOMPARE(e[3].label, std::int64_t{1});
        QCOMPARE(dataset.sampleShape(), (SampleShape{3, 32, 32}));
        QCOMPARE(dataset.sampleBytes(), std::size_t{3 * 32 * 32 * 4});
    }

    void folderErrorsNameThePath()
    {
        QTemporaryDir dir;
        const QString missing = dir.path() + QStringLiteral("/missing");
        const QString file = dir.path() + QStringLiteral("/file.jpg");
        const QString noImages = dir.path() + QStringLiteral("/noimages");
        std::ofstream(file.toStdString()) << "x";
        fs::create_directories(noImages.toStdString() + "/cls");
        std::ofstream(noImages.toStdString() + "/cls/readme.txt") << "x";
        for (const QString &path : {missing, file, noImages}) {
            try {
                ImageFolderDataset dataset(imageFolderConfig(path));
                QFAIL("expected DatasetError");
            } catch (const DatasetError &e) {
                QVERIFY2(QString::fromStdString(e.what()).contains(path), e.what());
            }
        }
    }

    void evalLoadOfConstantImage()
    {
        // A constant PNG (lossless) stays constant through resize and crop, so every
        // output value is (v / 255 - mean) / std of its channel, computed here by hand.
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeFolderImage(root / "a" / "x.png", cv::Mat(50, 70, CV_8UC3, cv::Scalar(30, 20, 10)));
        writeFolderImage(root / "b" / "y.png", cv::Mat(50, 70, CV_8UC3, cv::Scalar(30, 20, 10)));
        const ImageFolderDataset dataset(imageFolderConfig(dir.path()));
        std::vector<float> out(3 * 32 * 32, -100.0f);
        SampleContext context;
        const std::int64_t label = dataset.load(1, std::as_writable_bytes(std::span(out)), context);
        QCOMPARE(label, std::int64_t{1});
        // OpenCV wrote BGR (30,20,10): the image is RGB (10,20,30).
        const float expected[3] = {(10 / 255.0f - 0.485f) / 0.229f, (20 / 255.0f - 0.456f) / 0.224f,
                                   (30 / 255.0f - 0.406f) / 0.225f};
        for (int c = 0; c < 3; ++c)
            for (int i = 0; i < 32 * 32; ++i)
                QVERIFY(qAbs(out[static_cast<std::size_t>(c * 32 * 32 + i)] - expected[c]) < 1e-5f);
    }

    void evalLoadCropsTheCentre()
    {
        // 40x80 PNG: the resize to 40 is the identity (short side already 40, so
        // 40x80), then crop 32 at left 4, top 24. A marker pixel at (x=4, y=24)
        // becomes output (0, 0).
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        cv::Mat img(80, 40, CV_8UC3, cv::Scalar(0, 0, 0));
        img.at<cv::Vec3b>(24, 4) = cv::Vec3b(0, 0, 255); // BGR: red
        writeFolderImage(root / "a" / "x.png", img);
        const ImageFolderDataset dataset(imageFolderConfig(dir.path()));
        std::vector<float> out(3 * 32 * 32);
        SampleContext context;
        dataset.load(0, std::as_writable_bytes(std::span(out)), context);
        const float red = (1.0f - 0.485f) / 0.229f;
        const float black = -0.485f / 0.229f;
        QVERIFY(qAbs(out[0] - red) < 1e-5f);
        QVERIFY(qAbs(out[1] - black) < 1e-5f);
        QVERIFY(qAbs(out[32] - black) < 1e-5f);
    }

    void trainLoadIsDeterministicPerSeedEpochIndex()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeFolderImage(root / "a" / "x.png", gradient(90, 70));
        DatasetConfig config = imageFolderConfig(dir.path());
        config.transform = TransformKind::Train;
        const ImageFolderDataset dataset(config);
        const auto load = [&](std::uint64_t seed, int epoch) {
            std::vector<float> out(3 * 32 * 32);
            SampleContext context{seed, epoch, {}};
            dataset.load(0, std::as_writable_bytes(std::span(out)), context);
            return out;
        };
        QCOMPARE(load(5, 0), load(5, 0));
        int different = 0;
        for (int epoch = 1; epoch <= 4; ++epoch)
            different += load(5, 0) == load(5, epoch) ? 0 : 1;
        QCOMPARE(different, 4);
    }

    void loadRejectsWrongBufferSize()
    {
        QTemporaryDir dir;
        writeFolderImage(fs::path(dir.path().toStdString()) / "a" / "x.png", gradient(40, 40));
        const ImageFolderDataset dataset(imageFolderConfig(dir.path()));
        std::vector<std::byte> small(100);
        SampleContext context;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, dataset.load(0, small, context));
    }

    void workersGiveTheSingleThreadSamples()
    {
        // Every worker keeps its own decoder, buffers and coefficient cache; run
        // under TSan this also checks that they share nothing. Mixed sizes, so the
        // per-thread caches see different coefficients in different orders.
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        std::mt19937 rng(3);
        for (int i = 0; i < 24; ++i) {
            const int w = 40 + static_cast<int>(rng() % 90);
            const int h = 40 + static_cast<int>(rng() % 90);
            writeFolderImage(root / (i % 2 ? "a" : "b") / ("img" + std::to_string(i) + ".jpg"),
                             gradient(w, h));
        }
        for (const DecodeMode decode : {DecodeMode::Exact, DecodeMode::Fast}) {
            DatasetConfig config = imageFolderConfig(dir.path());
            config.decode = decode;
            const auto dataset = std::make_shared<ImageFolderDataset>(config);
            const std::size_t bytes = dataset->sampleBytes();
            std::vector<std::byte> expected(bytes * static_cast<std::size_t>(dataset->size()));
            SampleContext context;
            for (std::int64_t i = 0; i < dataset->size(); ++i)
                dataset->load(
                    i, std::span(expected).subspan(static_cast<std::size_t>(i) * bytes, bytes),
                    context);
            LoaderConfig loaderConfig;
            loaderConfig.batchSize = 5;
            loaderConfig.numWorkers = 3;
            Loader loader(dataset, loaderConfig, steadyNowNs());
            loader.startEpoch(0);
            int seen = 0;
            while (BatchPtr batch = loader.next()) {
                for (int slot = 0; slot < batch->size(); ++slot) {
                    const auto index = static_cast<std::size_t>(
                        batch->sampleIndices[static_cast<std::size_t>(slot)]);
                    QVERIFY(
                        std::memcmp(batch->data().data() + static_cast<std::size_t>(slot) * bytes,
                                    expected.data() + index * bytes, bytes)
                        == 0);
                    ++seen;
                }
            }
            QCOMPARE(seen, 24);
        }
    }
};

LOADERLAB_GUILESS_TEST_MAIN(TestImageFolder)
#include "test_image_folder.moc"
