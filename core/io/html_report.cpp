#include "core/io/html_report.h"

#include "core/config/marker_text.h"
#include "core/config/run_config_json.h"
#include "core/io/svg_plot.h"
#include "core/system/atomic_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>

namespace loaderlab {

namespace {

// Events listed per run at most (a run of tiny epochs marks thousands).
constexpr std::size_t kMaxEventRows = 500;
constexpr std::size_t kMaxSkippedRows = 20;

const std::string &colourOf(const std::vector<ReportRun> &runs, std::size_t i)
{
    return runs[i].colour.empty() ? reportColour(i) : runs[i].colour;
}

std::string format(const char *pattern, double value)
{
    char text[64];
    std::snprintf(text, sizeof text, pattern, value);
    return text;
}

std::string cell(const std::string &text, bool number = false)
{
    return std::string(number ? "<td class=\"n\">" : "<td>") + xmlEscape(text) + "</td>";
}

// The config as "key path → value" rows, nested objects flattened ("loader.num_workers").
void flatten(const nlohmann::json &json, const std::string &prefix,
             std::vector<std::pair<std::string, std::string>> &rows)
{
    if (json.is_object()) {
        for (const auto &[key, value] : json.items())
            flatten(value, prefix.empty() ? key : prefix + "." + key, rows);
        return;
    }
    rows.emplace_back(prefix, json.is_string() ? json.get<std::string>() : json.dump());
}

// Each marker's number as the window gives it: events 1, 2, 3…, epochs none (0).
std::vector<int> eventNumbers(const std::vector<TraceMarker> &markers)
{
    std::vector<int> numbers;
    int next = 0;
    for (const TraceMarker &m : markers)
        numbers.push_back(m.kind == MarkerKind::Epoch ? 0 : ++next);
    return numbers;
}

std::vector<SvgMarker> plotMarkers(const std::vector<TraceMarker> &markers, bool byTime)
{
    std::vector<SvgMarker> out;
    const std::vector<int> numbers = eventNumbers(markers);
    const auto epochs = std::count_if(markers.begin(), markers.end(), [](const TraceMarker &m) {
        return m.kind == MarkerKind::Epoch;
    });
    for (std::size_t i = 0; i < markers.size(); ++i) {
        const TraceMarker &m = markers[i];
        const bool epoch = m.kind == MarkerKind::Epoch;
        if (epoch && epochs > 100)
            continue; // a comb of epoch lines would hide the data
        const double x = byTime ? static_cast<double>(m.timeNs) / 1e9
                                : static_cast<double>(m.batch);
        out.push_back({x, epoch ? "e" + m.detail : "#" + std::to_string(numbers[i]), epoch});
    }
    return out;
}

// A plot of the report's size, its series and markers still to come.
SvgPlotSpec reportPlot(const char *id, const char *title, const char *xLabel, const char *yLabel,
                       bool logX, const ReportOptions &options)
{
    return {id, title, xLabel, yLabel, options.plotWidth, options.plotHeight, logX, {}, {}, 0.0};
}

SvgPlotSpec waitPlot(const std::vector<ReportRun> &runs, const ReportOptions &options)
{
    SvgPlotSpec spec = reportPlot("wait", "Wait time per batch", "batch", "wait (ms)", false,
                                  options);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        SvgSeries series{runs[i].name, colourOf(runs, i), SvgSeries::Style::Dots, false, {}};
        if (runs[i].trace)
            for (const TraceRecord &r : runs[i].trace->records())
                series.points.emplace_back(static_cast<double>(r.index),
                                           static_cast<double>(r.waitNs()) / 1e6);
        spec.series.push_back(std::move(series));
    }
    if (!runs.empty())
        spec.markers = plotMarkers(runs.front().report.markers, false);
    return spec;
}

SvgPlotSpec throughputPlot(const std::vector<ReportRun> &runs, const ReportOptions &options)
{
    SvgPlotSpec spec = reportPlot("throughput", "Throughput", "time from the run's start (s)",
                                  "samples/s", false, options);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        SvgSeries series{runs[i].name, colourOf(runs, i), SvgSeries::Style::Line, false, {}};
        const std::vector<TraceRecord> records = runs[i].trace ? runs[i].trace->records()
                                                               : std::vector<TraceRecord>{};
        if (records.size() >= 2) {
            // Samples delivered per bin: about 100 bins over the run (at least 10 ms),
            // fewer where the run has few batches, four a bin on average (bins of one
            // batch or none read as spikes to 0).
            const double end = static_cast<double>(records.back().deliveryNs) / 1e9;
            const double bin = std::max(
                {end / 100.0, 0.01, 4.0 * end / static_cast<double>(records.size())});
            std::map<long, double> samples;
            for (const TraceRecord &r : records)
                samples[static_cast<long>(static_cast<double>(r.deliveryNs) / 1e9 / bin)] +=
                    r.samples;
            const long last = static_cast<long>(end / bin); // partial: left out
            for (long b = samples.begin()->first; b < last; ++b) {
                const auto it = samples.find(b);
                series.points.emplace_back((static_cast<double>(b) + 0.5) * bin,
                                           (it == samples.end() ? 0.0 : it->second) / bin);
            }
        }
        spec.series.push_back(std::move(series));
    }
    if (!runs.empty())
        spec.markers = plotMarkers(runs.front().report.markers, true);
    return spec;
}

