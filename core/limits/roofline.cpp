#include "core/limits/roofline.h"

#include "core/io/run_reader.h"
#include "core/sweep/sweep.h"
#include "core/sweep/sweep_results.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>

namespace loaderlab {
namespace {

// Free cores this close to the machine's count are all of them.
constexpr double kSameCores = 0.05;

// Colour-blind-safe (Okabe-Ito), one per ceiling in CeilingKind's order.
constexpr const char *kColours[] = {"#E69F00", "#0072B2", "#009E73", "#CC79A7", "#56B4E9"};

RooflinePoint runPoint(const std::string &path)
{
    const nlohmann::json json = loadSummaryJson(path);
    const RunReport report = runReportFromJson(json, path);
    const nlohmann::json summary = json.value("summary", nlohmann::json::object());
    const auto rate = summary.find("samples_per_sec_mean");
    if (rate == summary.end() || !rate->is_number() || !(rate->get<double>() > 0.0))
        throw std::invalid_argument(path + ": the run has no rate (samples_per_sec_mean)");
    const std::string name = std::filesystem::path(path).stem().string();
    return {name, report.config.loader.numWorkers, rate->get<double>()};
}

std::vector<RooflinePoint> sweepPoints(const std::string &dir)
{
    SweepDefinition definition;
    const std::map<std::int64_t, SweepRecord> records = readSweepRecords(dir, &definition);
    std::map<std::int64_t, const SweepCell *> cells;
    const std::vector<SweepCell> all = expandSweep(definition);
    for (const SweepCell &cell : all)
        cells[cell.order] = &cell;
    std::vector<RooflinePoint> points;
    for (const auto &[order, record] : records) {
        const auto cell = cells.find(order);
        if (!record.finished() || cell == cells.end() || !(record.samplesPerSecond() > 0.0))
            continue;
        std::string label = "cell " + std::to_string(order);
        for (std::size_t a = 0; a < definition.axes.size() && a < record.values.size(); ++a)
            label += " " + sweepValueText(definition.axes[a].key, record.values[a]);
        points.push_back(
            {label, cell->second->config.loader.numWorkers, record.samplesPerSecond()});
    }
    if (points.empty())
        throw std::invalid_argument(dir + ": no finished cell with a rate in these sweep results");
    return points;
}

double pointCores(const RooflinePoint &p)
{
    return std::max(p.workers, 1); // 0 workers: the thread that steps loads
}

} // namespace

std::vector<RooflinePoint> rooflinePoints(const std::string &path)
{
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
        return sweepPoints(path);
    return {runPoint(path)};
}

bool aboveTheRoofline(const Ceiling &c, const CeilingReport &report)
{
    return c.kind == CeilingKind::Handover && &c != report.jobBinding();
}

SvgPlotSpec rooflinePlot(const CeilingReport &report, const std::vector<RooflinePoint> &points)
{
    SvgPlotSpec spec;
    spec.id = "roofline";
    char title[120];
    std::snprintf(title, sizeof title, "the loader's roofline on %d cores, %.1f free to it",
                  report.cores, report.freeCores);
    spec.title = title;
    spec.xLabel = "cores loading (workers)";
    spec.yLabel = "samples/s";
    spec.height = 420;
    double xMax = std::max(report.cores, 1);
    for (const RooflinePoint &p : points)
        xMax = std::max(xMax, pointCores(p));
    xMax += 1.0;
    double top = 0.0; // the highest value the plot must show
    for (const RooflinePoint &p : points)
        top = std::max(top, p.samplesPerSecond);
    for (const Ceiling &c : report.ceilings) {
        if (!c.measured())
            continue;
        SvgSeries line;
        line.name = std::string(ceilingKindName(c.kind)) + " "
                    + std::to_string(std::lround(c.samplesPerSecond));
        line.colour = kColours[static_cast<int>(c.kind)];
        line.style = SvgSeries::Style::Line;
        // The decode scales with the cores; the others were measured as they are (the
        // preprocessed read is bounded by the storage rate).
        const bool perCore = c.kind == CeilingKind::Decode;
        if (perCore && report.freeCores > 0.0) {
            // Measured on the free cores: its rate per core, on any number of cores.
            const double rate = c.samplesPerSecond / report.freeCores;
            line.name = std::string(ceilingKindName(c.kind)) + " "
                        + std::to_string(std::lround(rate)) + "/core";
            line.points = {{0.0, 0.0}, {xMax, rate * xMax}};
            top = std::max(top, rate * std::max(report.cores, 1));
        } else {
            line.points = {{0.0, c.samplesPerSecond}, {xMax, c.samplesPerSecond}};
            line.dashed = c.kind == CeilingKind::Step || c.kind == CeilingKind::Preprocessed;
            if (aboveTheRoofline(c, report))
                line.name += " (above)";
            else
                top = std::max(top, c.samplesPerSecond);
        }
        spec.series.push_back(std::move(line));
    }
    if (!points.empty()) {
        SvgSeries runs;
        runs.name = points.size() == 1 ? points.front().label : "runs";
        runs.colour = "#000000";
        runs.style = SvgSeries::Style::Dots;
        for (const RooflinePoint &p : points)
            runs.points.emplace_back(pointCores(p), p.samplesPerSecond);
        std::sort(runs.points.begin(), runs.points.end());
        spec.series.push_back(std::move(runs));
    }
    spec.yMax = top > 0.0 ? top * 1.15 : 0.0;
    // One marker where every core was free (two would draw over each other).
    if (report.freeCores > 0.0 && report.freeCores < report.cores - kSameCores) {
        char label[32];
        std::snprintf(label, sizeof label, "%.1f free", report.freeCores);
        spec.markers.push_back({report.freeCores, label, false});
    }
    const bool allFree = report.freeCores >= report.cores - kSameCores;
    spec.markers.push_back(
        {static_cast<double>(report.cores),
         std::to_string(report.cores) + (allFree ? " cores, all free" : " cores"), true});
    return spec;
}

} // namespace loaderlab
