// Settings that would exhaust memory, refused by the real binary with exit code 2
// and a message naming the setting. Every child runs with its address space
// limited to 2 GiB (RLIMIT_AS), so a regression ends in a failed allocation in
// that child instead of taking the machine down.

#include "cli_process.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <zlib.h>

#include <fstream>
#include <string>

#include <sys/resource.h>

namespace {

constexpr rlim_t kChildAddressSpace = rlim_t{2} << 30;

using clitest::Result;

// A regression must fail with bad_alloc in the child, not take the machine down.
Result runLimited(const QStringList &arguments, int timeoutMs = 120'000)
{
    return clitest::runLoaderlab(arguments, timeoutMs, [] {
        const rlimit limit{kChildAddressSpace, kChildAddressSpace};
        setrlimit(RLIMIT_AS, &limit);
    });
}

QStringList runArgs(std::initializer_list<const char *> args)
{
    QStringList list{QStringLiteral("run"), QStringLiteral("--quiet")};
    for (const char *arg : args)
        list << QString::fromUtf8(arg);
    return list;
}

// One gzip member holding `data`; gzip readers (zlib's gzread too) read a file of
// several members as their concatenation.
std::string gzipMember(const std::string &data)
{
    z_stream stream{};
    if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY)
        != Z_OK)
        return {};
    std::string out(deflateBound(&stream, static_cast<uLong>(data.size())), '\0');
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
    stream.avail_in = static_cast<uInt>(data.size());
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    const int status = deflate(&stream, Z_FINISH);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    return status == Z_STREAM_END ? out : std::string();
}

std::string bigEndian(std::initializer_list<std::uint32_t> fields)
{
    std::string bytes;
    for (const std::uint32_t field : fields) {
        for (int shift = 24; shift >= 0; shift -= 8)
            bytes.push_back(static_cast<char>((field >> shift) & 0xFF));
    }
    return bytes;
}

} // namespace

class TestCliMemory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void defaultRunIsNotRefused();
    void hugeSyntheticShapeIsRefused();
    void overflowingSyntheticShapeIsRefused();
    void hugeBatchSizeIsRefused();
    void manyWorkersWithDeepPrefetchAreRefused();
    void imageFolderResizeAndCropAreRefused();
    void smallIdxGzipDeclaringHugeImagesIsRefused();
    void tensorFileTooLargeToGenerateIsRefused();
    void memoryBudgetOptionLowersTheBudget();
    void memoryBudgetOverTheMemoryIsClamped();
    void tooManyThreadsAreRefusedBeforeStart();

private:
    QTemporaryDir m_dir;
    QString m_folder;
};

void TestCliMemory::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_folder = m_dir.filePath(QStringLiteral("images"));
    const Result made = runLimited({QStringLiteral("make-dataset"), m_folder,
                                    QStringLiteral("--classes"), QStringLiteral("2"),
                                    QStringLiteral("--images-per-class"), QStringLiteral("1"),
                                    QStringLiteral("--min-side"), QStringLiteral("32")});
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));
}

void TestCliMemory::defaultRunIsNotRefused()
{
    const Result r = runLimited(runArgs({"--batches", "3"}));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
}

void TestCliMemory::hugeSyntheticShapeIsRefused()
{
    const Result r = runLimited(runArgs({"--shape", "3x4000x4000"}));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(
        r.err.contains(QStringLiteral("dataset.synthetic_shape 3x4000x4000: the run needs about")),
        qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("memory budget")), qPrintable(r.err));
}

void TestCliMemory::overflowingSyntheticShapeIsRefused()
{
    const Result r = runLimited(runArgs({"--shape", "3x100000x100000"}));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("dataset.synthetic_shape 3x100000x100000: ")),
             qPrintable(r.err));
}

void TestCliMemory::hugeBatchSizeIsRefused()
{
    const Result r = runLimited(runArgs({"--batch-size", "100000000"}));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("loader.batch_size 100000000: ")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("54.8 TiB per batch x 5 in flight")), qPrintable(r.err));
}

void TestCliMemory::manyWorkersWithDeepPrefetchAreRefused()
{
    const Result r = runLimited(runArgs({"--workers", "64", "--prefetch", "1000"}));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(
        r.err.contains(QStringLiteral("loader.num_workers 64 x loader.prefetch_factor 1000: ")),
        qPrintable(r.err));
}

void TestCliMemory::imageFolderResizeAndCropAreRefused()
{
    for (const char *setting : {"resize", "crop"}) {
        const QString config = m_dir.filePath(
            QStringLiteral("%1.json").arg(QLatin1String(setting)));
        {
            std::ofstream out(config.toStdString());
            out << R"({"dataset": {"kind": "folder", "path": ")" << m_folder.toStdString()
                << R"(", ")" << setting << R"(": 20000}})"; // in range, over the pixel guard
        }
        const Result r = runLimited(
            {QStringLiteral("run"), QStringLiteral("--quiet"), QStringLiteral("--config"), config});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("dataset.%1 20000: ").arg(QLatin1String(setting))),
                 qPrintable(r.err));
    }
}

