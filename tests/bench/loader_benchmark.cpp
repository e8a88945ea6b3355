// loaderlab_bench_loader: how close LoaderLab's loader comes to what the machine
// can do. On one generated Imagenette-like folder, with the eval transform, it
// measures (a) the Loader with W workers, (b) PyTorch's own DataLoader with the
// same settings, (c) one thread decoding in a loop (the per-core limit), and
// (d) the loader's own per-batch overhead on synthetic data. Not a test: numbers
// depend on the machine, so nothing here asserts on them.

#include "core/dataset/dataset_config.h"
#include "core/dataset/synthetic_dataset.h"
#include "core/image/image_folder_dataset.h"
#include "core/loader/clock.h"
#include "core/loader/loader.h"
#include "core/tools/imagenette_generator.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using namespace loaderlab;

namespace {

struct Options
{
    std::string root;
    int batchSize = 32;
    int workers = 2;
    int epochs = 2;
    int warmupEpochs = 1;
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
    double perSecond() const { return seconds > 0 ? static_cast<double>(images) / seconds : 0; }
};

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
    for (int i = 0; i < options.epochs; ++i)
        result.images += drainEpoch(loader, epoch++);
    result.seconds = secondsSince(start);
    return result;
}

// (c) One thread: read, decode and transform every image, nothing else.
Throughput benchSingleThread(const ImageFolderDataset &dataset, const Options &options)
{
    std::vector<std::byte> slot(dataset.sampleBytes());
    SampleContext context;
    auto pass = [&] {
        std::int64_t images = 0;
        for (std::int64_t i = 0; i < dataset.size(); ++i) {
            try {
                dataset.load(i, slot, context);
                ++images;
            } catch (const SampleError &error) {
                std::fprintf(stderr, "skipped: %s\n", error.what());
            }
        }
        return images;
    };
    // A short warm-up (page cache, allocator); corrupt images are reported by pass().
    for (std::int64_t i = 0; i < std::min<std::int64_t>(dataset.size(), 50); ++i) {
        try {
            dataset.load(i, slot, context);
        } catch (const SampleError &) {
        }
    }
    Throughput result;
    const std::int64_t start = steadyNowNs();
    for (int i = 0; i < options.epochs; ++i)
        result.images += pass();
    result.seconds = secondsSince(start);
    return result;
}

std::string shellQuote(const std::string &text)
{
    std::string quoted = "'";
    for (char c : text)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// (b) PyTorch's DataLoader, as a subprocess; nullopt (with the reason printed)
// when Python, torch or torchvision is not available.
std::optional<Throughput> benchPytorch(const std::string &root, const Options &options)
{
    const std::string command = shellQuote(options.python) + " " + shellQuote(options.script)
                                + " --root " + shellQuote(root) + " --batch-size "
                                + std::to_string(options.batchSize) + " --workers "
                                + std::to_string(options.workers) + " --epochs "
                                + std::to_string(options.epochs) + " --warmup-epochs "
                                + std::to_string(options.warmupEpochs);
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
                "         [--epochs N] [--warmup-epochs N] [--skip-pytorch] [--json FILE]\n"
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
    if (options.batchSize < 1 || options.workers < 0 || options.epochs < 1
        || options.warmupEpochs < 0 || options.overheadBatches < 1)
        throw std::invalid_argument("batch size, epochs and overhead batches must be >= 1, "
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
        DatasetConfig datasetConfig;
        datasetConfig.kind = DatasetKind::ImageFolder;
        datasetConfig.path = options.root;
        const DatasetPtr dataset = openDataset(datasetConfig);
        const ImageFolderDataset single(datasetConfig);
        const int w = options.workers;
        std::printf("dataset: %s\n", dataset->description().c_str());
        std::printf("batch size %d, workers %d, %d timed epoch(s) after %d warm-up\n\n",
                    options.batchSize, w, options.epochs, options.warmupEpochs);
        std::fflush(stdout);

        const Throughput loader = benchLoader(dataset, options);
        std::printf("(a) LoaderLab loader:        %8.1f images/s\n", loader.perSecond());
        std::fflush(stdout);
        std::optional<Throughput> pytorch;
        if (!options.skipPytorch)
            pytorch = benchPytorch(options.root, options);
        if (pytorch)
            std::printf("(b) PyTorch DataLoader:      %8.1f images/s\n", pytorch->perSecond());
        else
            std::printf("(b) PyTorch DataLoader:           n/a\n");
        std::fflush(stdout);
        const Throughput perCore = benchSingleThread(single, options);
        std::printf("(c) one thread, no loader:   %8.1f images/s (per-core limit)\n",
                    perCore.perSecond());
        std::fflush(stdout);
        const Overhead overhead = benchOverhead(options);

        const double ideal = std::max(1, w) * perCore.perSecond();
        std::printf("\n%-44s %10s\n", "measurement", "value");
        std::printf("%-44s %10.1f\n", "LoaderLab images/s", loader.perSecond());
        if (pytorch)
            std::printf("%-44s %10.1f\n", "PyTorch DataLoader images/s", pytorch->perSecond());
        std::printf("%-44s %10.1f\n", "per-core limit images/s (1 thread)", perCore.perSecond());
        std::printf(
            "%-44s %10.2f\n",
            ("LoaderLab / (" + std::to_string(std::max(1, w)) + " x per-core limit)").c_str(),
            loader.perSecond() / ideal);
        if (pytorch)
            std::printf("%-44s %10.2f\n", "LoaderLab / PyTorch",
                        loader.perSecond() / pytorch->perSecond());
        std::printf("%-44s %10.1f\n", "overhead us/batch (1x1x1, batch 1)", overhead.tinyUs);
        std::printf("%-44s %10.1f\n", "us/batch (3x224x224, batch 32)", overhead.bigBatchUs);
        std::printf("%-44s %10.1f\n", "memcpy us/batch, same bytes, W copies at once",
                    overhead.memcpyUs);
        std::printf("%-44s %10.1f\n", "overhead us/batch (3x224x224 minus memcpy)",
                    overhead.bigBatchUs - overhead.memcpyUs);

        if (!options.json.empty()) {
            nlohmann::json out = {
                {"root", options.root},
                {"batch_size", options.batchSize},
                {"workers", w},
                {"epochs", options.epochs},
                {"warmup_epochs", options.warmupEpochs},
                {"loaderlab_images_per_sec", loader.perSecond()},
                {"per_core_images_per_sec", perCore.perSecond()},
                {"loaderlab_vs_ideal", loader.perSecond() / ideal},
                {"overhead_us_per_batch_tiny", overhead.tinyUs},
                {"us_per_batch_3x224x224_b32", overhead.bigBatchUs},
                {"memcpy_us_3x224x224_b32", overhead.memcpyUs},
                {"overhead_us_per_batch_3x224x224_b32", overhead.bigBatchUs - overhead.memcpyUs},
            };
            if (pytorch) {
                out["pytorch_images_per_sec"] = pytorch->perSecond();
                out["loaderlab_vs_pytorch"] = loader.perSecond() / pytorch->perSecond();
            }
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
