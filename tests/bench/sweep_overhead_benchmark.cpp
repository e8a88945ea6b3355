// loaderlab_bench_sweep: what the sweep runner itself costs per cell, next to the
// cell. On the default dataset with the default settings and a 10,240-sample cell,
// in alternating rounds:
//   (a) the cell run directly through RunService (no outputs), and the same cell
//       run as a one-cell sweep through SweepRunner (results folder, per-batch
//       trace written as the run goes, the summary, the record appended and
//       fsync'd): the paired difference, as a share of the direct run;
//   (b) the runner's fixed cost per cell, free of the cell's run-to-run noise: a
//       sweep of many 1-batch cells against as many direct 1-batch runs.
// Not a test: it prints figures and asserts nothing.
//
//   build/tests/bench/loaderlab_bench_sweep [--rounds 5] [--tiny-cells 40]

#include "core/run/run_service.h"
#include "core/sweep/sweep.h"
#include "core/sweep/sweep_runner.h"
#include "core/system/logging.h"
#include "core/tools/default_dataset.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace loaderlab;

namespace {

double secondsOf(const std::function<void()> &work)
{
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void runDirect(const RunConfig &config, const std::string &csv = {})
{
    RunService service;
    RunOutputs outputs;
    outputs.csvPath = csv;
    service.start(config, outputs);
    service.wait();
    if (service.state() == RunState::Failed)
        throw std::runtime_error("direct run failed: " + service.report().error);
}

void runSweep(const SweepDefinition &definition, const fs::path &dir)
{
    fs::remove_all(dir);
    SweepRunner runner(definition, dir.string(), {});
    std::stop_source never;
    const SweepOutcome outcome = runner.run(never.get_token());
    if (outcome.failed > 0 || outcome.stopped)
        throw std::runtime_error("sweep cell failed: "
                                 + runner.results().records().begin()->second.error);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

} // namespace

int main(int argc, char **argv)
{
    int rounds = 5;
    int tinyCells = 40;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--rounds") == 0)
            rounds = std::max(1, std::atoi(argv[i + 1]));
        else if (std::strcmp(argv[i], "--tiny-cells") == 0)
            tinyCells = std::max(1, std::atoi(argv[i + 1]));
    }
    try {
        const fs::path scratch = fs::temp_directory_path() / "loaderlab-bench-sweep";
        fs::create_directories(scratch);

        // The cell: the window's first-start settings (the default dataset, 2 workers,
        // batch 32, a 10 ms simulated step).
        setupLogging("warn");
        SweepDefinition cell;
        cell.base.dataset.kind = DatasetKind::ImageFolder;
        cell.base.dataset.path = ensureDefaultImageFolder();
        cell.base.consumer.kind = ConsumerKind::Sleep;
        cell.base.consumer.sleepPerBatchMs = 10.0;
        cell.axes = {
            parseSweepAxis("loader.num_workers=" + std::to_string(cell.base.loader.numWorkers))};
        cell.budget = {SweepBudget::Kind::Samples, 10'240};
        const RunConfig config = expandSweep(cell).front().config;
        std::printf("cell: %s, %d workers, batch %d, 10 ms step, 10240 samples\n",
                    cell.base.dataset.path.c_str(), config.loader.numWorkers,
                    config.loader.batchSize);

        runDirect(config); // warm the page cache and the allocator once
        // Three ways, in an order that rotates every round so a drift favours none:
        // direct, direct writing the same per-batch CSV, and the one-cell sweep.
        const std::string csv = (scratch / "direct.csv").string();
        const std::function<void()> ways[] = {[&] { runDirect(config); },
                                              [&] { runDirect(config, csv); },
                                              [&] { runSweep(cell, scratch / "cell"); }};
        std::vector<double> direct, share, shareCsv;
        for (int r = 0; r < rounds; ++r) {
            double t[3] = {};
            for (int k = 0; k < 3; ++k) {
                const int way = (r + k) % 3;
                t[way] = secondsOf(ways[way]);
            }
            direct.push_back(t[0]);
            share.push_back((t[2] - t[0]) / t[0]);
            shareCsv.push_back((t[2] - t[1]) / t[1]);
            std::printf("round %d: direct %.3f s, direct with CSV %.3f s, sweep cell %.3f s: "
                        "sweep %+.2f %% over direct, %+.2f %% over direct with CSV\n",
                        r + 1, t[0], t[1], t[2], share.back() * 100, shareCsv.back() * 100);
        }
        const auto report = [rounds](const char *what, const std::vector<double> &v) {
            std::printf("(a) %s over %d rounds: median %+.2f %%, range %+.2f .. %+.2f %%\n", what,
                        rounds, median(v) * 100, *std::min_element(v.begin(), v.end()) * 100,
                        *std::max_element(v.begin(), v.end()) * 100);
        };
        report("sweep cell vs direct run", share);
        report("sweep cell vs direct run with the same CSV", shareCsv);

        // (b) the fixed cost per cell, from cells of one batch each.
        SweepDefinition tiny = cell;
        tiny.axes = {
            parseSweepAxis("loader.num_workers=" + std::to_string(cell.base.loader.numWorkers))};
        tiny.budget = {SweepBudget::Kind::Batches, 1};
        tiny.repeats = tinyCells;
        const RunConfig tinyConfig = expandSweep(tiny).front().config;
        std::vector<double> fixed;
        for (int r = 0; r < 3; ++r) {
            const double d = secondsOf([&] {
                for (int c = 0; c < tinyCells; ++c)
                    runDirect(tinyConfig);
            });
            const double s = secondsOf([&] { runSweep(tiny, scratch / "tiny"); });
            fixed.push_back((s - d) / tinyCells);
            std::printf("tiny round %d: %d direct 1-batch runs %.3f s, a %d-cell sweep %.3f s: "
                        "%+.2f ms per cell\n",
                        r + 1, tinyCells, d, tinyCells, s, (s - d) / tinyCells * 1e3);
        }
        const double cellSeconds = median(direct);
        std::printf("(b) the runner's fixed cost per cell: median %.2f ms, range %.2f .. %.2f ms "
                    "= %.3f %% of the %.2f s cell\n",
                    median(fixed) * 1e3, *std::min_element(fixed.begin(), fixed.end()) * 1e3,
                    *std::max_element(fixed.begin(), fixed.end()) * 1e3,
                    median(fixed) / cellSeconds * 100, cellSeconds);
        fs::remove_all(scratch);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab_bench_sweep: %s\n", e.what());
        return 1;
    }
    return 0;
}