void TestCliMemory::smallIdxGzipDeclaringHugeImagesIsRefused()
{
    // A complete, valid IDX file: 16 images of 16384x16384 zeros (4 GiB), gzipped
    // into about 4 MB as one header member and 4096 members of 1 MiB of zeros.
    const QString dir = m_dir.filePath(QStringLiteral("idx"));
    QVERIFY(QDir().mkpath(dir));
    const std::string images = (dir + QStringLiteral("/train-images-idx3-ubyte.gz")).toStdString();
    {
        std::ofstream out(images, std::ios::binary);
        out << gzipMember(bigEndian({0x00000803, 16, 16384, 16384}));
        const std::string zeros = gzipMember(std::string(std::size_t{1} << 20, '\0'));
        QVERIFY(!zeros.empty());
        for (int i = 0; i < 4096; ++i)
            out << zeros;
    }
    {
        std::ofstream out((dir + QStringLiteral("/train-labels-idx1-ubyte.gz")).toStdString(),
                          std::ios::binary);
        out << gzipMember(bigEndian({0x00000801, 16}) + std::string(16, '\0'));
    }
    QVERIFY(QFileInfo(QString::fromStdString(images)).size() < 8'000'000);

    const Result r = runLimited({QStringLiteral("run"), QStringLiteral("--quiet"),
                                 QStringLiteral("--dataset"), QStringLiteral("idx"),
                                 QStringLiteral("--path"), dir});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QString::fromStdString(images)), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("memory budget")), qPrintable(r.err));
}

void TestCliMemory::tensorFileTooLargeToGenerateIsRefused()
{
    const QString out = m_dir.filePath(QStringLiteral("huge.tensor"));
    Result r = runLimited({QStringLiteral("make-dataset"), out, QStringLiteral("--kind"),
                           QStringLiteral("tensor"), QStringLiteral("--shape"),
                           QStringLiteral("3x65536x65536")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("shape 3x65536x65536 float32 needs about 96.0 GiB")),
             qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out));
    QVERIFY(!QFileInfo::exists(out + QStringLiteral(".part")));

    // Larger than any disk: refused before anything is written.
    r = runLimited({QStringLiteral("make-dataset"), out, QStringLiteral("--kind"),
                    QStringLiteral("tensor"), QStringLiteral("--shape"),
                    QStringLiteral("3x1024x1024"), QStringLiteral("--count"),
                    QStringLiteral("2000000000")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("free in")), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out + QStringLiteral(".part")));
}

void TestCliMemory::memoryBudgetOptionLowersTheBudget()
{
    // The default run needs about 129 MiB: a budget of 64 MiB refuses it.
    const Result r = runLimited(runArgs({"--memory-budget", "64"}));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("over the memory budget of 64.0 MiB")),
             qPrintable(r.err));
}

void TestCliMemory::memoryBudgetOverTheMemoryIsClamped()
{
    // 10^15 MiB is accepted by the option's range but is more than any machine has:
    // the budget becomes the 2 GiB this child can use (its RLIMIT_AS), with a
    // warning, so batches of 1000 x 3x224x224 float32 (2.8 GiB in flight) are refused
    // instead of being allocated.
    const Result r = runLimited(
        runArgs({"--memory-budget", "1000000000000000", "--batch-size", "1000"}));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("memory budget 1000000000000000 MiB (--memory-budget, "
                                           "memory_budget_mb) is more than the 2.0 GiB this "
                                           "process can use (the address-space limit (ulimit "
                                           "-v)): using 2.0 GiB")),
             qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("loader.batch_size 1000: the run needs about")),
             qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("over the memory budget of 2.0 GiB")),
             qPrintable(r.err));
    // Said once, although the budget is checked before and after the dataset opens.
    QCOMPARE(r.err.count(QStringLiteral("is more than the")), 1);
}

void TestCliMemory::tooManyThreadsAreRefusedBeforeStart()
{
    // Tiny samples, so the memory estimate lets it through: 64 devices x 1025
    // threads would only fail once the threads are created.
    const Result r = runLimited(runArgs({"--devices", "64", "--workers", "1024", "--shape", "1x1x1",
                                         "--batch-size", "1", "--batches", "1"}));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("devices 64 with loader.num_workers 1024: the run "
                                           "would start 65603 threads, over the limit of ")),
             qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("Use fewer workers or fewer devices")),
             qPrintable(r.err));
    // Within the bound: runs.
    const Result ok = runLimited(runArgs({"--devices", "2", "--workers", "4", "--shape", "1x1x1",
                                          "--batch-size", "1", "--batches", "4"}));
    QVERIFY2(ok.exitCode == 0, qPrintable(ok.err));
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliMemory)
#include "test_cli_memory.moc"
