#pragma once

// The one-file report: a self-contained HTML page (no script, no external file, the
// plots inline as SVG) of one or more runs: the machine, a table comparing the runs'
// figures, the wait per batch, throughput and wait histogram of every run together,
// and for each run its verdict and advice, its settings, its config versions, its
// events (numbered as the window numbers them: epochs unnumbered), the ranks of a
// data-parallel run and the samples it skipped. `loaderlab report` writes it from
// recorded runs, the window's File → Export report from the runs it shows.

#include "core/io/summary_json.h"
#include "core/trace/trace_log.h"

#include <memory>
#include <string>
#include <vector>

namespace loaderlab {

struct ReportRun
{
    std::string name;
    std::string source; // the file the run was read from; empty for a window's run
    RunReport report;
    std::shared_ptr<const TraceLog> trace;
    std::string colour; // CSS colour; empty: reportColour(its place)
};

struct ReportOptions
{
    std::string title = "LoaderLab report";
    std::string generatedAt; // e.g. "2026-12-01 14:40 UTC"
    std::string version;     // LoaderLab's
    int plotWidth = 960;
    int plotHeight = 320;
};

// The plots' colours where a run has none, the window's palette (Okabe-Ito's): run i
// gets colour i mod 8.
const std::string &reportColour(std::size_t run);

std::string htmlReport(const std::vector<ReportRun> &runs, const ReportOptions &options);
// Atomic: a report that cannot be written leaves any file of that name as it was.
// Throws std::runtime_error naming the path and the reason.
void saveHtmlReport(const std::string &path, const std::vector<ReportRun> &runs,
                    const ReportOptions &options);

// The name a run is given in a report without one: "FILE: 2 workers, batch 32".
std::string reportRunName(const std::string &source, const RunConfig &config);

} // namespace loaderlab
