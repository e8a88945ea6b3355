#pragma once

// The loader's roofline: samples/s against the cores given to loading, with each
// measured ceiling (core/limits/ceilings.h) as a line and runs placed on it as points.
// The decode and the preprocessed alternative rise with the cores at their rate per
// core, up to the machine's cores; storage, the hand-over and the step are flat. A
// run's point sits at its workers (0 workers: the one thread that steps loads). Drawn
// as an SVG plot (core/io/svg_plot.h), headless; docs/ceilings.md, "The roofline".

#include "core/io/svg_plot.h"
#include "core/limits/ceilings.h"

#include <string>
#include <vector>

namespace loaderlab {

struct RooflinePoint
{
    std::string label;
    int workers = 0;
    double samplesPerSecond = 0.0;
};

// The runs to place from `path`: a recorded run's summary JSON (one point: its workers
// and mean rate), or a sweep's results folder (one point per finished cell). Throws
// std::invalid_argument naming the path when it is neither or has no rate.
std::vector<RooflinePoint> rooflinePoints(const std::string &path);

// Whether the roofline draws `c` off the top of its plot: the hand-over, usually far
// above the rest (it would flatten them), unless it binds the job.
bool aboveTheRoofline(const Ceiling &c, const CeilingReport &report);

// The roofline of `report` with `points`.
SvgPlotSpec rooflinePlot(const CeilingReport &report, const std::vector<RooflinePoint> &points);

} // namespace loaderlab
