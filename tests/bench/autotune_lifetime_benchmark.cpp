// loaderlab_bench_autotune_lifetime: what an autotuned run delivers over its whole
// life, against the best fixed setting of a sweep of the same space, in one run:
//   (a) the sweep: every setting the autotuner can reach from the start setting
//       (autotuneSpace: workers x prefetch), run by SweepRunner as `loaderlab sweep`
//       runs it; each cell's figure is the sweep's samples/s (the mean after warm-up).
//   (b) autotuned runs of --seconds from the start setting, guided by the loader
//       model (the default) and, with --hill, by the hill climb of measured trials;
//       each run's figure is its samples/s from --skip-seconds to its end (the
//       samples of the batches whose steps ended in that time, over that time),
//       every trial and rebuild included; and the config versions it made, per minute.
//   (c) the best cell's setting run the same way, fixed (no tuner), for --seconds and
//       measured from --skip-seconds, twice: the best fixed setting's life, measured
//       as the autotuned runs' are (the sweep's best cell alone is the highest of
//       several noisy one-cell measurements, biased upward). The mean of the two is
//       the best fixed figure; the second over the first is the machine's own spread
//       between two lives of one setting, the control a ratio is read against.
//   (d) the ratios autotuned / best fixed (c), PASS/FAIL against >= 0.95, and
//       autotuned / the sweep's best cell.
// Rounds alternate the order of (a) and (b), so a drift of the machine favours
// neither; min / median / max over the rounds close each engine's block.
// Not a test: it prints figures and asserts nothing.
//
//   build/tests/bench/loaderlab_bench_autotune_lifetime --folder DIR [--engine
//   loaderlab|pytorch|both]
//       [--rounds 2] [--seconds 90] [--skip-seconds 30] [--batch 32] [--workers 1]
//       [--sleep-batch-ms 40] [--cell-samples 4096] [--hill] [--busy-from-halfway]
//
// --busy-from-halfway: halfway through each autotuned and fixed run (not the sweep), a
// CPU-bound loop starts on the machine's last core (LaterBusyLoop, bench_machine.h),
// in LoaderLab's own session, and stops with the run: the tuner must not take the
// machine's change for the effect of a setting.

#include "bench_autotune.h"
#include "bench_machine.h"
#include "core/autotune/autotuner.h"
#include "core/engine/engine.h"
#include "core/system/logging.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using namespace loaderlab;
using namespace benchautotune;
using benchmachine::commandOutput;
using benchmachine::cpuModel;
using benchmachine::loadAverage;

namespace {

constexpr double kTarget = 0.95;

struct Options
{
    std::string folder;
    std::vector<EngineKind> engines{EngineKind::LoaderLab, EngineKind::PyTorch};
    int rounds = 2;
    double seconds = 90;
    double skipSeconds = 30;
    int batch = 32;
    int workers = 1;
    double sleepBatchMs = 40;
    double cellSamples = 4096;
    bool hill = false;
    bool busyFromHalfway = false;
    std::string logLevel = "warn";
};

Options parse(int argc, char **argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto text = [&]() -> std::string {
            if (i + 1 >= argc)
                throw std::invalid_argument(a + " needs a value");
            return argv[++i];
        };
        const auto value = [&] { return std::atof(text().c_str()); };
        if (a == "--folder")
            o.folder = text();
        else if (a == "--engine") {
            const std::string e = text();
            if (e == "both")
                o.engines = {EngineKind::LoaderLab, EngineKind::PyTorch};
            else if (e == "loaderlab")
                o.engines = {EngineKind::LoaderLab};
            else if (e == "pytorch")
                o.engines = {EngineKind::PyTorch};
            else
                throw std::invalid_argument("--engine: loaderlab, pytorch or both, not " + e);
        } else if (a == "--rounds")
            o.rounds = std::max(1, static_cast<int>(value()));
        else if (a == "--seconds")
            o.seconds = value();
        else if (a == "--skip-seconds")
            o.skipSeconds = value();
        else if (a == "--batch")
            o.batch = static_cast<int>(value());
        else if (a == "--workers")
            o.workers = static_cast<int>(value());
        else if (a == "--sleep-batch-ms")
            o.sleepBatchMs = value();
        else if (a == "--cell-samples")
            o.cellSamples = value();
        else if (a == "--hill")
            o.hill = true;
        else if (a == "--busy-from-halfway")
            o.busyFromHalfway = true;
        else if (a == "--log")
            o.logLevel = text();
        else
            throw std::invalid_argument("unknown option " + a);
    }
    if (o.folder.empty())
        throw std::invalid_argument("--folder DIR is needed (an image folder; "
                                    "tests/bench/make_photo_folder.py makes one of photos)");
    if (o.skipSeconds >= o.seconds)
        throw std::invalid_argument("--skip-seconds must be below --seconds");
    return o;
}

