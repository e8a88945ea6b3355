// The run memory estimate and its refusals: values computed by hand here, the
// setting each refusal names, saturation instead of overflow, the IDX header and
// tensor-file checks. Nothing here allocates more than a few megabytes: every
// refusal is decided from settings and headers alone.

#include "core/dataset/idx_dataset.h"
#include "core/dataset/synthetic_dataset.h"
#include "core/dataset/tensor_file_format.h"
#include "core/memory/run_memory.h"
#include "core/system/memory_budget.h"
#include "core/tools/tensor_file_limits.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>

#include <sys/stat.h>

using namespace loaderlab;

namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;
constexpr std::int64_t kGiB = std::int64_t{1} << 30;

// The std::invalid_argument message of `f`, or "" when it throws nothing.
std::string refusal(const std::function<void()> &f)
{
    try {
        f();
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return {};
}

// A gzipped IDX images header (and nothing else) declaring count x rows x cols.
void writeIdxHeader(const std::string &path, std::uint32_t count, std::uint32_t rows,
                    std::uint32_t cols)
{
    std::array<unsigned char, 16> header{};
    const std::uint32_t fields[] = {0x00000803, count, rows, cols};
    for (std::size_t i = 0; i < 4; ++i) {
        for (std::size_t b = 0; b < 4; ++b)
            header[4 * i + b] = static_cast<unsigned char>(fields[i] >> (24 - 8 * b));
    }
    gzFile file = gzopen(path.c_str(), "wb");
    QVERIFY(file);
    QCOMPARE(gzwrite(file, header.data(), static_cast<unsigned>(header.size())), 16);
    QCOMPARE(gzclose(file), Z_OK);
}

// Writes `text` to `root`/`relative`, making the folders on the way.
void put(const QString &root, const std::string &relative, const std::string &text)
{
    const std::filesystem::path path = std::filesystem::path(root.toStdString()) / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

// A fake /proc (meminfo: 16 GiB total, `availableKiB` available) and /sys/fs/cgroup
// under a fresh folder of `dir`.
SystemRoots fakeRoots(const QTemporaryDir &dir, const QString &name,
                      std::int64_t availableKiB = 12 << 20)
{
    const QString root = dir.filePath(name);
    put(root, "proc/meminfo",
        "MemTotal:       16777216 kB\nMemFree:         1000000 kB\nMemAvailable:   "
            + std::to_string(availableKiB) + " kB\n");
    return {(root + QStringLiteral("/proc")).toStdString(),
            (root + QStringLiteral("/cgroup")).toStdString()};
}

} // namespace

class TestMemoryBudget : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void formatsBytes();
    void saturatesInsteadOfOverflowing();
    void defaultBudgetIsHalfOfUsableMemory();
    void cgroupV1LimitIsReadFromTheProcessesOwnCgroup();
    void cgroupV2MaxAndHighAreReadOnTheWayUp();
    void containerAndMissingFilesAreHandled();
    void budgetOverUsableMemoryIsClamped();
    void threadLimitFollowsTheSystem();
    void runThreadsAreCountedAndRefused();
    void estimateOfDefaultRunMatchesHandComputation();
    void pinMemoryAndNoWorkersCountTheirBuffers();
    void defaultRunIsNotRefused();
    void hugeBatchSizeIsRefusedNamingIt();
    void hugeShapeIsRefusedNamingIt();
    void overflowingShapeAndBatchAreRefused();
    void manyWorkersAndPrefetchAreRefusedNamingThem();
    void imageFolderResizeAndCropBeyondPixelGuardAreRefused();
    void idxHeaderIsJudgedBeforeInflating();
    void idxDatasetRefusesHeaderOverBudget();
    void openedDatasetGivesTheSameFootprint();
    void headersAreNotReadFromFifos();
    void tensorFileLimits();

private:
    QTemporaryDir m_dir;
};

