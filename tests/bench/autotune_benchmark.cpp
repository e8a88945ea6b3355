// loaderlab_bench_autotune: the online autotuner against a sweep of the same space,
// in one run (issue 12's targets: the autotuner ends within 5 % of the sweep's best
// samples/s, in under 20 % of the sweep's wall time).
//   (a) The sweep: every setting the autotuner can reach from the start
//       (autotuneSpace: workers x prefetch, x batch size with --tune-batch), run by
//       SweepRunner with the sweep's default budget (10,240 samples per cell, one
//       repeat); each cell's samples/s is the sweep's (the mean after warm-up). The
//       best cell's samples/s and the sweep's wall time are kept.
//   (b) The autotuner: a run of the same dataset and step from the start setting
//       (the loader's defaults: 2 workers, prefetch 2, batch 32), tuned until it
//       holds (no neighbour of its setting wins); its wall time from the run's start
//       to the hold. The setting it holds is then measured as a one-cell sweep, the
//       way (a) measured its cells.
//   (c) Both side by side, with the ratios and PASS/FAIL against the targets.
// Rounds alternate which of (a) and (b) goes first, so a drift of the machine
// favours neither; the ratios' min / median / max over the rounds close the output.
// The step: a sleep per batch whatever its size (100 ms by default: batch 32 is then
// step-bound even on a shared machine, so a larger batch pays; docs/autotune.md).
// Not a test: it prints figures and asserts nothing.
//
//   build/tests/bench/loaderlab_bench_autotune [--rounds 3] [--sleep-batch-ms 100]
//       [--no-tune-batch] [--min-batch 32] [--max-batch 128] [--max-workers 3]
//       [--max-prefetch 2] [--samples 10240] [--hill]
// --hill: the hill climb of measured trials (`--autotune-search hill`) instead of the
// model search, the default.

#include "bench_autotune.h"
#include "bench_machine.h"
#include "core/autotune/autotune_search.h"
#include "core/autotune/autotuner.h"
#include "core/engine/loaderlab_engine.h"
#include "core/sweep/sweep.h"
#include "core/system/logging.h"
#include "core/tools/default_dataset.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using namespace loaderlab;
using benchmachine::commandOutput;
using benchmachine::cpuModel;
using benchmachine::loadAverage;
using namespace benchautotune;

namespace {

constexpr double kThroughputTarget = 0.95; // autotuned / best, at least
constexpr double kTimeTarget = 0.20;       // autotune wall / sweep wall, below

struct Options
{
    int rounds = 3;
    double sleepBatchMs = 100.0;
    bool tuneBatch = true;
    int minBatch = 32;
    int maxBatch = 128;
    int maxWorkers = 0; // 0: the cores + 1
    int maxPrefetch = 2;
    double samples = 10'240;
    double holdTimeoutS = 600;
    std::string logLevel = "warn"; // "debug": the autotuner's windows on stderr
    bool onlyAutotune = false;     // (b) alone, once: to look at its windows
    bool hill = false;             // the hill climb instead of the model search
};

Options parse(int argc, char **argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&]() -> double {
            if (i + 1 >= argc)
                throw std::invalid_argument(a + " needs a value");
            return std::atof(argv[++i]);
        };
        if (a == "--rounds")
            o.rounds = std::max(1, static_cast<int>(value()));
        else if (a == "--sleep-batch-ms")
            o.sleepBatchMs = value();
        else if (a == "--no-tune-batch")
            o.tuneBatch = false;
        else if (a == "--min-batch")
            o.minBatch = static_cast<int>(value());
        else if (a == "--max-batch")
            o.maxBatch = static_cast<int>(value());
        else if (a == "--max-workers")
            o.maxWorkers = static_cast<int>(value());
        else if (a == "--max-prefetch")
            o.maxPrefetch = static_cast<int>(value());
        else if (a == "--samples")
            o.samples = value();
        else if (a == "--hold-timeout-s")
            o.holdTimeoutS = value();
        else if (a == "--log" && i + 1 < argc)
            o.logLevel = argv[++i];
        else if (a == "--only-autotune")
            o.onlyAutotune = true;
        else if (a == "--hill")
            o.hill = true;
        else
            throw std::invalid_argument("unknown option " + a);
    }
    return o;
}