struct Life
{
    double samplesPerSec = 0.0; // after the skip
    int versions = 0;           // config versions made (the start not counted)
    int moves = 0;
    int calibrations = 0;
    AutotuneSettings last;
};

// A run of `base` for --seconds, tuned (with the model search or the hill climb) or
// fixed (`tuned` false), measured from --skip-seconds.
Life runLife(const RunConfig &base, bool tuned, bool model, const Options &o)
{
    RunConfig config = base;
    config.epochs = 0;
    config.maxSeconds = o.seconds;
    const auto run = makeEngine(config.engine);
    run->start(config);
    std::optional<benchmachine::LaterBusyLoop> busy;
    if (o.busyFromHalfway)
        busy.emplace(std::chrono::milliseconds(static_cast<std::int64_t>(o.seconds * 500)),
                     static_cast<int>(std::max(1U, std::thread::hardware_concurrency())) - 1);
    AutotuneOptions options;
    options.model = model;
    Life life;
    if (tuned) {
        Autotuner tuner(*run, options);
        run->waitForEnd();
        life.moves = tuner.moves();
        life.calibrations = tuner.calibrations();
    } else {
        run->waitForEnd();
    }
    if (busy && !busy->started())
        throw std::runtime_error("the busy loop did not start");
    busy.reset();
    if (!run->error().empty())
        throw std::runtime_error("the autotuned run failed: " + run->error());
    const auto trace = run->trace();
    const auto records = trace->records(0, trace->size());
    const auto skip = static_cast<std::int64_t>(o.skipSeconds * 1e9);
    const auto first = std::find_if(records.begin(), records.end(),
                                    [&](const TraceRecord &r) { return r.computeEndNs >= skip; });
    if (first == records.end() || first + 1 == records.end())
        throw std::runtime_error("the run ended before --skip-seconds");
    std::int64_t samples = 0;
    for (auto it = first + 1; it != records.end(); ++it)
        samples += it->samples;
    life.samplesPerSec = static_cast<double>(samples)
                         / (static_cast<double>(records.back().computeEndNs - first->computeEndNs)
                            / 1e9);
    life.versions = static_cast<int>(trace->configVersions().size()) - 1;
    life.last = autotuneSettingsOf(run->config());
    return life;
}

