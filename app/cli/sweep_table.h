#pragma once

// The sweep's results as plain text for the terminal: one row per cell (axis
// values, runs, the figures of core/sweep/sweep_figures.h in its order, with its
// headings and decimals: end-to-end time with its spread, samples/s, first batch,
// input-bound share, wait p95; or the failure; a cell `sweep --predict-first` skipped
// with the figures predicted for it in parentheses), then the recommendations, then
// speedup and efficiency along one numeric axis.

#include "core/sweep/sweep_analysis.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loaderlab::cli {

// A column after the figures (`loaderlab predict`'s wait period): its heading and each
// cell's text by the cell's grid position; "-" where it has none.
struct SweepTableColumn
{
    std::string heading;
    std::map<std::int64_t, std::string> byGrid;
};

// `scalingKey`: the axis for speedup and efficiency; empty picks loader.num_workers
// when it is an axis. Throws std::invalid_argument when it is not an axis.
std::string sweepTable(const loaderlab::SweepAnalysis &analysis, const std::string &scalingKey = {},
                       const std::vector<SweepTableColumn> &extraColumns = {});

// "2 workers, batch 16 (repeat 2)": a cell's axis values as progress lines show them.
std::string sweepCellText(const loaderlab::SweepDefinition &definition,
                          const loaderlab::SweepCell &cell);

// "speedup along KEY ..." lines, one per combination of the other axes.
std::string scalingText(const loaderlab::SweepAnalysis &analysis, const std::string &key);

} // namespace loaderlab::cli