struct TuneRun
{
    AutotuneSettings held;
    bool settled = false;
    int windows = 0;
    int moves = 0;
    double wallSeconds = 0.0; // run start to the hold
};

TuneRun runAutotune(const RunConfig &base, const AutotuneOptions &options, double timeoutS)
{
    RunConfig config = base;
    config.epochs = 0; // until stopped
    TuneRun out;
    const auto start = std::chrono::steady_clock::now();
    LoaderLabEngine run;
    run.start(config);
    Autotuner tuner(run, options);
    out.settled = tuner.waitForHold(std::chrono::milliseconds(static_cast<long>(timeoutS * 1e3)));
    out.wallSeconds = secondsSince(start);
    out.held = tuner.incumbent();
    out.windows = tuner.windows();
    out.moves = tuner.moves();
    tuner.stop();
    run.stop();
    run.waitForEnd(30'000);
    if (!run.error().empty())
        throw std::runtime_error("the autotuned run failed: " + run.error());
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    try {
        const Options o = parse(argc, argv);
        setupLogging(o.logLevel);
        const fs::path scratch = fs::temp_directory_path() / "loaderlab-bench-autotune";
        fs::remove_all(scratch);
        fs::create_directories(scratch);
        const int cores = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));

        RunConfig base; // the loader's defaults: 2 workers, prefetch 2, batch 32
        base.dataset.kind = DatasetKind::ImageFolder;
        base.dataset.path = ensureDefaultImageFolder();
        base.consumer.kind = ConsumerKind::Sleep;
        base.consumer.sleepPerBatchMs = o.sleepBatchMs;

        AutotuneOptions tuning;
        tuning.tuneBatch = o.tuneBatch;
        tuning.model = !o.hill;
        tuning.maxWorkers = o.maxWorkers > 0 ? o.maxWorkers : cores + 1;
        tuning.maxPrefetch = o.maxPrefetch;
        tuning.minBatch = o.minBatch;
        tuning.maxBatch = o.maxBatch;
        const AutotuneSettings start{base.loader.numWorkers, base.loader.prefetchFactor,
                                     base.loader.batchSize};
        const AutotuneSpace space = autotuneSpace(start, autotuneLimits(base, tuning, cores));
        const SweepDefinition sweep = sweepOver(base, space, o.samples);
        const std::int64_t cellCount = sweepCellCount(sweep);

        const std::string commit = commandOutput(
            "git -C '" LOADERLAB_SOURCE_DIR "' describe --always --dirty --abbrev=12 2>/dev/null");
        std::printf("commit:  %s\n", commit.empty() ? "unknown" : commit.c_str());
        std::printf("machine: %s, %d CPUs, %s\n", cpuModel().c_str(), cores,
                    commandOutput("uname -sr").c_str());
        std::printf("dataset: %s (the default dataset), a %.0f ms sleep step per batch\n",
                    base.dataset.path.c_str(), o.sleepBatchMs);
        std::printf("search:  %s\n", o.hill ? "the hill climb" : "the model search");
        std::printf("start:   %s; the space: workers %s x prefetch %s x batch %s = %lld cells "
                    "of %.0f samples, 1 repeat\n",
                    settingText(start).c_str(), valuesText(space.workers).c_str(),
                    valuesText(space.prefetch).c_str(), valuesText(space.batchSizes).c_str(),
                    static_cast<long long>(cellCount), o.samples);
        std::printf("targets: autotuned/best samples/s >= %.2f, autotune/sweep wall time < %.2f\n",
                    kThroughputTarget, kTimeTarget);
        std::printf("load average at start: %s\n\n", loadAverage().c_str());

        if (o.onlyAutotune) {
            const TuneRun tuned = runAutotune(base, tuning, o.holdTimeoutS);
            std::printf("autotune: %s in %.1f s (%d windows, %d moves): %s\n",
                        tuned.settled ? "held" : "did NOT settle", tuned.wallSeconds, tuned.windows,
                        tuned.moves, settingText(tuned.held).c_str());
            return 0;
        }
        std::vector<double> rateRatios, timeRatios;
        int passes = 0;
        for (int r = 0; r < o.rounds; ++r) {
            SweepRun swept;
            TuneRun tuned;
            const bool sweepFirst = r % 2 == 0;
            std::printf("round %d (%s first):\n", r + 1, sweepFirst ? "sweep" : "autotune");
            for (int k = 0; k < 2; ++k) {
                if ((k == 0) == sweepFirst) {
                    swept = runSweep(sweep, scratch / "sweep");
                    std::printf("  sweep:    %zu cells in %.1f s; best %s, %.1f samples/s\n",
                                swept.cells.size(), swept.wallSeconds,
                                settingText(swept.best.setting).c_str(), swept.best.samplesPerSec);
                } else {
                    tuned = runAutotune(base, tuning, o.holdTimeoutS);
                    std::printf("  autotune: %s in %.1f s (%d windows, %d moves): %s\n",
                                tuned.settled ? "held" : "did NOT settle", tuned.wallSeconds,
                                tuned.windows, tuned.moves, settingText(tuned.held).c_str());
                }
            }
            // The autotuned setting, measured as a sweep cell.
            RunConfig held = base;
            held.loader.numWorkers = tuned.held.workers;
            held.loader.prefetchFactor = tuned.held.prefetch;
            held.loader.batchSize = tuned.held.batchSize;
            const SweepDefinition one = sweepOver(
                held, {{tuned.held.workers}, {tuned.held.prefetch}, {tuned.held.batchSize}},
                o.samples);
            const double tunedRate = runSweep(one, scratch / "held").best.samplesPerSec;
            const double rateRatio = tunedRate / swept.best.samplesPerSec;
            const double timeRatio = tuned.wallSeconds / swept.wallSeconds;
            const bool pass = tuned.settled && rateRatio >= kThroughputTarget
                              && timeRatio < kTimeTarget;
            passes += pass;
            rateRatios.push_back(rateRatio);
            timeRatios.push_back(timeRatio);
            std::printf("  best sweep setting: %s, %.1f samples/s\n",
                        settingText(swept.best.setting).c_str(), swept.best.samplesPerSec);
            std::printf("  autotuned setting:  %s, %.1f samples/s (measured as a sweep cell)\n",
                        settingText(tuned.held).c_str(), tunedRate);
            std::printf("  ratio autotune/best samples/s %.3f (%s %.2f); wall time autotune "
                        "%.1f s / sweep %.1f s = %.3f (%s %.2f) -> %s\n",
                        rateRatio, rateRatio >= kThroughputTarget ? ">=" : "<", kThroughputTarget,
                        tuned.wallSeconds, swept.wallSeconds, timeRatio,
                        timeRatio < kTimeTarget ? "<" : ">=", kTimeTarget, pass ? "PASS" : "FAIL");
        }
        const Spread rate = spreadOf(rateRatios);
        const Spread time = spreadOf(timeRatios);
        std::printf("\nover %d rounds: samples/s autotune/best min %.3f, median %.3f, max %.3f; "
                    "wall time autotune/sweep min %.3f, median %.3f, max %.3f\n",
                    o.rounds, rate.min, rate.median, rate.max, time.min, time.median, time.max);
        std::printf("%d of %d rounds PASS (samples/s ratio >= %.2f and time ratio < %.2f); "
                    "medians: %s\n",
                    passes, o.rounds, kThroughputTarget, kTimeTarget,
                    rate.median >= kThroughputTarget && time.median < kTimeTarget ? "PASS"
                                                                                  : "FAIL");
        std::printf("load average at end: %s\n", loadAverage().c_str());
        fs::remove_all(scratch);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab_bench_autotune: %s\n", e.what());
        return 1;
    }
    return 0;
}
