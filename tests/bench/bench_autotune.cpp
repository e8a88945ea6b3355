#include "bench_autotune.h"

#include "core/sweep/sweep_results.h"
#include "core/sweep/sweep_runner.h"

#include <algorithm>
#include <stdexcept>
#include <stop_token>

namespace fs = std::filesystem;
using namespace loaderlab;

namespace benchautotune {

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string valuesText(const std::vector<int> &values)
{
    std::string text;
    for (const int v : values)
        text += (text.empty() ? "" : ",") + std::to_string(v);
    return text;
}

std::string settingText(const AutotuneSettings &s)
{
    return std::to_string(s.workers) + " workers, prefetch " + std::to_string(s.prefetch)
           + ", batch " + std::to_string(s.batchSize);
}

SweepDefinition sweepOver(const RunConfig &base, const AutotuneSpace &space, double samples)
{
    SweepDefinition d;
    d.base = base;
    d.axes = {parseSweepAxis("loader.num_workers=" + valuesText(space.workers)),
              parseSweepAxis("loader.prefetch_factor=" + valuesText(space.prefetch)),
              parseSweepAxis("loader.batch_size=" + valuesText(space.batchSizes))};
    d.budget = {SweepBudget::Kind::Samples, samples};
    return d;
}

SweepRun runSweep(const SweepDefinition &definition, const fs::path &dir)
{
    fs::remove_all(dir);
    SweepRun out;
    const auto start = std::chrono::steady_clock::now();
    SweepRunner runner(definition, dir.string(), {});
    std::stop_source never;
    const SweepOutcome outcome = runner.run(never.get_token());
    out.wallSeconds = secondsSince(start);
    for (const auto &[order, record] : runner.results().records()) {
        if (record.failed())
            throw std::runtime_error("sweep cell " + std::to_string(order)
                                     + " failed: " + record.error);
        Cell cell{{record.values.at(0).get<int>(), record.values.at(1).get<int>(),
                   record.values.at(2).get<int>()},
                  record.samplesPerSecond()};
        out.cells.push_back(cell);
        if (cell.samplesPerSec > out.best.samplesPerSec)
            out.best = cell;
    }
    if (outcome.stopped || out.cells.empty())
        throw std::runtime_error("the sweep ran no cell");
    return out;
}

Spread spreadOf(std::vector<double> v)
{
    if (v.empty())
        return {};
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return {v.front(), n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v.back()};
}

} // namespace benchautotune