void benchEngine(EngineKind engine, const Options &o, const fs::path &scratch, int cores)
{
    RunConfig base;
    base.engine = engine;
    base.dataset.kind = DatasetKind::ImageFolder;
    base.dataset.path = o.folder;
    base.loader.numWorkers = o.workers;
    base.loader.batchSize = o.batch;
    base.consumer.kind = ConsumerKind::Sleep;
    base.consumer.sleepPerBatchMs = o.sleepBatchMs;
    const AutotuneSpace space = autotuneSpace(autotuneSettingsOf(base),
                                              autotuneLimits(base, AutotuneOptions{}, cores));
    const SweepDefinition sweep = sweepOver(base, space, o.cellSamples);
    std::printf("\n== %s engine: start %s; the space: workers %s x prefetch %s = %zu cells "
                "of %.0f samples\n",
                engineLabel(engine), settingText(autotuneSettingsOf(base)).c_str(),
                valuesText(space.workers).c_str(), valuesText(space.prefetch).c_str(),
                space.workers.size() * space.prefetch.size(), o.cellSamples);
    std::map<std::string, std::vector<double>> ratios;
    std::map<std::string, std::vector<double>> perMinute;
    std::map<std::string, std::vector<double>> cellRatios;
    std::vector<double> controls; // the best fixed setting's second life over its first
    const std::vector<std::pair<std::string, bool>> tuners =
        o.hill ? std::vector<std::pair<std::string, bool>>{{"model", true}, {"hill", false}}
               : std::vector<std::pair<std::string, bool>>{{"model", true}};
    for (int r = 0; r < o.rounds; ++r) {
        const bool sweepFirst = r % 2 == 0;
        std::printf("round %d (%s first), load %s:\n", r + 1, sweepFirst ? "sweep" : "autotune",
                    loadAverage().c_str());
        SweepRun swept;
        std::vector<std::pair<std::string, Life>> lives;
        for (int k = 0; k < 2; ++k) {
            if ((k == 0) == sweepFirst) {
                swept = runSweep(sweep, scratch / "sweep");
                std::printf("  sweep: %zu cells in %.0f s; best fixed %s, %.1f samples/s\n",
                            swept.cells.size(), swept.wallSeconds,
                            settingText(swept.best.setting).c_str(), swept.best.samplesPerSec);
            } else {
                for (const auto &[name, model] : tuners) {
                    const Life life = runLife(base, true, model, o);
                    lives.emplace_back(name, life);
                    std::printf("  autotune (%s): %.1f samples/s after %.0f s; %d config "
                                "versions (%.1f a minute), %d moves, %d calibrations; ended at "
                                "%s\n",
                                name.c_str(), life.samplesPerSec, o.skipSeconds, life.versions,
                                life.versions / (o.seconds / 60.0), life.moves, life.calibrations,
                                settingText(life.last).c_str());
                }
            }
        }
        RunConfig best = base;
        best.loader.numWorkers = swept.best.setting.workers;
        best.loader.prefetchFactor = swept.best.setting.prefetch;
        best.loader.batchSize = swept.best.setting.batchSize;
        const Life fixed = runLife(best, false, false, o);
        const Life again = runLife(best, false, false, o);
        const double fixedMean = (fixed.samplesPerSec + again.samplesPerSec) / 2.0;
        controls.push_back(again.samplesPerSec / fixed.samplesPerSec);
        std::printf("  best fixed, run for its life twice: %.1f and %.1f samples/s after %.0f s "
                    "(mean %.1f; the second / the first %.3f)\n",
                    fixed.samplesPerSec, again.samplesPerSec, o.skipSeconds, fixedMean,
                    controls.back());
        for (const auto &[name, life] : lives) {
            const double ratio = life.samplesPerSec / fixedMean;
            ratios[name].push_back(ratio);
            cellRatios[name].push_back(life.samplesPerSec / swept.best.samplesPerSec);
            perMinute[name].push_back(life.versions / (o.seconds / 60.0));
            std::printf("  ratio %s/best fixed %.3f -> %s (against the sweep's best cell %.3f)\n",
                        name.c_str(), ratio, ratio >= kTarget ? "PASS" : "FAIL",
                        cellRatios[name].back());
        }
    }
    for (const auto &[name, _] : tuners) {
        const Spread s = spreadOf(ratios[name]);
        const Spread v = spreadOf(perMinute[name]);
        const Spread c = spreadOf(cellRatios[name]);
        std::printf("%s, %s over %d rounds: lifetime/best fixed min %.3f, median %.3f, max %.3f "
                    "(target >= %.2f: %s); against the sweep's best cell min %.3f, median %.3f, "
                    "max %.3f; config versions a minute min %.1f, median %.1f, max %.1f\n",
                    engineLabel(engine), name.c_str(), o.rounds, s.min, s.median, s.max, kTarget,
                    s.median >= kTarget ? "PASS" : "FAIL", c.min, c.median, c.max, v.min, v.median,
                    v.max);
    }
    const Spread c = spreadOf(controls);
    std::printf("%s, the best fixed setting against itself over %d rounds (the second life / "
                "the first): min %.3f, median %.3f, max %.3f\n",
                engineLabel(engine), o.rounds, c.min, c.median, c.max);
}

} // namespace

int main(int argc, char **argv)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    try {
        const Options o = parse(argc, argv);
        setupLogging(o.logLevel);
        const fs::path scratch = fs::temp_directory_path() / "loaderlab-bench-autotune-lifetime";
        fs::remove_all(scratch);
        fs::create_directories(scratch);
        const int cores = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
        const std::string commit = commandOutput(
            "git -C '" LOADERLAB_SOURCE_DIR "' describe --always --dirty --abbrev=12 2>/dev/null");
        std::printf("commit:  %s\n", commit.empty() ? "unknown" : commit.c_str());
        std::printf("machine: %s, %d CPUs, %s\n", cpuModel().c_str(), cores,
                    commandOutput("uname -sr").c_str());
        std::printf("dataset: %s, batch %d, a %.0f ms sleep step per batch; runs of %.0f s, "
                    "measured after %.0f s%s\n",
                    o.folder.c_str(), o.batch, o.sleepBatchMs, o.seconds, o.skipSeconds,
                    o.busyFromHalfway ? "; a busy loop on the last core from halfway through "
                                        "each run (not the sweep)"
                                      : "");
        std::printf("load average at start: %s\n", loadAverage().c_str());
        for (const EngineKind engine : o.engines)
            benchEngine(engine, o, scratch, cores);
        std::printf("\nload average at end: %s\n", loadAverage().c_str());
        fs::remove_all(scratch);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab_bench_autotune_lifetime: %s\n", e.what());
        return 1;
    }
    return 0;
}