SvgPlotSpec histogramPlot(const std::vector<ReportRun> &runs, const ReportOptions &options)
{
    SvgPlotSpec spec = reportPlot("histogram", "Wait histogram", "wait (ms, log scale)",
                                  "share of batches (%)", true, options);
    constexpr int kPerDecade = 5;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        SvgSeries series{runs[i].name, colourOf(runs, i), SvgSeries::Style::Steps, false, {}};
        const std::vector<TraceRecord> records = runs[i].trace ? runs[i].trace->records()
                                                               : std::vector<TraceRecord>{};
        std::map<int, int> bins; // log-spaced from 1 µs (1e-3 ms)
        for (const TraceRecord &r : records) {
            const double ms = std::max(static_cast<double>(r.waitNs()) / 1e6, 1e-3);
            ++bins[static_cast<int>(std::floor(std::log10(ms / 1e-3) * kPerDecade))];
        }
        if (!bins.empty()) {
            for (int b = bins.begin()->first; b <= bins.rbegin()->first + 1; ++b) {
                const auto it = bins.find(b);
                const double share = it == bins.end() ? 0.0 : 100.0 * it->second / records.size();
                series.points.emplace_back(
                    1e-3 * std::pow(10.0, static_cast<double>(b) / kPerDecade), share);
            }
        }
        spec.series.push_back(std::move(series));
    }
    return spec;
}

std::string compareTable(const std::vector<ReportRun> &runs)
{
    std::string html = "<table><tr><th>Run</th><th>Samples/s mean</th><th>Samples/s median</th>"
                       "<th>Wait mean (ms)</th><th>Wait p95 (ms)</th><th>Input-bound</th>"
                       "<th>First batch (ms)</th><th>Batches</th></tr>";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const RunSummary &s = runs[i].report.summary;
        html += "<tr><td><span class=\"sw\" style=\"background:" + xmlEscape(colourOf(runs, i))
                + "\"></span>" + xmlEscape(runs[i].name) + "</td>"
                + cell(format("%.1f", s.samplesPerSecMean), true)
                + cell(format("%.1f", s.samplesPerSecMedian), true)
                + cell(format("%.3f", s.waitMeanMs), true) + cell(format("%.3f", s.waitP95Ms), true)
                + cell(format("%.1f %%", 100.0 * s.inputBoundShare) + " ("
                           + inputBoundBandName(s.band) + ")",
                       true)
                + cell(format("%.1f", s.firstBatchLatencyMs), true)
                + cell(std::to_string(s.batches), true) + "</tr>";
    }
    return html + "</table>";
}

