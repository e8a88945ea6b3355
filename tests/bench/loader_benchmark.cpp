// loaderlab_bench_loader: how close LoaderLab's loader comes to what the machine
// can do. On one image folder (by default a generated Imagenette-like one; real
// photographs with --root, see make_photo_folder.py), with the eval transform, it
// measures in each of --rounds rounds, the order reversed every other round:
// (a) the Loader with W workers, (b) PyTorch's own DataLoader with the same
// settings, its workers forked every epoch (its default) and, as (b'), persistent,
// (c) one thread running the exact pipeline in a loop (the per-core
// limit), (d) one thread running a plain OpenCV loop (open+read, imdecode, resize
// without antialiasing, crop, normalise), (e) one thread with the fast decode and
// (f) the Loader with the fast decode; then prints each figure and each ratio as
// min / median / max over the rounds, with the commit, the machine and the load.
// Once: the fast decode's pixel error against the exact mode, and (g) the
// loader's own per-batch overhead on synthetic data. Not a test: numbers depend on
// the machine, so nothing here asserts on them.

#include "bench_machine.h"
#include "bench_rounds.h"
#include "core/config/dataset_config.h"
#include "core/dataset/synthetic_dataset.h"
#include "core/image/image_folder_dataset.h"
#include "core/image/image_transforms.h"
#include "core/loader/loader.h"
#include "core/loader/open_dataset.h"
#include "core/system/clock.h"
#include "core/tools/imagenette_generator.h"

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace loaderlab;
using benchmachine::commandOutput;
using benchmachine::cpuModel;
using benchmachine::loadAverage;
using benchmachine::Rounds;

