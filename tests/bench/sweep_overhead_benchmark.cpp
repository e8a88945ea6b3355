// loaderlab_bench_sweep: what the sweep runner itself costs per cell, next to the
// cell. The cell: the default dataset with the window's first-start settings
// (2 workers, batch 32, a 10 ms step) and 10,240 samples, as a sweep runs it.
//   (a) In rotating rounds: the cell run directly through RunService (no outputs),
//       directly writing the same per-batch CSV, and as a one-cell sweep through
//       SweepRunner (results folder, the CSV written as the run goes, the summary,
//       the record appended and fsync'd). Wall time and the process's CPU time
//       (user + system) of each; on a 2-core machine the cell is CPU-bound, so a
//       second process on the machine moves the wall times by tens of percent, and
//       the CPU times are the steadier comparison.
//   (b) The runner's own work, timed alone many times, so that no run-to-run noise
//       hides it: opening the results folder, expanding the cell, writing the
//       cell's real trace as CSV and its summary, appending its record with fsync.
//       Its sum is reported as a share of the cell's median wall time.
// Not a test: it prints figures and asserts nothing.
//
//   build/tests/bench/loaderlab_bench_sweep [--rounds 5]

#include "core/engine/run_service.h"
#include "core/io/summary_json.h"
#include "core/io/trace_csv.h"
#include "core/sweep/sweep.h"
#include "core/sweep/sweep_results.h"
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

#include <sys/resource.h>

namespace fs = std::filesystem;
using namespace loaderlab;

namespace {

struct Cost
{
    double wall = 0; // s
    double cpu = 0;  // s, user + system, the whole process
};

double cpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval &t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
    };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

Cost costOf(const std::function<void()> &work)
{
    const double cpu = cpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    work();
    return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
            cpuSeconds() - cpu};
}

// Seconds per call of `work`, over `calls` calls.
double perCall(int calls, const std::function<void()> &work)
{
    return costOf([&] {
               for (int i = 0; i < calls; ++i)
                   work();
           }).wall
           / calls;
}

struct Direct
{
    RunReport report;
    std::vector<TraceRecord> records;
};

Direct runDirect(const RunConfig &config, const std::string &csv = {})
{
    RunService service;
    RunOutputs outputs;
    outputs.csvPath = csv;
    service.start(config, outputs);
    service.wait();
    if (service.state() == RunState::Failed)
        throw std::runtime_error("direct run failed: " + service.report().error);
    Direct d{service.report(), service.engine().trace()->records()};
    service.writeOutputs(d.report);
    return d;
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

struct Spread
{
    double min = 0, median = 0, max = 0;
};

Spread spreadOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return {v.front(), n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v.back()};
}

void printSpread(const char *what, const std::vector<double> &v, double scale, const char *unit)
{
    const Spread s = spreadOf(v);
    std::printf("%s: median %+.2f%s, min %+.2f%s, max %+.2f%s\n", what, s.median * scale, unit,
                s.min * scale, unit, s.max * scale, unit);
}

} // namespace

int main(int argc, char **argv)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    int rounds = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--rounds") == 0)
            rounds = std::max(1, std::atoi(argv[i + 1]));
    }
    try {
        setupLogging("warn");
        const fs::path scratch = fs::temp_directory_path() / "loaderlab-bench-sweep";
        fs::remove_all(scratch);
        fs::create_directories(scratch);

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

        (void)runDirect(config); // warm the page cache and the allocator once
        const std::string csv = (scratch / "direct.csv").string();
        const std::function<void()> ways[] = {[&] { (void)runDirect(config); },
                                              [&] { (void)runDirect(config, csv); },
                                              [&] { runSweep(cell, scratch / "cell"); }};
        const char *names[] = {"direct", "direct with CSV", "sweep cell"};
        std::vector<double> wall[3], cpu[3], wallShare, cpuShare;
        for (int r = 0; r < rounds; ++r) {
            std::printf("round %d:", r + 1);
            for (int k = 0; k < 3; ++k) {
                const int way = (r + k) % 3; // who goes first rotates: a drift favours none
                const Cost c = costOf(ways[way]);
                wall[way].push_back(c.wall);
                cpu[way].push_back(c.cpu);
                std::printf(" %s %.3f s (cpu %.3f s);", names[way], c.wall, c.cpu);
            }
            wallShare.push_back(wall[2].back() / wall[0].back() - 1);
            cpuShare.push_back(cpu[2].back() / cpu[0].back() - 1);
            std::printf("\n");
        }
        for (int k = 0; k < 3; ++k) {
            const Spread w = spreadOf(wall[k]);
            const Spread c = spreadOf(cpu[k]);
            std::printf(
                "%-16s wall min/median/max %.3f / %.3f / %.3f s, cpu %.3f / %.3f / %.3f s\n",
                names[k], w.min, w.median, w.max, c.min, c.median, c.max);
        }
        printSpread("(a) sweep cell over direct, wall time, per round", wallShare, 100, " %");
        printSpread("(a) sweep cell over direct, CPU time, per round", cpuShare, 100, " %");

        // (b) The runner's own work, each part alone.
        const Direct direct = runDirect(config);
        const SweepResults done((scratch / "cell").string(), cell);
        const SweepRecord record = done.records().begin()->second;
        const double open = perCall(50, [&] {
            fs::remove_all(scratch / "open");
            SweepResults opened((scratch / "open").string(), cell);
        });
        const double expand = perCall(1000, [&] { (void)expandSweep(cell); });
        const std::string tracePath = (scratch / "cell" / record.trace).string();
        const auto traceBytes = fs::file_size(tracePath);
        const double csvWrite = perCall(
            50, [&] { saveTraceCsv((scratch / "again.csv").string(), direct.records); });
        const double summary = perCall(200, [&] { (void)toJson(direct.report.summary); });
        SweepResults appendTo((scratch / "append").string(), cell);
        SweepRecord again = record;
        const double append = perCall(100, [&] {
            ++again.order;
            appendTo.append(again);
        });
        const double total = open + expand + csvWrite + summary + append;
        const double cellWall = spreadOf(wall[0]).median;
        std::printf("(b) the runner's own work per cell: open the folder %.3f ms, expand %.3f ms, "
                    "the trace CSV (%zu batches, %llu bytes) %.3f ms, the summary %.3f ms, "
                    "append the record with fsync %.3f ms\n",
                    open * 1e3, expand * 1e3, direct.records.size(),
                    static_cast<unsigned long long>(traceBytes), csvWrite * 1e3, summary * 1e3,
                    append * 1e3);
        std::printf("(b) total %.2f ms = %.3f %% of the cell's median wall time (%.3f s)\n",
                    total * 1e3, total / cellWall * 100, cellWall);
        fs::remove_all(scratch);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab_bench_sweep: %s\n", e.what());
        return 1;
    }
    return 0;
}