std::string runSection(const ReportRun &run, const std::string &colour)
{
    const RunReport &r = run.report;
    std::string html = "<h2><span class=\"sw\" style=\"background:" + xmlEscape(colour)
                       + "\"></span>" + xmlEscape(run.name) + "</h2><p>";
    if (!run.source.empty())
        html += "From <code>" + xmlEscape(run.source) + "</code>. ";
    if (!r.state.empty())
        html += "State: " + xmlEscape(r.state) + ". ";
    if (!r.dataset.empty())
        html += "Dataset: " + xmlEscape(r.dataset) + ".";
    html += "</p><p class=\"verdict\">" + xmlEscape(verdictLine(r.summary)) + "</p>";
    if (!r.error.empty())
        html += "<p class=\"error\">" + xmlEscape(r.error) + "</p>";

    html += "<h3>Settings</h3><table class=\"kv\">";
    std::vector<std::pair<std::string, std::string>> rows;
    flatten(toJson(r.config), "", rows);
    for (const auto &[key, value] : rows)
        html += "<tr>" + cell(key) + cell(value) + "</tr>";
    html += "</table>";

    if (r.configVersions.size() > 1) {
        html += "<h3>Config versions</h3><table><tr><th>Version</th><th>From batch</th>"
                "<th>Time (s)</th><th>Workers</th><th>Batch size</th></tr>";
        for (const ConfigVersion &v : r.configVersions)
            html += "<tr>" + cell(std::to_string(v.version), true)
                    + cell(std::to_string(v.firstBatch), true)
                    + cell(format("%.2f", static_cast<double>(v.timeNs) / 1e9), true)
                    + cell(std::to_string(v.config.loader.numWorkers), true)
                    + cell(std::to_string(v.config.loader.batchSize), true) + "</tr>";
        html += "</table>";
    }

    html += "<h3>Events</h3>";
    if (r.markers.empty()) {
        html += "<p>None.</p>";
    } else {
        const std::vector<int> numbers = eventNumbers(r.markers);
        html += "<table class=\"events\"><tr><th>#</th><th>Batch</th><th>Time (s)</th>"
                "<th>Event</th></tr>";
        for (std::size_t i = 0; i < r.markers.size() && i < kMaxEventRows; ++i) {
            const TraceMarker &m = r.markers[i];
            html += std::string(numbers[i] == 0 ? "<tr class=\"epoch\">" : "<tr>")
                    + cell(numbers[i] == 0 ? "" : std::to_string(numbers[i]), true)
                    + cell(std::to_string(m.batch), true)
                    + cell(format("%.2f", static_cast<double>(m.timeNs) / 1e9), true)
                    + cell(markerText(m)) + "</tr>";
        }
        html += "</table>";
        if (r.markers.size() > kMaxEventRows)
            html += "<p>And " + std::to_string(r.markers.size() - kMaxEventRows)
                    + " more events (the run's JSON lists them all).</p>";
    }

    if (!r.summary.ranks.empty()) {
        html += "<h3>Ranks</h3><table><tr><th>Rank</th><th>Samples/s</th><th>Wait mean (ms)</th>"
                "<th>Input-bound</th><th>Slowest-rank wait (ms)</th><th>Exchange (ms)</th></tr>";
        for (const RankSummary &k : r.summary.ranks)
            html += "<tr>" + cell(std::to_string(k.rank), true)
                    + cell(format("%.1f", k.samplesPerSecMean), true)
                    + cell(format("%.3f", k.waitMeanMs), true)
                    + cell(format("%.1f %%", 100.0 * k.inputBoundShare), true)
                    + cell(format("%.3f", k.syncWaitMeanMs), true)
                    + cell(format("%.3f", k.exchangeMeanMs), true) + "</tr>";
        html += "</table>";
    }

    if (!r.skipped.empty()) {
        // A file is skipped again every epoch: one row a file, with how often.
        struct Skips
        {
            const SkippedSample *first;
            std::size_t times;
        };
        std::vector<Skips> files;
        std::map<std::string, std::size_t> row;
        for (const SkippedSample &k : r.skipped) {
            const auto [it, added] = row.emplace(k.source, files.size());
            if (added)
                files.push_back({&k, 0});
            ++files[it->second].times;
        }
        html += "<h3>Skipped samples (" + std::to_string(r.skipped.size()) + " skips of "
                + std::to_string(files.size()) + (files.size() == 1 ? " file" : " files")
                + ")</h3><table><tr><th>File</th><th>Reason</th><th>Times</th><th>First "
                  "batch</th></tr>";
        for (std::size_t i = 0; i < files.size() && i < kMaxSkippedRows; ++i) {
            const SkippedSample &k = *files[i].first;
            html += "<tr>" + cell(k.source) + cell(k.reason)
                    + cell(std::to_string(files[i].times), true)
                    + cell(std::to_string(k.batch), true) + "</tr>";
        }
        html += "</table>";
        if (files.size() > kMaxSkippedRows)
            html += "<p>… and " + std::to_string(files.size() - kMaxSkippedRows)
                    + " more files (the run's JSON lists every one).</p>";
    }
    return html;
}

} // namespace

