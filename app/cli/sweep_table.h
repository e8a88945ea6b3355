#pragma once

// The sweep's results as plain text for the terminal: one row per cell (axis
// values, runs, end-to-end time with its spread, samples/s, first batch, input-bound
// share, wait p95, or the failure), then the recommendations, then speedup and
// efficiency along one numeric axis.

#include "core/sweep/sweep_analysis.h"

#include <string>

namespace loaderlab::cli {

// `scalingKey`: the axis for speedup and efficiency; empty picks loader.num_workers
// when it is an axis. Throws std::invalid_argument when it is not an axis.
std::string sweepTable(const loaderlab::SweepAnalysis &analysis,
                       const std::string &scalingKey = {});

// "speedup along KEY ..." lines, one per combination of the other axes.
std::string scalingText(const loaderlab::SweepAnalysis &analysis, const std::string &key);

} // namespace loaderlab::cli