void TestMemoryBudget::formatsBytes()
{
    QCOMPARE(formatBytes(512), std::string("512 B"));
    QCOMPARE(formatBytes(1536), std::string("1.5 KiB"));
    QCOMPARE(formatBytes(12 * kGiB), std::string("12.0 GiB"));
    QCOMPARE(formatBytes(300 * kGiB), std::string("300 GiB"));
    QCOMPARE(formatBytes(kBytesUnbounded), std::string("more than 8 EiB"));
}

void TestMemoryBudget::saturatesInsteadOfOverflowing()
{
    QCOMPARE(saturatingMul(std::int64_t{3} * 100000 * 100000 * 4, 100'000'000), kBytesUnbounded);
    QCOMPARE(saturatingAdd(kBytesUnbounded, 1), kBytesUnbounded);
    QCOMPARE(saturatingMul(6, 7), std::int64_t{42});
}

void TestMemoryBudget::defaultBudgetIsHalfOfUsableMemory()
{
    const std::int64_t usable = usableMemoryBytes();
    QVERIFY(usable > 0);
    QCOMPARE(usable, readMemoryLimits().usableBytes());
    QVERIFY(defaultMemoryBudgetBytes() <= usable / 2);
    QCOMPARE(memoryBudgetFromMegabytes(0), defaultMemoryBudgetBytes());
    QCOMPARE(memoryBudgetFromMegabytes(300), 300 * kMiB);
    // Half of the usable memory, lowered to MemAvailable.
    MemoryLimits limits;
    limits.totalBytes = 16 * kGiB;
    limits.availableBytes = 12 * kGiB;
    QCOMPARE(defaultMemoryBudgetBytes(limits), 8 * kGiB);
    limits.availableBytes = 5 * kGiB;
    QCOMPARE(defaultMemoryBudgetBytes(limits), 5 * kGiB);
    QCOMPARE(defaultMemoryBudgetBytes(MemoryLimits{}), 4 * kGiB); // nothing read
}