const std::string &reportColour(std::size_t run)
{
    static const std::array<std::string, 8> kPalette = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                                        "#CC79A7", "#56B4E9", "#8C6D00", "#000000"};
    return kPalette[run % kPalette.size()];
}

std::string reportRunName(const std::string &source, const RunConfig &config)
{
    std::string name = std::filesystem::path(source).stem().string();
    name += ": " + std::to_string(config.loader.numWorkers)
            + (config.loader.numWorkers == 1 ? " worker" : " workers") + ", batch "
            + std::to_string(config.loader.batchSize);
    if (config.engine != EngineKind::LoaderLab)
        name += std::string(", ") + engineKindName(config.engine);
    return name;
}

std::string htmlReport(const std::vector<ReportRun> &runs, const ReportOptions &options)
{
    std::string html =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"generator\" content=\"LoaderLab "
        + xmlEscape(options.version) + "\"><title>" + xmlEscape(options.title)
        + "</title><style>"
          "body{font-family:sans-serif;max-width:1000px;margin:1em auto;padding:0 1em}"
          "table{border-collapse:collapse;margin:.5em 0}"
          "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
          "td.n{text-align:right;font-variant-numeric:tabular-nums}"
          "tr.epoch td{color:#777;font-style:italic}"
          ".sw{display:inline-block;width:12px;height:12px;margin-right:6px}"
          ".verdict{font-weight:bold}.error{color:#b00}"
          "figure{margin:1em 0}svg{max-width:100%;height:auto}"
          "table.kv td:first-child{font-family:monospace}"
          "@media print{figure,table{break-inside:avoid}}"
          "</style></head><body>\n";
    html += "<h1>" + xmlEscape(options.title) + "</h1><p>";
    if (!options.generatedAt.empty())
        html += "Written " + xmlEscape(options.generatedAt) + " by LoaderLab"
                + (options.version.empty() ? "" : " " + xmlEscape(options.version)) + ". ";
    if (!runs.empty()) {
        const MachineInfo &m = runs.front().report.machine;
        if (!m.cpuModel.empty())
            html += "Machine: " + xmlEscape(m.cpuModel) + ", " + std::to_string(m.logicalCores)
                    + " logical cores, "
                    + (m.memoryBytes > 0
                           ? format("%.1f GiB", static_cast<double>(m.memoryBytes) / (1 << 30))
                                 + ", "
                           : std::string())
                    + xmlEscape(m.os) + ".";
    }
    html += "</p>\n<h2>Runs</h2>" + compareTable(runs) + "\n<h2>Plots</h2>\n";
    html += "<p>Dashed lines are events, numbered as in each run's Events table below "
            "(the first run's on the plots); dotted lines are epochs (e N).</p>\n";
    for (const SvgPlotSpec &spec :
         {waitPlot(runs, options), throughputPlot(runs, options), histogramPlot(runs, options)})
        html += "<figure>" + svgPlot(spec) + "</figure>\n";
    for (std::size_t i = 0; i < runs.size(); ++i)
        html += runSection(runs[i], colourOf(runs, i)) + "\n";
    html += "</body></html>\n";
    return html;
}

void saveHtmlReport(const std::string &path, const std::vector<ReportRun> &runs,
                    const ReportOptions &options)
{
    const std::string html = htmlReport(runs, options);
    writeFileAtomically(path, [&html](std::ostream &out) { out << html; });
}

} // namespace loaderlab