namespace {

struct Options
{
    std::string root;
    int batchSize = 32;
    int workers = 2;
    int epochs = 2;
    int warmupEpochs = 1;
    int rounds = 5;
    bool skipPytorch = false;
    std::string json;
    std::string python;
    std::string script = LOADERLAB_BENCH_SCRIPT;
    std::int64_t overheadBatches = 20000;
};

struct Throughput
{
    std::int64_t images = 0;
    double seconds = 0;
    double cpuSeconds = 0; // one-thread loops: this thread's CPU time
    double perSecond() const { return seconds > 0 ? static_cast<double>(images) / seconds : 0; }
    double perCpuSecond() const
    {
        return cpuSeconds > 0 ? static_cast<double>(images) / cpuSeconds : 0;
    }
};

// CPU time of the calling thread: for the one-thread loops, the figure that other
// processes on the machine disturb least (they take the core away, which wall
// time counts and CPU time does not).
double cpuSeconds(const rusage &u)
{
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
           + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// CPU time of this process (all its threads): the CPU the whole loader spends,
// whichever other processes share the cores.
double processCpuSeconds(int who)
{
    rusage u{};
    getrusage(who, &u);
    return cpuSeconds(u);
}

double threadCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double secondsSince(std::int64_t startNs)
{
    return static_cast<double>(steadyNowNs() - startNs) * 1e-9;
}

std::string defaultRoot()
{
    const char *cache = std::getenv("XDG_CACHE_HOME");
    const char *home = std::getenv("HOME");
    const fs::path base = cache && *cache ? fs::path(cache)
                          : home && *home ? fs::path(home) / ".cache"
                                          : fs::temp_directory_path();
    return (base / "loaderlab" / "bench-imagenette-10x100").string();
}

// /usr/bin/python3 is Debian's, the one that has python3-torch; a python3 found
// first on PATH (pyenv, venv) usually does not.
std::string defaultPython()
{
    if (const char *env = std::getenv("LOADERLAB_PYTHON"); env && *env)
        return env;
    return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

void ensureImageFolder(const std::string &root)
{
    std::error_code ec;
    if (fs::is_directory(root, ec) && !fs::is_empty(root, ec))
        return;
    std::printf("generating the default 10x100 image folder in %s ...\n", root.c_str());
    std::fflush(stdout);
    fs::create_directories(fs::path(root).parent_path(), ec);
    const std::int64_t start = steadyNowNs();
    generateImageFolder(root, ImageFolderSpec{});
    std::printf("generated in %.1f s\n", secondsSince(start));
}

std::int64_t drainEpoch(Loader &loader, int epoch, std::int64_t *batches = nullptr)
{
    loader.startEpoch(epoch);
    std::int64_t images = 0;
    while (BatchPtr batch = loader.next()) {
        images += batch->size();
        if (batches)
            ++*batches;
    }
    return images;
}

// (a) The loader over the image folder: warm-up epochs, then timed epochs.
Throughput benchLoader(const DatasetPtr &dataset, const Options &options)
{
    LoaderConfig config;
    config.batchSize = options.batchSize;
    config.numWorkers = options.workers;
    Loader loader(dataset, config, steadyNowNs());
    int epoch = 0;
    for (; epoch < options.warmupEpochs; ++epoch)
        drainEpoch(loader, epoch);
    Throughput result;
    const std::int64_t start = steadyNowNs();
    const double cpuStart = processCpuSeconds(RUSAGE_SELF);
    for (int i = 0; i < options.epochs; ++i)
        result.images += drainEpoch(loader, epoch++);
    result.cpuSeconds = processCpuSeconds(RUSAGE_SELF) - cpuStart;
    result.seconds = secondsSince(start);
    return result;
}

// One thread running `loadOne(i)` over the folder: a short warm-up (page cache,
// allocator), then --epochs passes. Corrupt images are reported and skipped.
template <typename LoadOne>
Throughput benchOneThread(std::int64_t size, const Options &options, LoadOne loadOne)
{
    auto pass = [&](std::int64_t count) {
        std::int64_t images = 0;
        for (std::int64_t i = 0; i < count; ++i) {
            try {
                loadOne(i);
                ++images;
            } catch (const std::exception &error) {
                std::fprintf(stderr, "skipped: %s\n", error.what());
            }
        }
        return images;
    };
    pass(std::min<std::int64_t>(size, 50));
    Throughput result;
    const std::int64_t start = steadyNowNs();
    const double cpuStart = threadCpuSeconds();
    for (int i = 0; i < options.epochs; ++i)
        result.images += pass(size);
    result.cpuSeconds = threadCpuSeconds() - cpuStart;
    result.seconds = secondsSince(start);
    return result;
}

// (c), (e) One thread: read, decode and transform every image, nothing else.
Throughput benchSingleThread(const ImageFolderDataset &dataset, const Options &options)
{
    std::vector<std::byte> slot(dataset.sampleBytes());
    SampleContext context;
    return benchOneThread(dataset.size(), options,
                          [&](std::int64_t i) { dataset.load(i, slot, context); });
}

// The whole file into `bytes` the fastest plain way, as the image loader reads: one
// open(), one fstat() for the size, read() straight into a buffer kept from file to
// file.
void readWholeFile(const std::string &path, std::vector<char> &bytes)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw std::runtime_error(path + ": cannot open");
    struct stat info
    {
    };
    if (::fstat(fd, &info) != 0) {
        ::close(fd);
        throw std::runtime_error(path + ": cannot stat");
    }
    bytes.resize(static_cast<std::size_t>(info.st_size));
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t got = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (got <= 0)
            break;
        done += static_cast<std::size_t>(got);
    }
    ::close(fd);
    bytes.resize(done);
}

// (d) The plain loop LoaderLab's exact pipeline is measured against: open+read
// (readWholeFile), cv::imdecode (BGR), cv::resize with INTER_LINEAR (no
// antialiasing, so not torchvision's pixels), center crop, and normalise into CHW
// float with the BGR to RGB swap folded in.
Throughput benchPlainOpenCvLoop(const ImageFolderDataset &dataset, const Options &options,
                                int resizeSize, int cropSize)
{
    std::vector<float> out(static_cast<std::size_t>(3 * cropSize * cropSize));
    const float mean[3] = {0.485f, 0.456f, 0.406f};
    const float stdev[3] = {0.229f, 0.224f, 0.225f};
    cv::setNumThreads(0);
    std::vector<char> bytes;
    return benchOneThread(dataset.size(), options, [&](std::int64_t i) {
        const std::string &path = dataset.entries()[static_cast<std::size_t>(i)].path;
        readWholeFile(path, bytes);
        const cv::Mat image = cv::imdecode(bytes, cv::IMREAD_COLOR);
        if (image.empty())
            throw std::runtime_error(path + ": cannot decode");
        const cv::Size size = shortSideSize(image.size(), resizeSize);
        cv::Mat resized;
        cv::resize(image, resized, size, 0, 0, cv::INTER_LINEAR);
        const cv::Mat crop = resized(cv::Rect((size.width - cropSize) / 2,
                                              (size.height - cropSize) / 2, cropSize, cropSize));
        const std::size_t plane = static_cast<std::size_t>(cropSize) * cropSize;
        for (int y = 0; y < cropSize; ++y) {
            const auto *p = crop.ptr<std::uint8_t>(y);
            for (int x = 0; x < cropSize; ++x, p += 3) {
                const std::size_t at = static_cast<std::size_t>(y) * cropSize + x;
                for (int c = 0; c < 3; ++c)
                    out[plane * c + at] = (p[2 - c] / 255.0f - mean[c]) / stdev[c];
            }
        }
    });
}

// Mean and max abs difference, in 8-bit levels, between the fast and the exact
// decode over the whole folder.
struct PixelError
{
    double mean = 0;
    double max = 0;
    double scaledShare = 0; // images the fast mode decoded at a reduced scale
};

PixelError fastDecodeError(const ImageFolderDataset &exact, const ImageFolderDataset &fast)
{
    const std::size_t floats = exact.sampleBytes() / sizeof(float);
    std::vector<float> a(floats), b(floats);
    const std::size_t plane = floats / 3;
    const float stdev[3] = {0.229f, 0.224f, 0.225f};
    SampleContext context;
    PixelError error;
    double sum = 0;
    std::int64_t values = 0, scaled = 0, images = 0;
    for (std::int64_t i = 0; i < exact.size(); ++i) {
        try {
            exact.load(i, std::as_writable_bytes(std::span(a)), context);
            fast.load(i, std::as_writable_bytes(std::span(b)), context);
        } catch (const SampleError &) {
            continue;
        }
        ++images;
        bool differs = false;
        for (std::size_t j = 0; j < floats; ++j) {
            const double d = std::abs(double(a[j]) - double(b[j])) * stdev[j / plane] * 255.0;
            sum += d;
            error.max = std::max(error.max, d);
            differs = differs || d > 0;
        }
        values += static_cast<std::int64_t>(floats);
        scaled += differs ? 1 : 0;
    }
    error.mean = values > 0 ? sum / static_cast<double>(values) : 0;
    error.scaledShare = images > 0 ? static_cast<double>(scaled) / static_cast<double>(images) : 0;
    return error;
}

std::string shellQuote(const std::string &text)
{
    std::string quoted = "'";
    for (char c : text)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// (b) PyTorch's DataLoader, as a subprocess: its default (worker processes forked
// again every epoch) or, with `persistent`, persistent_workers=True (forked once,
// in the warm-up). nullopt (with the reason printed) when Python, torch or
// torchvision is not available.
std::optional<Throughput> benchPytorch(const std::string &root, const Options &options,
                                       bool persistent)
{
    const std::string command = shellQuote(options.python) + " " + shellQuote(options.script)
                                + " --root " + shellQuote(root) + " --batch-size "
                                + std::to_string(options.batchSize) + " --workers "
                                + std::to_string(options.workers) + " --epochs "
                                + std::to_string(options.epochs) + " --warmup-epochs "
                                + std::to_string(options.warmupEpochs)
                                + (persistent ? " --persistent-workers" : "");
    std::FILE *pipe = popen(command.c_str(), "r");
    if (!pipe) {
        std::fprintf(stderr, "pytorch: cannot run %s\n", command.c_str());
        return std::nullopt;
    }
    std::string output;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
        output.append(buffer, n);
    const int status = pclose(pipe);
    const std::size_t brace = output.rfind("\n{") == std::string::npos ? output.find('{')
                                                                       : output.rfind("\n{") + 1;
    if (status != 0 || brace == std::string::npos) {
        std::fprintf(stderr, "pytorch: %s failed (status %d)\n", command.c_str(), status);
        return std::nullopt;
    }
    try {
        const auto line = nlohmann::json::parse(output.substr(brace));
        Throughput result;
        result.images = line.at("images").get<std::int64_t>();
        result.seconds = line.at("seconds").get<double>();
        // The timed epochs' CPU time of the interpreter and its worker processes
        // (pytorch_dataloader_bench.py), worker start-up included.
        result.cpuSeconds = line.value("cpu_seconds", 0.0);
        return result;
    } catch (const std::exception &error) {
        std::fprintf(stderr, "pytorch: unreadable output (%s): %s\n", error.what(), output.c_str());
        return std::nullopt;
    }
}

struct Overhead
{
    double tinyUs = 0;     // 1x1x1 samples, batch 1: wall time per batch
    double bigBatchUs = 0; // 3x224x224, batch 32: wall time per batch
    double memcpyUs = 0;   // memcpy of that batch's bytes, W copies at once
};

double timePerBatchUs(SampleShape shape, int batchSize, std::int64_t batches, int workers)
{
    auto dataset = std::make_shared<SyntheticDataset>(shape, batches * batchSize, 0);
    LoaderConfig config;
    config.batchSize = batchSize;
    config.numWorkers = workers;
    Loader loader(dataset, config, steadyNowNs());
    drainEpoch(loader, 0); // warm-up: threads, buffer pool
    std::int64_t count = 0;
    const std::int64_t start = steadyNowNs();
    drainEpoch(loader, 1, &count);
    return secondsSince(start) * 1e6 / static_cast<double>(std::max<std::int64_t>(count, 1));
}

// Wall time per copy of `bytes` when `threads` threads copy at once, each its own
// buffers, like W workers filling W batches: the loader's data movement with no
// loader around it. Per-batch equivalent = wall time / copies.
double memcpyUs(std::size_t bytes, int threads)
{
    constexpr int kRepeats = 20;
    std::vector<std::vector<std::byte>> from(static_cast<std::size_t>(threads));
    std::vector<std::vector<std::byte>> to(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) {
        from[static_cast<std::size_t>(t)].assign(bytes, std::byte{1});
        to[static_cast<std::size_t>(t)].assign(bytes, std::byte{0}); // fault pages in
    }
    auto copy = [&](std::size_t t) {
        for (int i = 0; i < kRepeats; ++i) {
            from[t][static_cast<std::size_t>(i)] = std::byte{static_cast<unsigned char>(i)};
            std::memcpy(to[t].data(), from[t].data(), bytes);
        }
    };
    const std::int64_t start = steadyNowNs();
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t)
        pool.emplace_back(copy, static_cast<std::size_t>(t));
    copy(0);
    for (auto &thread : pool)
        thread.join();
    const double us = secondsSince(start) * 1e6 / (kRepeats * threads);
    // Reading the result keeps the compiler from dropping the copies.
    volatile auto sink = static_cast<unsigned char>(to[0][kRepeats - 1]);
    static_cast<void>(sink);
    return us;
}

// (d) What the loader costs beyond the dataset's own work.
Overhead benchOverhead(const Options &options)
{
    Overhead result;
    result.tinyUs = timePerBatchUs({1, 1, 1}, 1, options.overheadBatches, options.workers);
    const SampleShape big{3, 224, 224};
    constexpr int kBigBatch = 32;
    result.bigBatchUs = timePerBatchUs(big, kBigBatch, 200, options.workers);
    const auto bigBatchBytes = static_cast<std::size_t>(big.elements()) * sizeof(float) * kBigBatch;
    result.memcpyUs = memcpyUs(bigBatchBytes, std::max(1, options.workers));
    return result;
}

void usage()
{
    std::printf("usage: loaderlab_bench_loader [--root DIR] [--batch-size N] [--workers W]\n"
                "         [--epochs N] [--warmup-epochs N] [--rounds N] [--skip-pytorch]\n"
                "         [--json FILE]\n"
                "         [--python PATH] [--script PATH] [--overhead-batches N]\n");
}

std::optional<Options> parseArgs(int argc, char **argv)
{
    Options options;
    options.root = defaultRoot();
    options.python = defaultPython();
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc)
                throw std::invalid_argument(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--root")
            options.root = value();
        else if (arg == "--batch-size")
            options.batchSize = std::stoi(value());
        else if (arg == "--workers")
            options.workers = std::stoi(value());
        else if (arg == "--epochs")
            options.epochs = std::stoi(value());
        else if (arg == "--warmup-epochs")
            options.warmupEpochs = std::stoi(value());
        else if (arg == "--rounds")
            options.rounds = std::stoi(value());
        else if (arg == "--skip-pytorch")
            options.skipPytorch = true;
        else if (arg == "--json")
            options.json = value();
        else if (arg == "--python")
            options.python = value();
        else if (arg == "--script")
            options.script = value();
        else if (arg == "--overhead-batches")
            options.overheadBatches = std::stoll(value());
        else if (arg == "--help" || arg == "-h")
            return std::nullopt;
        else
            throw std::invalid_argument("unknown option " + arg);
    }
    if (options.batchSize < 1 || options.workers < 0 || options.epochs < 1 || options.rounds < 1
        || options.warmupEpochs < 0 || options.overheadBatches < 1)
        throw std::invalid_argument("batch size, epochs, rounds and overhead batches must be >= 1, "
                                    "workers and warm-up epochs >= 0");
    return options;
}

} // namespace

