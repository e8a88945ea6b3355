#pragma once

// The sweep's results as plain text for the terminal: one row per cell (axis
// values, runs, end-to-end time with its spread, samples/s, first batch, input-bound
// share, wait p95, or the failure), then the recommendations.

#include "core/sweep/sweep_analysis.h"

#include <string>

namespace Cli {

std::string sweepTable(const loaderlab::SweepAnalysis &analysis);

} // namespace Cli
