#include "core/predict/sweep_prediction_error.h"

#include "core/io/run_reader.h"
#include "core/io/trace_csv.h"
#include "core/predict/predicted_sweep.h"
#include "core/stats/run_summary.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <thread>

namespace loaderlab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

SweepCellFigures figuresOf(const Prediction &p)
{
    return {p.samplesPerSecond, p.endToEndSeconds, p.firstBatchSeconds * 1e3, p.inputBoundShare,
            p.waitP95Seconds * 1e3};
}

// Where SweepCellFigures keeps a figure.
template <typename Figures>
auto &cellFigureOf(Figures &f, SweepFigureId id)
{
    switch (id) {
    case SweepFigureId::EndToEnd:
        return f.endToEndSeconds;
    case SweepFigureId::SamplesPerSecond:
        return f.samplesPerSecond;
    case SweepFigureId::FirstBatch:
        return f.firstBatchMs;
    case SweepFigureId::InputBoundShare:
        return f.inputBoundShare;
    case SweepFigureId::WaitP95:
        return f.waitP95Ms;
    }
    throw std::invalid_argument("unknown figure id " + std::to_string(static_cast<int>(id)));
}

// The means over a cell's finished records, as the sweep's analysis takes them: every
// figure of the table from the same key of the records' summaries.
void measureCell(SweepCellPrediction &cell, const std::map<std::int64_t, SweepRecord> &records)
{
    cell.measuredRuns = 0;
    cell.measured = {};
    SweepCellFigures &m = cell.measured;
    for (const auto &[order, r] : records) {
        if (r.grid != cell.grid || r.state != "finished")
            continue;
        for (const SweepFigure &f : sweepFigures())
            cellFigureOf(m, f.id) += r.figure(std::string(f.summaryKey));
        ++cell.measuredRuns;
    }
    if (cell.measuredRuns > 1) {
        const double n = cell.measuredRuns;
        for (const SweepFigure &f : sweepFigures())
            cellFigureOf(m, f.id) /= n;
    }
}

// Why the calibrated costs do not hold for `cell`: it differs from the calibrated
// cell in an axis whose values change the costs themselves. Empty when they hold.
std::string costsProblem(const SweepDefinition &definition, const SweepCell &cell,
                         const SweepCell &calibrated)
{
    for (std::size_t a = 0; a < definition.axes.size(); ++a) {
        const std::string &key = definition.axes[a].key;
        if (cell.values[a] == calibrated.values[a])
            continue;
        if (std::string problem = unpredictableAxisProblem(key); !problem.empty())
            return problem + "; this cell has " + sweepValueText(key, cell.values[a])
                   + ", the cell calibrated from " + sweepValueText(key, calibrated.values[a]);
    }
    return {};
}

} // namespace

double SweepCellFigures::figure(SweepFigureId id) const
{
    return cellFigureOf(*this, id);
}

double SweepCellFigures::figure(const std::string &name) const
{
    return figure(sweepFigure(name).id);
}

double SweepCellPrediction::error(const std::string &figure) const
{
    const SweepFigureId id = sweepFigure(figure).id;
    const double m = measured.figure(id);
    if (!predicted || measuredRuns == 0 || !(m > 0.0))
        return kNaN;
    return (prediction.figure(id) - m) / m;
}

double SweepPrediction::medianAbsoluteError(const std::string &figure) const
{
    sweepFigure(figure); // refuses an unknown name also when no cell has an error
    std::vector<double> errors;
    for (const SweepCellPrediction &c : cells) {
        if (const double e = c.error(figure); !std::isnan(e))
            errors.push_back(std::abs(e));
    }
    if (errors.empty())
        return kNaN;
    return percentile(std::move(errors), 50.0);
}

int SweepPrediction::measuredAndPredicted() const
{
    return static_cast<int>(std::count_if(cells.begin(), cells.end(), [](const auto &c) {
        return c.predicted && c.measuredRuns > 0;
    }));
}

std::int64_t defaultCalibrationOrder(const std::map<std::int64_t, SweepRecord> &records)
{
    for (const auto &[order, r] : records) {
        if (r.state == "finished" && !r.trace.empty())
            return order;
    }
    return -1;
}

