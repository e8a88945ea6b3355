#pragma once

// What the autotune benchmarks share: a sweep over the autotuner's space run as
// `loaderlab sweep` runs it, its best cell, the text of a setting, and a spread.

#include "core/autotune/autotune_search.h"
#include "core/config/run_config.h"
#include "core/sweep/sweep.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace benchautotune {

double secondsSince(std::chrono::steady_clock::time_point start);
std::string valuesText(const std::vector<int> &values); // "1,2,4"
std::string
settingText(const loaderlab::AutotuneSettings &setting); // "2 workers, prefetch 2, batch 32"

// workers x prefetch x batch size of `space` over `base`, `samples` a cell.
loaderlab::SweepDefinition sweepOver(const loaderlab::RunConfig &base,
                                     const loaderlab::AutotuneSpace &space, double samples);

struct Cell
{
    loaderlab::AutotuneSettings setting;
    double samplesPerSec = 0.0; // the sweep's figure: the mean after warm-up
};

struct SweepRun
{
    std::vector<Cell> cells;
    Cell best;
    double wallSeconds = 0.0;
};

// Runs `definition` into a fresh folder with SweepRunner's defaults, as `loaderlab
// sweep` does (each cell's per-batch CSV written as it runs). Throws when a cell fails.
SweepRun runSweep(const loaderlab::SweepDefinition &definition, const std::filesystem::path &dir);

struct Spread
{
    double min = 0, median = 0, max = 0;
};
Spread spreadOf(std::vector<double> values);

} // namespace benchautotune
