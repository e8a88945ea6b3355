// The decode, hand-over and preprocessed ceilings: one thread's rate per CPU second
// times the cores others leave free, and the loader's own cost per batch.

#include "core/dataset/synthetic_dataset.h"
#include "core/dataset/tensor_file_dataset.h"
#include "core/limits/ceiling_probes.h"
#include "core/loader/loader.h"
#include "core/stats/run_summary.h"
#include "core/system/clock.h"
#include "core/system/cpu_load.h"
#include "core/tools/preprocess.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include <time.h>
#include <unistd.h>

namespace loaderlab {
namespace {

namespace fs = std::filesystem;

double probeThreadCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// A folder of LoaderLab's own for the preprocessed sample: made here, so nothing in
// it belongs to anyone else; removed with everything in it when this goes.
class OwnTempFolder
{
public:
    explicit OwnTempFolder(const fs::path &parent)
    {
        std::string pattern = (parent / "loaderlab-ceiling-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            throw std::runtime_error(parent.string()
                                     + ": cannot make a temporary folder: " + std::strerror(errno));
        m_path = pattern;
    }
    ~OwnTempFolder()
    {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
    OwnTempFolder(const OwnTempFolder &) = delete;
    OwnTempFolder &operator=(const OwnTempFolder &) = delete;
    const fs::path &path() const { return m_path; }

private:
    fs::path m_path;
};

// The cores online, and what `load` left of them (all of them when it is unknown).
FreeCores freeCoresOf(const MachineLoad &load)
{
    const int cores = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    return {cores,
            load.known() ? std::clamp(load.availableCores, 0.0, double(cores)) : double(cores)};
}

} // namespace

std::string probeText(const char *pattern, double a, double b, double c)
{
    char text[240];
    std::snprintf(text, sizeof text, pattern, a, b, c);
    return text;
}

ThreadLoads timedLoads(const Dataset &dataset, double seconds, std::stop_token stop,
                       std::int64_t first)
{
    std::vector<std::byte> slot(dataset.sampleBytes());
    SampleContext context;
    const std::int64_t n = dataset.size();
    // A stride coprime with n visits every sample once per n loads, spread over the data.
    std::int64_t stride = std::max<std::int64_t>(1, n / 7 + 1);
    while (n > 1 && std::gcd(stride, n) != 1)
        ++stride;
    std::int64_t index = n > 0 ? first % n : 0;
    const auto next = [&] {
        try {
            dataset.load(index, slot, context);
        } catch (const SampleError &) {
            // An unreadable sample costs what it costs; the loader would skip it too.
        }
        index = (index + stride) % n;
    };
    next();
    next(); // warm-up: the decoder's buffers, the first page-cache misses
    const double cpuStart = probeThreadCpuSeconds();
    const std::int64_t start = steadyNowNs();
    const auto limitNs = static_cast<std::int64_t>(seconds * 1e9);
    const std::int64_t sliceNs = limitNs / 8;
    ThreadLoads loads;
    std::int64_t sliceStart = start;
    double sliceCpu = cpuStart;
    std::int64_t sliceSamples = 0;
    while (!stop.stop_requested() && (loads.samples < 3 || steadyNowNs() - start < limitNs)) {
        next();
        ++loads.samples;
        ++sliceSamples;
        if (const std::int64_t now = steadyNowNs(); now - sliceStart >= sliceNs) {
            const double cpu = probeThreadCpuSeconds();
            if (cpu > sliceCpu)
                loads.sliceRates.push_back(static_cast<double>(sliceSamples) / (cpu - sliceCpu));
            sliceStart = now;
            sliceCpu = cpu;
            sliceSamples = 0;
        }
    }
    loads.cpuSeconds = probeThreadCpuSeconds() - cpuStart;
    return loads;
}

double ThreadLoads::perCpuSecond() const
{
    if (sliceRates.size() >= 3)
        return percentile(sliceRates, 50.0);
    return cpuSeconds > 0.0 ? static_cast<double>(samples) / cpuSeconds : 0.0;
}

double probeDecodeAlone(const Dataset &dataset, double seconds, std::stop_token stop,
                        FreeCores &freeCores, MachineLoad *load)
{
    const CpuSample before = sampleCpu();
    const double perCore = timedLoads(dataset, seconds, stop).perCpuSecond();
    const MachineLoad measured = machineLoadBetween(before, sampleCpu());
    freeCores = freeCoresOf(measured);
    if (load)
        *load = measured;
    return perCore;
}

FreeCores probeFreeCores(double seconds, std::stop_token stop)
{
    const CpuSample before = sampleCpu();
    const auto end = steadyNowNs() + static_cast<std::int64_t>(seconds * 1e9);
    while (!stop.stop_requested() && steadyNowNs() < end)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return freeCoresOf(machineLoadBetween(before, sampleCpu()));
}

Ceiling probeDecode(const Dataset &dataset, double seconds, std::stop_token stop,
                    FreeCores &freeCores)
{
    // First one thread, which leaves the other cores to whatever else runs: how many
    // of them that leaves free. Then as many threads as that, each on samples of its
    // own: the rate per core when the free cores all decode at once (they share
    // caches and memory bandwidth), the busy-machine capacity a loader can reach.
    MachineLoad load;
    const double perCoreAlone = probeDecodeAlone(dataset, seconds / 2, stop, freeCores, &load);
    const int cores = freeCores.cores;
    const int threads = std::max(1, static_cast<int>(std::lround(freeCores.free)));
    std::vector<ThreadLoads> loads(static_cast<std::size_t>(threads));
    {
        std::vector<std::jthread> running;
        for (int t = 0; t < threads; ++t)
            running.emplace_back([&, t] {
                loads[static_cast<std::size_t>(t)] = timedLoads(dataset, seconds / 2, stop,
                                                                dataset.size() * t / threads);
            });
    }
    ThreadLoads together;
    for (const ThreadLoads &l : loads) {
        together.samples += l.samples;
        together.cpuSeconds += l.cpuSeconds;
        together.sliceRates.insert(together.sliceRates.end(), l.sliceRates.begin(),
                                   l.sliceRates.end());
    }
    const double perCore = together.cpuSeconds > 0.0 ? together.perCpuSecond() : perCoreAlone;
    Ceiling ceiling{CeilingKind::Decode, perCore * freeCores.free, {}, {}};
    ceiling.basis = probeText("%.0f thread(s) at once: %.0f samples per CPU s each", threads,
                              perCore)
                    + probeText(" (1 alone: %.0f) x %.1f free cores", perCoreAlone, freeCores.free)
                    + (load.known() && load.otherBusyCores + load.stealCores > 0.05
                           ? probeText(" (others used %.1f of %.0f)",
                                       load.otherBusyCores + load.stealCores, cores)
                           : std::string());
    ceiling.lift = probeText("more cores (%.0f samples/s each); the fast decode for photos well "
                             "above the resize size; smaller inputs; preprocessing (below)",
                             perCore);
    return ceiling;
}

Ceiling probeHandover(const LoaderConfig &loader, double seconds, std::stop_token stop)
{
    // Samples of one float: what is left is the loader's work per batch.
    auto dataset = std::make_shared<SyntheticDataset>(SampleShape{1, 1, 1}, 1 << 22, 0);
    LoaderConfig config = loader;
    config.persistentWorkers = true;
    config.pinMemory = false;
    Loader probe(dataset, config, steadyNowNs());
    std::int64_t batches = 0;
    std::int64_t samples = 0;
    int epoch = 0;
    probe.startEpoch(epoch);
    const std::int64_t start = steadyNowNs();
    const auto limitNs = static_cast<std::int64_t>(seconds * 1e9);
    while (!stop.stop_requested() && steadyNowNs() - start < limitNs) {
        BatchPtr batch = probe.next();
        if (!batch) {
            probe.startEpoch(++epoch);
            continue;
        }
        ++batches;
        samples += batch->size();
    }
    const double elapsed = static_cast<double>(steadyNowNs() - start) / 1e9;
    Ceiling ceiling{CeilingKind::Handover,
                    elapsed > 0.0 ? double(samples) / elapsed : 0.0,
                    {},
                    "bigger batches: the cost is per batch"};
    ceiling.basis = probeText("%.1f us a batch of %.0f over %.0f batches (LoaderLab's engine, "
                              "samples that cost nothing)",
                              batches > 0 ? elapsed * 1e6 / double(batches) : 0.0,
                              double(loader.batchSize), double(batches));
    return ceiling;
}

Ceiling probePreprocessed(const DatasetConfig &dataset, std::int64_t images,
                          const FreeCores &freeCores, double seconds,
                          const std::string &keepTensorFile, std::stop_token stop)
{
    Ceiling ceiling{CeilingKind::Preprocessed,
                    0.0,
                    {},
                    "storage: a preprocessed sample is bigger than its JPEG"};
    if (dataset.kind != DatasetKind::ImageFolder) {
        ceiling.basis = "not measured: only image folders are preprocessed";
        return ceiling;
    }
    const fs::path keep(keepTensorFile);
    const OwnTempFolder folder(keep.empty() ? fs::temp_directory_path()
                                            : fs::absolute(keep).parent_path());
    const fs::path file = folder.path() / "sample.bin";
    PreprocessOptions options;
    options.resizeSize = dataset.resizeSize;
    options.cropSize = dataset.cropSize;
    options.end = images;
    const PreprocessResult written = preprocessImageFolder(dataset.path, file.string(), options);
    if (stop.stop_requested() || written.written == 0) {
        ceiling.basis = "not measured: stopped, or no image could be read";
        return ceiling;
    }
    double perCore = 0.0;
    {
        const TensorFileDataset tensors(file.string());
        perCore = timedLoads(tensors, seconds, stop).perCpuSecond();
    }
    ceiling.samplesPerSecond = perCore * freeCores.free;
    ceiling.basis = probeText("the first %.0f images as float32 tensors, in the page cache: 1 "
                              "thread %.0f samples per CPU s x %.1f free cores",
                              double(written.written), perCore, freeCores.free);
    if (!keep.empty()) {
        // link() never replaces a file: one made meanwhile under that name stays.
        if (::link(file.c_str(), keep.c_str()) != 0)
            throw std::runtime_error(
                keepTensorFile + ": cannot keep the tensor file there: " + std::strerror(errno));
        ceiling.basis += ", kept as " + keepTensorFile;
    }
    return ceiling;
}

} // namespace loaderlab