int main(int argc, char **argv)
{
    std::optional<Options> parsed;
    try {
        parsed = parseArgs(argc, argv);
    } catch (const std::exception &error) {
        std::fprintf(stderr, "loaderlab_bench_loader: %s\n", error.what());
        usage();
        return 2;
    }
    if (!parsed) {
        usage();
        return 0;
    }
    const Options &options = *parsed;
    try {
        ensureImageFolder(options.root);
        DatasetConfig exactConfig;
        exactConfig.kind = DatasetKind::ImageFolder;
        exactConfig.path = options.root;
        DatasetConfig fastConfig = exactConfig;
        fastConfig.decode = DecodeMode::Fast;
        const DatasetPtr exactDataset = openDataset(exactConfig);
        const DatasetPtr fastDataset = openDataset(fastConfig);
        const ImageFolderDataset exactSingle(exactConfig);
        const ImageFolderDataset fastSingle(fastConfig);
        const int w = options.workers;
        const std::string commit = commandOutput(
            "git -C '" LOADERLAB_SOURCE_DIR "' describe --always --dirty --abbrev=12 2>/dev/null");
        std::printf("commit:  %s\n", commit.empty() ? "unknown" : commit.c_str());
        std::printf("machine: %s, %u CPUs, %s\n", cpuModel().c_str(),
                    std::thread::hardware_concurrency(), commandOutput("uname -sr").c_str());
        std::printf("resampler kernels: %s\n", resampleIsaName());
        std::printf("dataset: %s\n", exactDataset->description().c_str());
        std::printf("batch size %d, workers %d, %d timed epoch(s) after %d warm-up, %d rounds\n",
                    options.batchSize, w, options.epochs, options.warmupEpochs, options.rounds);
        std::printf("load average at start: %s\n\n", loadAverage().c_str());
        std::fflush(stdout);

        Rounds rounds;
        const std::string perCore = "(c) exact, 1 thread, images/s";
        for (int round = 0; round < options.rounds; ++round) {
            std::map<char, double> r;
            std::map<char, double> cpu; // one-thread loops: images per CPU second
            const auto measure = [&](char id) {
                switch (id) {
                case 'a': {
                    const Throughput t = benchLoader(exactDataset, options);
                    r[id] = t.perSecond();
                    cpu[id] = t.perCpuSecond();
                    break;
                }
                case 'b':
                case 'p':
                    if (!options.skipPytorch) {
                        if (const auto pytorch = benchPytorch(options.root, options, id == 'p')) {
                            r[id] = pytorch->perSecond();
                            cpu[id] = pytorch->perCpuSecond();
                        }
                    }
                    break;
                case 'c':
                case 'd':
                case 'e': {
                    const Throughput t = id == 'c'   ? benchSingleThread(exactSingle, options)
                                         : id == 'e' ? benchSingleThread(fastSingle, options)
                                                     : benchPlainOpenCvLoop(exactSingle, options,
                                                                            exactConfig.resizeSize,
                                                                            exactConfig.cropSize);
                    r[id] = t.perSecond();
                    cpu[id] = t.perCpuSecond();
                    break;
                }
                case 'f':
                    r[id] = benchLoader(fastDataset, options).perSecond();
                    break;
                }
            };
            // Alternate the order so that drift in the machine's load favours no one.
            std::string order = "abpcdef";
            if (round % 2)
                std::reverse(order.begin(), order.end());
            for (char id : order)
                measure(id);
            const auto pytorchText = [&](char id) {
                return r.contains(id) ? std::to_string(r[id]) : std::string("n/a");
            };
            std::printf("round %d (%s): loaderlab %.1f, pytorch %s, pytorch persistent %s, 1 "
                        "thread %.1f, plain loop %.1f, fast 1 thread %.1f, fast loaderlab %.1f "
                        "images/s; load %s\n",
                        round + 1, order.c_str(), r['a'], pytorchText('b').c_str(),
                        pytorchText('p').c_str(), r['c'], r['d'], r['e'], r['f'],
                        loadAverage().c_str());
            std::fflush(stdout);
            rounds.add("(a) LoaderLab, W workers, images/s", r['a']);
            if (r.contains('b'))
                rounds.add("(b) PyTorch DataLoader, images/s", r['b']);
            if (r.contains('p'))
                rounds.add("(b') PyTorch, persistent workers, images/s", r['p']);
            rounds.add(perCore, r['c']);
            rounds.add("(d) plain OpenCV loop, 1 thread, images/s", r['d']);
            rounds.add("(e) fast decode, 1 thread, images/s", r['e']);
            rounds.add("(f) LoaderLab fast decode, W workers, images/s", r['f']);
            if (r.contains('b')) {
                rounds.add("LoaderLab / PyTorch", r['a'] / r['b']);
                rounds.add("(a) LoaderLab, images per CPU s", cpu['a']);
                rounds.add("(b) PyTorch, images per CPU s", cpu['b']);
                rounds.add("LoaderLab / PyTorch, per CPU s", cpu['a'] / cpu['b']);
            }
            if (r.contains('p')) {
                rounds.add("LoaderLab / PyTorch persistent", r['a'] / r['p']);
                rounds.add("(b') PyTorch persistent, images per CPU s", cpu['p']);
                rounds.add("LoaderLab / PyTorch persistent, per CPU s", cpu['a'] / cpu['p']);
            }
            rounds.add("LoaderLab / (" + std::to_string(std::max(1, w)) + " x 1 thread)",
                       r['a'] / (std::max(1, w) * r['c']));
            rounds.add("(c) exact, 1 thread, images per CPU s", cpu['c']);
            rounds.add("(d) plain OpenCV loop, images per CPU s", cpu['d']);
            rounds.add("(e) fast decode, 1 thread, images per CPU s", cpu['e']);
            rounds.add("exact 1 thread / plain OpenCV loop", r['c'] / r['d']);
            rounds.add("exact / plain OpenCV loop, per CPU s", cpu['c'] / cpu['d']);
            rounds.add("fast / exact, 1 thread", r['e'] / r['c']);
            rounds.add("fast / exact, 1 thread, per CPU s", cpu['e'] / cpu['c']);
            rounds.add("fast / exact, W workers", r['f'] / r['a']);
            if (r.contains('b'))
                rounds.add("LoaderLab fast / PyTorch", r['f'] / r['b']);
            if (r.contains('p'))
                rounds.add("LoaderLab fast / PyTorch persistent", r['f'] / r['p']);
        }
        rounds.print();
        std::printf("load average at end: %s\n", loadAverage().c_str());

        const PixelError error = fastDecodeError(exactSingle, fastSingle);
        std::printf("\nfast decode vs exact: mean abs error %.2f levels, max %.0f (of 255); "
                    "%.0f%% of the images decoded at a reduced scale\n",
                    error.mean, error.max, 100 * error.scaledShare);
        const Overhead overhead = benchOverhead(options);
        std::printf("\n%-46s %10.1f\n", "(g) overhead us/batch (1x1x1, batch 1)", overhead.tinyUs);
        std::printf("%-46s %10.1f\n", "us/batch (3x224x224, batch 32)", overhead.bigBatchUs);
        std::printf("%-46s %10.1f\n", "memcpy us/batch, same bytes, W copies at once",
                    overhead.memcpyUs);
        std::printf("%-46s %10.1f\n", "overhead us/batch (3x224x224 minus memcpy)",
                    overhead.bigBatchUs - overhead.memcpyUs);

        if (!options.json.empty()) {
            nlohmann::json out = {
                {"commit", commit},
                {"machine", cpuModel()},
                {"cpus", std::thread::hardware_concurrency()},
                {"root", options.root},
                {"batch_size", options.batchSize},
                {"workers", w},
                {"epochs", options.epochs},
                {"warmup_epochs", options.warmupEpochs},
                {"rounds", rounds.toJson()},
                {"fast_decode_mean_abs_error_levels", error.mean},
                {"fast_decode_max_abs_error_levels", error.max},
                {"overhead_us_per_batch_tiny", overhead.tinyUs},
                {"us_per_batch_3x224x224_b32", overhead.bigBatchUs},
                {"memcpy_us_3x224x224_b32", overhead.memcpyUs},
                {"overhead_us_per_batch_3x224x224_b32", overhead.bigBatchUs - overhead.memcpyUs},
            };
            std::ofstream file(options.json);
            file << out.dump(2) << '\n';
            if (!file)
                throw std::runtime_error(options.json + ": cannot write");
        }
    } catch (const std::exception &error) {
        std::fprintf(stderr, "loaderlab_bench_loader: %s\n", error.what());
        return 1;
    }
    return 0;
}