void TestMemoryBudget::cgroupV1LimitIsReadFromTheProcessesOwnCgroup()
{
    // As Slurm's task/cgroup lays out a job step on a cgroup v1 machine: the root has
    // no limit, the job 3 GiB, the step none of its own.
    const SystemRoots roots = fakeRoots(m_dir, QStringLiteral("v1"));
    const QString root = m_dir.filePath(QStringLiteral("v1"));
    put(root, "proc/self/cgroup",
        "12:pids:/slurm/uid_0/job_7/step_0\n5:cpuacct,cpu:/slurm/uid_0/job_7/step_0\n"
        "4:memory:/slurm/uid_0/job_7/step_0\n1:name=systemd:/init.scope\n0::/\n");
    put(root, "cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
    put(root, "cgroup/memory/slurm/memory.limit_in_bytes", "9223372036854771712\n");
    put(root, "cgroup/memory/slurm/uid_0/job_7/memory.limit_in_bytes", "3221225472\n");
    put(root, "cgroup/memory/slurm/uid_0/job_7/step_0/memory.limit_in_bytes",
        "9223372036854771712\n");
    put(root, "cgroup/memory/slurm/uid_0/job_7/step_0/memory.soft_limit_in_bytes", "1048576\n");
    const MemoryLimits limits = readMemoryLimits(roots);
    QCOMPARE(limits.totalBytes, 16 * kGiB);
    QCOMPARE(limits.availableBytes, 12 * kGiB);
    QCOMPARE(limits.cgroupMax.value, 3 * kGiB);
    QVERIFY2(limits.cgroupMax.source.ends_with("/slurm/uid_0/job_7/memory.limit_in_bytes"),
             limits.cgroupMax.source.c_str());
    QCOMPARE(limits.cgroupHigh.value, std::int64_t{0}); // v1 has no memory.high
    QCOMPARE(
        limits.usableBytes(),
        std::min(3 * kGiB, limits.addressSpace.value > 0 ? limits.addressSpace.value : 3 * kGiB));
    QCOMPARE(defaultMemoryBudgetBytes(limits), limits.usableBytes() / 2);
    // A tighter limit further down wins.
    put(root, "cgroup/memory/slurm/uid_0/job_7/step_0/memory.limit_in_bytes", "1073741824\n");
    QCOMPARE(readMemoryLimits(roots).cgroupMax.value, kGiB);
    // The memory controller in a hierarchy of several ("cpu,memory").
    const SystemRoots joint = fakeRoots(m_dir, QStringLiteral("joint"));
    const QString jointRoot = m_dir.filePath(QStringLiteral("joint"));
    put(jointRoot, "proc/self/cgroup", "3:memory,cpu:/job\n");
    put(jointRoot, "cgroup/cpu,memory/job/memory.limit_in_bytes", "2147483648\n");
    QCOMPARE(readMemoryLimits(joint).cgroupMax.value, 2 * kGiB);
}

void TestMemoryBudget::cgroupV2MaxAndHighAreReadOnTheWayUp()
{
    const SystemRoots roots = fakeRoots(m_dir, QStringLiteral("v2"));
    const QString root = m_dir.filePath(QStringLiteral("v2"));
    put(root, "proc/self/cgroup", "0::/system.slice/job.service/step\n");
    put(root, "cgroup/cgroup.controllers", "cpu memory pids\n");
    put(root, "cgroup/system.slice/memory.max", "max\n");
    put(root, "cgroup/system.slice/job.service/memory.max", "4294967296\n");
    put(root, "cgroup/system.slice/job.service/memory.high", "max\n");
    put(root, "cgroup/system.slice/job.service/step/memory.max", "max\n");
    put(root, "cgroup/system.slice/job.service/step/memory.high", "3221225472\n");
    const MemoryLimits limits = readMemoryLimits(roots);
    QCOMPARE(limits.cgroupMax.value, 4 * kGiB);
    QCOMPARE(limits.cgroupHigh.value, 3 * kGiB);
    QVERIFY2(limits.cgroupHigh.source.ends_with("/job.service/step/memory.high"),
             limits.cgroupHigh.source.c_str());
    if (limits.addressSpace.value == 0) {
        QCOMPARE(limits.usableBytes(), 3 * kGiB);
        QVERIFY2(limits.usableSource().find("memory.high") != std::string::npos,
                 limits.usableSource().c_str());
    }
}

void TestMemoryBudget::containerAndMissingFilesAreHandled()
{
    // Inside a container the v1 hierarchy is mounted at the container's own cgroup:
    // the path the process sees does not exist below the mount; its root file is
    // the container's limit.
    const SystemRoots roots = fakeRoots(m_dir, QStringLiteral("container"));
    const QString root = m_dir.filePath(QStringLiteral("container"));
    put(root, "proc/self/cgroup", "4:memory:/docker/0123abcd\n");
    put(root, "cgroup/memory/memory.limit_in_bytes", "536870912\n");
    QCOMPARE(readMemoryLimits(roots).cgroupMax.value, 512 * kMiB);
    // No cgroup file, no /proc/self/cgroup: MemTotal alone.
    const SystemRoots bare = fakeRoots(m_dir, QStringLiteral("bare"));
    const MemoryLimits limits = readMemoryLimits(bare);
    QCOMPARE(limits.cgroupMax.value, std::int64_t{0});
    QCOMPARE(limits.totalBytes, 16 * kGiB);
    // Garbage in a limit file is no limit, not a crash.
    put(root, "cgroup/memory/memory.limit_in_bytes", "lots\n");
    QCOMPARE(readMemoryLimits(roots).cgroupMax.value, std::int64_t{0});
    // Nothing at all.
    QCOMPARE(readMemoryLimits({"/nonexistent/proc", "/nonexistent/cgroup"}).totalBytes,
             std::int64_t{0});
}

void TestMemoryBudget::budgetOverUsableMemoryIsClamped()
{
    MemoryLimits limits;
    limits.totalBytes = 16 * kGiB;
    limits.cgroupMax = {3 * kGiB, "/sys/fs/cgroup/memory/job/memory.limit_in_bytes"};
    std::string warning;
    // 10^15 MiB, as the issue gave it: clamped to the cgroup's 3 GiB, and said so.
    QCOMPARE(memoryBudgetFromMegabytes(1'000'000'000'000'000, limits, &warning), 3 * kGiB);
    QVERIFY2(warning.find("is more than the 3.0 GiB this process can use (the cgroup limit "
                          "/sys/fs/cgroup/memory/job/memory.limit_in_bytes): using 3.0 GiB")
                 != std::string::npos,
             warning.c_str());
    warning.clear();
    QCOMPARE(memoryBudgetFromMegabytes(2048, limits, &warning), 2 * kGiB);
    QVERIFY(warning.empty());
    QCOMPARE(memoryBudgetFromMegabytes(0, limits, &warning), 3 * kGiB / 2);
    // The process's own: never more than its usable memory.
    QCOMPARE(memoryBudgetFromMegabytes(1'000'000'000'000'000), usableMemoryBytes());
}

void TestMemoryBudget::threadLimitFollowsTheSystem()
{
    const SystemRoots roots = fakeRoots(m_dir, QStringLiteral("threads"));
    const QString root = m_dir.filePath(QStringLiteral("threads"));
    SystemLimit limit = readThreadLimit(roots);
    QVERIFY(limit.value <= kMaxRunThreads && limit.value > 0);
    put(root, "proc/sys/kernel/threads-max", "1000\n");
    limit = readThreadLimit(roots);
    QVERIFY(limit.value <= 1000);
    put(root, "proc/self/cgroup", "0::/user.slice/job\n");
    put(root, "cgroup/cgroup.controllers", "memory pids\n");
    put(root, "cgroup/user.slice/pids.max", "300\n");
    put(root, "cgroup/user.slice/job/pids.max", "max\n");
    limit = readThreadLimit(roots);
    QVERIFY(limit.value <= 300);
    if (limit.value == 300)
        QVERIFY2(limit.source.ends_with("/user.slice/pids.max"), limit.source.c_str());
    QVERIFY(threadLimit().value > 0 && threadLimit().value <= kMaxRunThreads);
}

void TestMemoryBudget::runThreadsAreCountedAndRefused()
{
    RunConfig config;
    config.devices = 64;
    config.loader.numWorkers = 1024;
    const ThreadEstimate e = estimateRunThreads(config);
    QCOMPARE(e.total, std::int64_t{64 * (1024 + 1) + kRunHelperThreads});
    const std::string message = refusal([&] {
        checkRunThreads(config, {4096, "LoaderLab's bound of 4096"});
    });
    QVERIFY2(message.starts_with("devices 64 with loader.num_workers 1024: the run would start "
                                 "65603 threads, over the limit of 4096"),
             message.c_str());
    // checkRunMemory checks it too, before anything is opened.
    QVERIFY(!refusal([&] { checkRunMemory(config, kBytesUnbounded); }).empty());
    // Pin threads and a model's threads count.
    config.devices = 2;
    config.loader.numWorkers = 4;
    config.loader.pinMemory = true;
    config.consumer.kind = ConsumerKind::Model;
    config.consumer.model.threads = 8;
    QCOMPARE(estimateRunThreads(config).total, std::int64_t{2 * (4 + 1 + 1) + 8 + 3});
    QCOMPARE(refusal([&] { checkRunThreads(config, {23, "test"}); }), std::string());
    QVERIFY(!refusal([&] { checkRunThreads(config, {22, "test"}); }).empty());
    // One device at the workers' maximum is within the default bound.
    RunConfig one;
    one.loader.numWorkers = 1024;
    QCOMPARE(refusal([&] { checkRunThreads(one, {kMaxRunThreads, "bound"}); }), std::string());
}

void TestMemoryBudget::estimateOfDefaultRunMatchesHandComputation()
{
    const RunConfig config; // synthetic 3x224x224, 4096 samples, batch 32, 2 workers x 2
    const auto footprint = peekDatasetFootprint(config.dataset);
    QVERIFY(footprint);
    const MemoryEstimate e = estimateRunMemory(config.loader, *footprint);
    const std::int64_t sample = 3 * 224 * 224 * 4; // 602,112 bytes
    QCOMPARE(e.sampleBytes, sample);
    QCOMPARE(e.batchBytes, 32 * sample);
    QCOMPARE(e.batchesInFlight, std::int64_t{2 * 2 + 1});
    QCOMPARE(e.datasetBytes, 64 * sample); // the synthetic pool
    QCOMPARE(e.indexBytes, std::int64_t{4096 * 8});
    QCOMPARE(e.totalBytes, std::int64_t{134'905'856}); // 5 x 32 + 64 samples + order
}

void TestMemoryBudget::pinMemoryAndNoWorkersCountTheirBuffers()
{
    DatasetFootprint footprint;
    footprint.shape = {1, 10, 10};
    footprint.dtype = DType::UInt8;
    LoaderConfig loader;
    loader.batchSize = 4;
    loader.numWorkers = 3;
    loader.prefetchFactor = 5;
    loader.pinMemory = true;
    QCOMPARE(estimateRunMemory(loader, footprint).batchesInFlight, std::int64_t{(3 * 5 + 1) * 2});
    QCOMPARE(estimateRunMemory(loader, footprint).batchBuffersBytes, std::int64_t{32 * 400});
    loader.numWorkers = 0;
    loader.pinMemory = false;
    QCOMPARE(estimateRunMemory(loader, footprint).batchesInFlight, std::int64_t{1});
}

void TestMemoryBudget::defaultRunIsNotRefused()
{
    const RunConfig config;
    QCOMPARE(refusal([&] { checkRunMemory(config, defaultMemoryBudgetBytes()); }), std::string());
    // The same run against a budget below its estimate is refused.
    const std::string message = refusal([&] { checkRunMemory(config, 100 * kMiB); });
    QVERIFY2(message.find("memory budget of 100 MiB") != std::string::npos, message.c_str());
}

void TestMemoryBudget::hugeBatchSizeIsRefusedNamingIt()
{
    RunConfig config;
    config.loader.batchSize = 100'000'000;
    const std::string message = refusal([&] { checkRunMemory(config, 12 * kGiB); });
    QVERIFY2(message.starts_with("loader.batch_size 100000000: "), message.c_str());
    // 10^8 x 602,112 bytes = 54.8 TiB per batch, 5 in flight.
    QVERIFY2(message.find("54.8 TiB per batch x 5 in flight") != std::string::npos,
             message.c_str());
    QVERIFY2(message.find("over the memory budget of 12.0 GiB") != std::string::npos,
             message.c_str());
    QVERIFY2(message.find("--memory-budget") != std::string::npos, message.c_str());
}

void TestMemoryBudget::hugeShapeIsRefusedNamingIt()
{
    RunConfig config;
    config.dataset.syntheticShape = {3, 4000, 4000};
    const std::string message = refusal([&] { checkRunMemory(config, 12 * kGiB); });
    QVERIFY2(message.starts_with("dataset.synthetic_shape 3x4000x4000: "), message.c_str());
    // 5 batches of 32 + a pool of 64 samples of 192,000,000 bytes = 224 x 192e6 = 40 GiB.
    QVERIFY2(message.find("about 40.1 GiB of host memory") != std::string::npos, message.c_str());
}

void TestMemoryBudget::overflowingShapeAndBatchAreRefused()
{
    RunConfig config;
    config.dataset.syntheticShape = {3, 100000, 100000};
    config.loader.batchSize = 100'000'000;
    const auto footprint = peekDatasetFootprint(config.dataset);
    QVERIFY(footprint);
    QCOMPARE(estimateRunMemory(config.loader, *footprint).totalBytes, kBytesUnbounded);
    const std::string message = refusal([&] { checkRunMemory(config, kBytesUnbounded - 1); });
    QVERIFY2(message.find("more than 8 EiB") != std::string::npos, message.c_str());
}

void TestMemoryBudget::manyWorkersAndPrefetchAreRefusedNamingThem()
{
    RunConfig config;
    config.loader.numWorkers = 64;
    config.loader.prefetchFactor = 1000;
    const std::string message = refusal([&] { checkRunMemory(config, 12 * kGiB); });
    QVERIFY2(message.starts_with("loader.num_workers 64 x loader.prefetch_factor 1000: "),
             message.c_str());
    QVERIFY2(message.find("x 64001 in flight") != std::string::npos, message.c_str());
}

void TestMemoryBudget::imageFolderResizeAndCropBeyondPixelGuardAreRefused()
{
    RunConfig config;
    config.dataset.kind = DatasetKind::ImageFolder;
    config.dataset.path = "/nonexistent/images"; // refused before the folder is looked at
    config.dataset.resizeSize = 100000;
    std::string message = refusal([&] { checkRunMemory(config, 12 * kGiB); });
    QVERIFY2(message.starts_with("dataset.resize 100000: "), message.c_str());
    QVERIFY2(message.find("dataset.max_image_pixels 178956970") != std::string::npos,
             message.c_str());

    config.dataset.resizeSize = 256;
    config.dataset.cropSize = 100000;
    message = refusal([&] { checkRunMemory(config, 12 * kGiB); });
    QVERIFY2(message.starts_with("dataset.crop 100000: "), message.c_str());

    // The largest side the guard allows passes that check; its batches are judged by size.
    config.dataset.cropSize = 13000;
    config.dataset.resizeSize = 13000;
    message = refusal([&] { checkRunMemory(config, 12 * kGiB); });
    QVERIFY2(message.starts_with("dataset.crop 13000: the run needs"), message.c_str());

    // The guard is the image transform's: the kinds it applies to have it, the others
    // ignore the resize (their runs fail later, at the missing path).
    config.dataset.resizeSize = 100000;
    config.dataset.cropSize = 224;
    for (const DatasetKindInfo &kind : datasetKinds()) {
        config.dataset.kind = kind.kind;
        message = refusal([&] { checkRunMemory(config, 12 * kGiB); });
        QVERIFY2(message.starts_with("dataset.resize 100000: ") == kind.imageTransform,
                 (std::string(kind.name) + ": " + message).c_str());
    }
}

void TestMemoryBudget::idxHeaderIsJudgedBeforeInflating()
{
    // 16 images of 16384x16384: 4 GiB of pixels; the file holds the header only, so
    // the refusal can only come from the header.
    const std::string dir = m_dir.filePath(QStringLiteral("idx")).toStdString();
    QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
    writeIdxHeader(dir + "/train-images-idx3-ubyte.gz", 16, 16384, 16384);
    RunConfig config;
    config.dataset.kind = DatasetKind::Idx;
    config.dataset.path = dir;
    const auto footprint = peekDatasetFootprint(config.dataset);
    QVERIFY(footprint);
    QCOMPARE(footprint->shape, (SampleShape{1, 16384, 16384}));
    QCOMPARE(footprint->samples, std::int64_t{16});
    QCOMPARE(footprint->residentBytes, 4 * kGiB);
    const std::string message = refusal([&] { checkRunMemory(config, 12 * kGiB); });
    // 32 x 1 GiB float samples per batch dominate.
    QVERIFY2(message.starts_with("the images of " + dir
                                 + "/train-images-idx3-ubyte.gz (16 x 1x16384x16384): "),
             message.c_str());
    QVERIFY2(message.find("32.0 GiB per batch") != std::string::npos, message.c_str());
}

void TestMemoryBudget::idxDatasetRefusesHeaderOverBudget()
{
    // A header-only file declaring 65535 images of 16384x16384 (16 TiB): without the
    // header check this fails later, as truncated data.
    const std::string images =
        m_dir.filePath(QStringLiteral("big-images-idx3-ubyte.gz")).toStdString();
    writeIdxHeader(images, 65535, 16384, 16384);
    writeIdxHeader(m_dir.filePath(QStringLiteral("big-labels-idx1-ubyte.gz")).toStdString(), 0, 0,
                   0);
    try {
        IdxDataset dataset(images);
        QFAIL("the IDX file was accepted");
    } catch (const DatasetError &e) {
        const std::string message = e.what();
        QVERIFY2(message.starts_with(images + ": the header declares 65535 images of 16384x16384"),
                 message.c_str());
        QVERIFY2(message.find("memory budget") != std::string::npos, message.c_str());
    }
}

void TestMemoryBudget::openedDatasetGivesTheSameFootprint()
{
    RunConfig config;
    config.dataset.syntheticShape = {3, 8, 8};
    config.dataset.syntheticSamples = 100;
    const SyntheticDataset dataset(config.dataset.syntheticShape, 100, 1);
    const auto peeked = estimateRunMemory(config.loader, *peekDatasetFootprint(config.dataset));
    const auto opened = estimateRunMemory(config.loader, datasetFootprint(config.dataset, dataset));
    QCOMPARE(opened.totalBytes, peeked.totalBytes);
    QCOMPARE(opened.datasetBytes, std::int64_t{64 * 3 * 8 * 8 * 4});
    config.loader.batchSize = 1'000'000;
    const std::string message = refusal([&] { checkRunMemory(config, dataset, 1 * kGiB); });
    QVERIFY2(message.starts_with("loader.batch_size 1000000: "), message.c_str());
}

void TestMemoryBudget::headersAreNotReadFromFifos()
{
    // Opening a FIFO for reading waits for a writer: the peek must not open one
    // (this test would hang if it did), and leaves the error to openDataset.
    const std::string fifo = m_dir.filePath(QStringLiteral("fifo-images-idx3-ubyte")).toStdString();
    QCOMPARE(mkfifo(fifo.c_str(), 0600), 0);
    for (const DatasetKind kind : {DatasetKind::Idx, DatasetKind::TensorFile}) {
        DatasetConfig config;
        config.kind = kind;
        config.path = fifo;
        QVERIFY(!peekDatasetFootprint(config));
    }
}

void TestMemoryBudget::tensorFileLimits()
{
    // The file size formula is the format's own.
    TensorFileHeader header;
    header.dtype = DType::UInt8;
    header.shape = {3, 5, 7};
    header.count = 11;
    QCOMPARE(tensorFileBytes(11, header.shape, header.dtype),
             static_cast<std::int64_t>(header.fileBytes()));
    QCOMPARE(tensorGenerationMemoryBytes({3, 10, 10}, DType::Float32), std::int64_t{2 * 1200});

    const std::string path = m_dir.filePath(QStringLiteral("big.tensor")).toStdString();
    std::string message = refusal([&] {
        checkTensorFileFits(path, 1, {3, 65536, 65536}, DType::Float32, 12 * kGiB);
    });
    QVERIFY2(message.starts_with(path + ": shape 3x65536x65536 float32 needs about 96.0 GiB"),
             message.c_str());
    message = refusal([&] {
        checkTensorFileFits(path, 1'000'000'000'000, {3, 224, 224}, DType::UInt8, 12 * kGiB);
    });
    QVERIFY2(message.find("free in") != std::string::npos, message.c_str());
    QVERIFY2(!QFileInfo::exists(QString::fromStdString(path)), "nothing may be written");
    QCOMPARE(refusal([&] {
                 checkTensorFileFits(path, 10, {3, 32, 32}, DType::UInt8, 12 * kGiB);
             }),
             std::string());
}

LOADERLAB_GUILESS_TEST_MAIN(TestMemoryBudget)
#include "test_memory_budget.moc"
