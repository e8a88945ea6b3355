// Image folders built to break the scan and the decoder: a FIFO named like an image,
// symlinks back up the tree that fan out, and preprocessing outputs that are inputs.

#include "core/image/image_decoder.h"
#include "core/image/image_folder_dataset.h"
#include "core/tools/preprocess.h"
#include "tests/support/test_main.h"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <QtTest/QtTest>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <set>
#include <string>

#include <sys/stat.h>

using namespace loaderlab;
namespace fs = std::filesystem;

namespace {

void writeImage(const fs::path &path)
{
    fs::create_directories(path.parent_path());
    QVERIFY(cv::imwrite(path.string(), cv::Mat(24, 24, CV_8UC3, cv::Scalar(10, 120, 200))));
}

DatasetConfig folderConfig(const fs::path &dir)
{
    DatasetConfig config;
    config.kind = DatasetKind::ImageFolder;
    config.path = dir.string();
    config.resizeSize = 20;
    config.cropSize = 16;
    return config;
}

// Runs `call` on another thread; if it is still busy after `seconds` (blocked on a
// FIFO, or lost in a scan that fans out), the process ends with a clear failure
// instead of hanging until ctest's timeout, since the thread cannot be cancelled.
template <typename Call>
auto within(int seconds, Call call)
{
    auto result = std::async(std::launch::async, call);
    if (result.wait_for(std::chrono::seconds(seconds)) != std::future_status::ready) {
        std::fprintf(stderr, "FAIL: still running after %d s\n", seconds);
        std::_Exit(1);
    }
    return result.get();
}

std::vector<char> readAll(const fs::path &path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

class TestHostileFolders : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void decoderRefusesAFifoWithoutWaiting()
    {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath(QStringLiteral("x.jpg")).toStdString();
        QVERIFY(::mkfifo(fifo.c_str(), 0644) == 0);
        const std::string error = within(20, [&]() -> std::string {
            try {
                std::vector<std::uint8_t> buffer;
                readImageFile(fifo, 1 << 20, buffer);
            } catch (const SampleError &e) {
                return e.what();
            }
            return {};
        });
        QVERIFY2(error.find(fifo) != std::string::npos, error.c_str());
        QVERIFY2(error.find("is a FIFO") != std::string::npos, error.c_str());
    }

    void scanLeavesOutAFifoNamedLikeAnImage()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeImage(root / "cat" / "a.jpg");
        writeImage(root / "cat" / "c.jpg");
        QVERIFY(::mkfifo((root / "cat" / "b.jpg").c_str(), 0644) == 0);
        const ImageFolderDataset dataset(folderConfig(root));
        QCOMPARE(dataset.size(), std::int64_t{2});
        QCOMPARE(dataset.entries()[0].path, (root / "cat" / "a.jpg").string());
        QCOMPARE(dataset.entries()[1].path, (root / "cat" / "c.jpg").string());
    }

    void symlinksUpTheTreeAreScannedOnce()
    {
        // b/up1..8 -> .. (the root): without remembering visited directories each
        // level multiplies the paths by 9, up to the depth cap (billions of them).
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeImage(root / "a" / "1.jpg");
        writeImage(root / "a" / "2.jpg");
        writeImage(root / "a" / "sub" / "3.jpg");
        writeImage(root / "b" / "4.jpg");
        writeImage(root / "b" / "5.jpg");
        for (int i = 1; i <= 8; ++i)
            fs::create_directory_symlink("..", root / "b" / ("up" + std::to_string(i)));
        fs::create_directory_symlink("..", root / "a" / "sub" / "loop");

        QElapsedTimer timer;
        timer.start();
        const auto entries = within(
            30, [&] { return ImageFolderDataset(folderConfig(root)).entries(); });
        qInfo("scan took %lld ms", static_cast<long long>(timer.elapsed()));

        QCOMPARE(entries.size(), std::size_t{5});
        std::set<std::string> paths;
        for (const ImageEntry &entry : entries)
            paths.insert(entry.path);
        QCOMPARE(paths.size(), std::size_t{5}); // each image once
        QCOMPARE(entries[0].path, (root / "a" / "1.jpg").string());
        QCOMPARE(entries[2].path, (root / "a" / "sub" / "3.jpg").string());
        QCOMPARE(entries[2].label, std::int64_t{0});
        QCOMPARE(entries[4].path, (root / "b" / "5.jpg").string());
        QCOMPARE(entries[4].label, std::int64_t{1});
    }

    void preprocessRefusesAnOutputThatIsAnInputImage()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeImage(root / "cat" / "a.jpg");
        writeImage(root / "cat" / "b.jpg");
        const fs::path image = root / "cat" / "b.jpg";
        const std::vector<char> before = readAll(image);
        const fs::path hardlink = root.parent_path() / (root.filename().string() + "-hard.tensor");
        fs::create_hard_link(image, hardlink);
        for (const fs::path &output : {image, hardlink}) {
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                     preprocessImageFolder(root.string(), output.string(), {}));
            QVERIFY(readAll(image) == before);
        }
        fs::remove(hardlink);
    }

    void preprocessChecksTheOutputBeforeDecoding()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        writeImage(root / "cat" / "a.jpg");
        const fs::path outDir = root / "cat" / "out";
        fs::create_directory(outDir);
        std::int64_t decoded = 0;
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            preprocessImageFolder(root.string(), outDir.string(), {},
                                  [&](std::int64_t done, std::int64_t) { decoded = done; }));
        QCOMPARE(decoded, std::int64_t{0});
    }
};

LOADERLAB_GUILESS_TEST_MAIN(TestHostileFolders)
#include "test_hostile_folders.moc"