Calibration calibrateFromSweepCell(const std::string &dir, const SweepDefinition &definition,
                                   const SweepRecord &record, int cores)
{
    checkSweepRecord(record, definition);
    const std::string cellName = "cell " + std::to_string(record.order);
    if (record.state != "finished")
        throw std::invalid_argument(cellName + " was not measured (" + record.state
                                    + "): nothing to calibrate from");
    if (record.trace.empty())
        throw std::invalid_argument(cellName + " kept no trace to calibrate from");
    const std::vector<SweepCell> cells = expandSweep(definition);
    const SweepCell &cell = cells.at(static_cast<std::size_t>(record.order));
    const std::string path = (std::filesystem::path(dir) / record.trace).string();
    const std::vector<TraceRecord> records = loadTraceCsv(path);

    RunReport report;
    report.config = cell.config;
    report.state = "finished";
    report.configVersions.push_back({0, 0, 0, cell.config});
    // The cell's load (when it recorded one) names its machine's cores and counts on
    // those only: asked for another count, the costs are taken as on an idle machine.
    const MachineLoad &load = record.machineLoad;
    const bool given = cores > 0;
    report.machine.logicalCores =
        given          ? cores
        : load.known() ? load.cores
                       : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    const bool loadCounts = load.known() && load.cores == report.machine.logicalCores;
    if (loadCounts)
        report.machineLoad = load;
    // Its rows must fit the cell (ranks, workers, batch size), as an opened run's must.
    checkRecordsAgainstReport(records, report, path,
                              (std::filesystem::path(dir) / "sweep.json").string());
    report.summary = traceFromRecords(records, report)->summary();
    Calibration cal;
    try {
        cal = calibrateFromRun(records, report);
    } catch (const std::invalid_argument &e) {
        throw std::runtime_error(path + ": " + e.what());
    }
    const std::string assumed = std::to_string(report.machine.logicalCores) + " cores assumed";
    if (loadCounts)
        cal.notes.push_back(assumed + " (" + (given ? "as asked, " : "")
                            + "the cell's machine's, as its recorded load names them)");
    else if (load.known())
        cal.notes.push_back(assumed + " (as asked); the cell's recorded load is of "
                            + std::to_string(load.cores)
                            + " cores, so it is left out: the costs as on an idle machine");
    else
        cal.notes.push_back("the sweep's files name no core count: " + assumed + " ("
                            + (given ? "as asked" : "this machine's") + ")");
    return cal;
}

SweepPrediction predictRecordedSweep(const std::string &dir, const SweepDefinition &definition,
                                     const std::map<std::int64_t, SweepRecord> &records,
                                     std::int64_t calibrationOrder, int cores)
{
    SweepPrediction out;
    out.calibrationOrder = calibrationOrder >= 0 ? calibrationOrder
                                                 : defaultCalibrationOrder(records);
    if (out.calibrationOrder < 0)
        throw std::invalid_argument("no measured cell kept a trace to calibrate the model from");
    const auto found = records.find(out.calibrationOrder);
    if (found == records.end())
        throw std::invalid_argument("cell " + std::to_string(out.calibrationOrder)
                                    + " has no record to calibrate from");
    out.calibration = calibrateFromSweepCell(dir, definition, found->second, cores);
    out.calibrationGrid = found->second.grid;
    out.cores = out.calibration.setting.cores;

    const std::vector<SweepCell> cells = expandSweep(definition);
    const SweepCell &calibrated = cells.at(static_cast<std::size_t>(out.calibrationOrder));
    for (const SweepCell &cell : cells) {
        if (cell.repeat != 0)
            continue; // one prediction per grid cell: the model has no run-to-run spread
        SweepCellPrediction &c = out.cells.emplace_back();
        c.grid = cell.grid;
        c.values = cell.values;
        measureCell(c, records);
        c.problem = costsProblem(definition, cell, calibrated);
        if (!c.problem.empty())
            continue;
        try {
            const Prediction p = predictLoader(costsFor(out.calibration, cell.config),
                                               settingFor(out.calibration, cell.config));
            c.prediction = figuresOf(p);
            c.waitPeriod = p.dominantWaitPeriod;
            c.predicted = true;
        } catch (const std::invalid_argument &e) {
            c.problem = e.what();
        }
    }
    std::sort(out.cells.begin(), out.cells.end(),
              [](const auto &a, const auto &b) { return a.grid < b.grid; });
    return out;
}

void remeasureSweepPrediction(SweepPrediction &prediction,
                              const std::map<std::int64_t, SweepRecord> &records)
{
    for (SweepCellPrediction &c : prediction.cells)
        measureCell(c, records);
}

} // namespace loaderlab
