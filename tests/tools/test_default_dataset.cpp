// The default dataset generated once when two callers ask for it at the same time
// (a window and a CLI run starting together): one generates, the other waits and
// uses the result, and neither fails. Where the default folder lives.

#include "core/tools/default_dataset.h"
#include "tests/support/test_main.h"

#include <QtTest/QtTest>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

using namespace loaderlab;
namespace fs = std::filesystem;

class TestDefaultDataset : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theDefaultFolderLivesInTheCacheDirectory()
    {
        QTemporaryDir cache;
        QVERIFY(cache.isValid());
        ::setenv("LOADERLAB_CACHE_DIR", cache.path().toUtf8().constData(), 1);
        const std::string path = defaultImageFolderPath();
        ::unsetenv("LOADERLAB_CACHE_DIR");
        QCOMPARE(QString::fromStdString(path),
                 cache.path() + QStringLiteral("/imagenette-synth-10x100"));
    }

    // What ensureDefaultImageFolder() does for its 1,000 images, on 40 (the lock and
    // the waiting are the same; the generating takes 30 s under ASan at 1,000).
    void concurrentCallersShareOneGeneration()
    {
        QTemporaryDir cache;
        QVERIFY(cache.isValid());
        const std::string expected = cache.filePath(QStringLiteral("shared/folder")).toStdString();
        ImageFolderSpec spec;
        spec.classes = 4;
        spec.imagesPerClass = 10;
        spec.minShortSide = 64;
        spec.maxShortSide = 96;

        // Two separate callers on two threads: the lock is flock() on a lock file that
        // each call opens itself, so they exclude each other exactly as two processes do.
        std::string results[2];
        std::string errors[2];
        std::atomic<int> progressCalls[2] = {0, 0};
        std::thread threads[2];
        for (int i = 0; i < 2; ++i) {
            threads[i] = std::thread([&, i] {
                try {
                    results[i] = ensureImageFolder(
                        expected, spec, [&, i](std::int64_t, std::int64_t) { ++progressCalls[i]; });
                } catch (const std::exception &e) {
                    errors[i] = e.what();
                }
            });
        }
        for (std::thread &thread : threads)
            thread.join();

        for (int i = 0; i < 2; ++i) {
            QVERIFY2(errors[i].empty(), errors[i].c_str());
            QCOMPARE(results[i], expected);
        }
        // Exactly one of them generated (40 progress steps), the other only waited.
        QCOMPARE(progressCalls[0] + progressCalls[1], 40);
        QVERIFY(progressCalls[0] == 0 || progressCalls[1] == 0);

        std::size_t images = 0;
        for (const auto &entry : fs::recursive_directory_iterator(expected)) {
            if (entry.is_regular_file())
                ++images;
        }
        QCOMPARE(images, std::size_t{40});
        QVERIFY(!fs::exists(expected + ".part"));
        // A third caller finds the folder and generates nothing.
        int later = 0;
        QCOMPARE(ensureImageFolder(expected, spec, [&](std::int64_t, std::int64_t) { ++later; }),
                 expected);
        QCOMPARE(later, 0);
    }
};

LOADERLAB_GUILESS_TEST_MAIN(TestDefaultDataset)
#include "test_default_dataset.moc"
