#include "core/predict/predict_first.h"

#include "core/config/config_fields.h"
#include "core/engine/run_service.h"
#include "core/io/summary_json.h"
#include "core/predict/calibration.h"
#include "core/predict/fault_probe.h"
#include "core/predict/predicted_sweep.h"
#include "core/sweep/sweep_analysis.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>

namespace loaderlab {
namespace {

using nlohmann::json;

struct CellPrediction
{
    double seconds = -1.0; // end to end; < 0: none
    json summary;          // toJson(RunSummary); null: none
};

CellPrediction predictCell(const Calibration &calibration, const SweepCell &cell)
{
    // A cell the run refuses gets no prediction: it is run last (never skipped, never
    // the fastest-predicted first) and recorded with the run's own reason.
    if (!runRefusal(cell.config).empty())
        return {};
    try {
        const Prediction p = predictLoader(costsFor(calibration, cell.config),
                                           settingFor(calibration, cell.config));
        if (p.summary.wallSeconds > 0.0)
            return {p.summary.wallSeconds, toJson(p.summary)};
    } catch (const std::exception &) {
        // A setting the model refuses: the cell is run, never skipped.
    }
    return {};
}

// The cells that get one recommendation share this text (sweep_analysis.h).
std::string groupOf(const SweepDefinition &d, const SweepCell &cell)
{
    std::string text;
    for (std::size_t a = 0; a < d.axes.size(); ++a) {
        if (isSweepGroupAxis(d.axes[a].key))
            text += sweepValueText(d.axes[a].key, cell.values[a]) + ";";
    }
    return text;
}

double axisDistance(const json &value, const json &base)
{
    if (value == base)
        return 0.0;
    if (value.is_number() && base.is_number()) {
        const double v = value.get<double>();
        const double b = base.get<double>();
        const double scale = std::max(std::fabs(v), std::fabs(b));
        return scale > 0.0 ? std::fabs(v - b) / scale : 0.0;
    }
    return 1.0;
}

// Other programs' and the hypervisor's cores while a run went on.
double takenCores(const MachineLoad &load)
{
    return std::clamp(load.otherBusyCores + load.stealCores, 0.0, static_cast<double>(load.cores));
}

bool regularFile(const std::string &path)
{
    std::error_code ec;
    return !path.empty() && std::filesystem::is_regular_file(path, ec);
}

// One predict-first sweep over a runner's folder (the steps of predict_first.h).
class PredictFirstRun
{
public:
    PredictFirstRun(SweepRunner &runner, const PredictFirstOptions &options, std::stop_token stop,
                    const std::function<void(const PredictFirstProgress &)> &onProgress)
        : m_runner(runner)
        , m_options(options)
        , m_stop(std::move(stop))
        , m_onProgress(onProgress)
        , m_cells(expandSweep(runner.definition()))
        , m_gridSize(static_cast<std::int64_t>(m_cells.size())
                     / std::max(1, runner.definition().repeats))
    {
        for (const SweepCell &cell : m_cells) {
            if (!open(cell.order))
                ++m_outcome.found;
        }
        m_done = m_outcome.found;
    }

    PredictFirstOutcome run()
    {
        bool anyOpen = false;
        for (std::int64_t g = 0; g < m_gridSize; ++g)
            anyOpen = anyOpen || open(g);
        if (anyOpen && (calibrateFromFolder() || calibrateByRunning()) && !m_outcome.stopped) {
            m_outcome.stepWaitSeconds = m_calibration->stepWaitSeconds;
            for (std::int64_t g = 0; g < m_gridSize; ++g)
                m_predictions.push_back(predictCell(*m_calibration, m_cells[g]));
            select();
        }
        if (!m_outcome.stopped)
            runRepeats();
        return m_outcome;
    }

private:
    // Not yet settled: no record, a skipped one (weighed again), or a failure to retry.
    bool open(std::int64_t order) const
    {
        if (m_ranNow.count(order))
            return false;
        const auto &records = m_runner.results().records();
        const auto it = records.find(order);
        return it == records.end() || it->second.skipped()
               || (it->second.failed() && m_runner.options().retryFailed);
    }

    const CellPrediction &prediction(std::int64_t grid) const
    {
        static const CellPrediction none;
        return grid < static_cast<std::int64_t>(m_predictions.size())
                   ? m_predictions[static_cast<std::size_t>(grid)]
                   : none;
    }

    void report(PredictFirstProgress p) const
    {
        p.done = m_done;
        p.total = static_cast<int>(m_cells.size());
        if (m_onProgress)
            m_onProgress(p);
    }

    // Runs one cell; nullopt (and stopped) when a stop ended it or came before it.
    std::optional<SweepRecord> runOne(const SweepCell &cell, bool calibration,
                                      const SweepCellEnded &onEnded = {})
    {
        if (m_stop.stop_requested()) {
            m_outcome.stopped = true;
            return std::nullopt;
        }
        const CellPrediction &p = prediction(cell.grid);
        PredictFirstProgress starting;
        starting.cell = &cell;
        starting.calibration = calibration;
        starting.predictedSeconds = p.seconds;
        report(starting);
        const SweepCellEnded addPrediction = [&](const RunService *run, SweepRecord &record) {
            if (onEnded)
                onEnded(run, record);
            else
                record.predicted = p.summary;
        };
        std::optional<SweepRecord> record = m_runner.runCell(cell, m_stop, addPrediction,
                                                             calibration);
        if (!record) {
            m_outcome.stopped = true;
            return record;
        }
        m_ranNow.insert(cell.order);
        ++m_done;
        ++m_outcome.ran;
        if (record->failed())
            ++m_outcome.failed;
        return record;
    }

    void ended(const SweepCell &cell, const SweepRecord &record, bool calibration,
               std::string note = {})
    {
        PredictFirstProgress p;
        p.event = PredictFirstProgress::Event::Ended;
        p.cell = &cell;
        p.record = &record;
        p.calibration = calibration;
        p.predictedSeconds = prediction(cell.grid).seconds;
        p.error = m_outcome.error;
        p.note = std::move(note);
        if (m_calibration && record.finished())
            p.loadNote = predictFirstLoadNote(*m_calibration, record.machineLoad, calibration);
        report(p);
    }

    // From the kept run (trace and summary JSON) of a cell measured before.
    bool calibrateFromFolder()
    {
        const auto &records = m_runner.results().records();
        for (const std::int64_t order : predictFirstCalibrationOrder(m_runner.definition())) {
            const auto it = records.find(order);
            const std::string jsonPath = m_runner.summaryPath(order);
            if (it == records.end() || !it->second.finished()
                || !regularFile(m_runner.results().tracePath(order)) || !regularFile(jsonPath))
                continue;
            try {
                m_calibration = calibrateFromFiles(jsonPath);
                probeFaultLanesHere(*m_calibration);
                m_outcome.calibrationOrder = order;
                PredictFirstProgress p;
                p.event = PredictFirstProgress::Event::Calibrated;
                p.cell = &m_cells[static_cast<std::size_t>(order)];
                p.record = &it->second;
                p.calibration = true;
                p.note = "the model is calibrated from the kept run of this cell ("
                         + std::to_string(m_calibration->setting.cores) + " cores)";
                p.loadNote = predictFirstLoadNote(*m_calibration, m_calibration->load, true);
                report(p);
                return true;
            } catch (const std::exception &) {
                // another cell, or a run
            }
        }
        return false;
    }

    // Runs the open cells nearest the base config until one calibrates the model.
    bool calibrateByRunning()
    {
        for (const std::int64_t order : predictFirstCalibrationOrder(m_runner.definition())) {
            if (!open(order))
                continue;
            const SweepCell &cell = m_cells[static_cast<std::size_t>(order)];
            std::string note;
            const auto record = runOne(cell, true, [&](const RunService *run, SweepRecord &r) {
                note = calibrate(run, cell, r);
            });
            if (!record)
                return false;
            m_outcome.error = m_options.margin;
            ended(cell, *record, true, note);
            if (m_calibration) {
                m_outcome.calibrationOrder = order;
                return true;
            }
        }
        return false;
    }

    // Calibrates from a cell's run as it ends; returns what the progress says of it.
    std::string calibrate(const RunService *run, const SweepCell &cell, SweepRecord &record)
    {
        if (!run || !record.finished())
            return "the model cannot be calibrated from a cell that failed";
        try {
            const auto trace = run->engine().trace();
            if (!trace)
                return "the model cannot be calibrated: the run kept no trace";
            Calibration calibration = calibrateFromRun(trace->records(), run->report());
            probeFaultLanesHere(
                calibration); // the cells with more workers fill more buffers at once
            record.predicted = predictCell(calibration, cell).summary;
            const int cores = calibration.setting.cores;
            m_calibration = std::move(calibration);
            return "the model is calibrated from this cell (" + std::to_string(cores) + " cores)";
        } catch (const std::exception &e) {
            return std::string("the model cannot be calibrated from this cell: ") + e.what();
        }
    }

    // Runs the cells the model cannot rule out, best first; records the rest skipped.
    void select()
    {
        const auto &records = m_runner.results().records();
        std::vector<PredictFirstCell> weighed(static_cast<std::size_t>(m_gridSize));
        for (std::int64_t g = 0; g < m_gridSize; ++g) {
            auto &w = weighed[static_cast<std::size_t>(g)];
            w.group = groupOf(m_runner.definition(), m_cells[static_cast<std::size_t>(g)]);
            w.predictedSeconds = prediction(g).seconds;
        }
        PredictFirstSelection selection(std::move(weighed), m_options.margin);
        for (std::int64_t g = 0; g < m_gridSize; ++g) {
            if (open(g))
                continue;
            const SweepRecord &r = records.at(g);
            if (r.finished())
                selection.setMeasured(static_cast<std::size_t>(g), r.endToEndSeconds());
            else
                selection.setFailed(static_cast<std::size_t>(g));
        }
        m_outcome.error = selection.error();
        while (const auto next = selection.next()) {
            const SweepCell &cell = m_cells[*next];
            const auto record = runOne(cell, false);
            if (!record)
                return;
            if (record->finished())
                selection.setMeasured(*next, record->endToEndSeconds());
            else
                selection.setFailed(*next);
            m_outcome.error = selection.error();
            ended(cell, *record, false);
        }
        for (const PredictFirstSkip &skip : selection.skips())
            recordSkip(skip);
    }

    // Every repeat of the skipped combination, unless recorded already.
    void recordSkip(const PredictFirstSkip &skip)
    {
        const auto grid = static_cast<std::int64_t>(skip.cell);
        m_skippedGrids.insert(grid);
        const SweepRecord *shown = nullptr;
        const auto &records = m_runner.results().records();
        for (std::int64_t order = grid; order < static_cast<std::int64_t>(m_cells.size());
             order += m_gridSize) {
            const SweepCell &cell = m_cells[static_cast<std::size_t>(order)];
            if (!open(order))
                continue;
            const auto found = records.find(order);
            if (found != records.end() && found->second.failed()) {
                ++m_done; // a failure to retry: it stays recorded as it failed
                continue;
            }
            if (found == records.end()) {
                SweepRecord r = sweepRecordOf(cell, "skipped");
                r.predicted = prediction(grid).summary;
                m_runner.record(r);
            }
            ++m_done;
            ++m_outcome.skipped;
            if (order == grid)
                shown = &records.at(order);
        }
        if (!shown)
            return;
        PredictFirstProgress p;
        p.event = PredictFirstProgress::Event::Skipped;
        p.cell = &m_cells[skip.cell];
        p.record = shown;
        p.predictedSeconds = skip.predictedSeconds;
        p.error = skip.error;
        p.skip = &skip;
        p.best = &m_cells[skip.best];
        report(p);
    }

    // The later repeats of the combinations that ran, round by round.
    void runRepeats()
    {
        for (std::int64_t order = m_gridSize; order < static_cast<std::int64_t>(m_cells.size());
             ++order) {
            if (m_skippedGrids.count(order % m_gridSize) || !open(order))
                continue;
            const SweepCell &cell = m_cells[static_cast<std::size_t>(order)];
            const auto record = runOne(cell, false);
            if (!record)
                return;
            ended(cell, *record, false);
        }
    }

    SweepRunner &m_runner;
    PredictFirstOptions m_options;
    std::stop_token m_stop;
    const std::function<void(const PredictFirstProgress &)> &m_onProgress;
    std::vector<SweepCell> m_cells;
    std::int64_t m_gridSize;
    std::optional<Calibration> m_calibration;
    std::vector<CellPrediction> m_predictions; // by grid position
    std::set<std::int64_t> m_ranNow;           // orders run in this session
    std::set<std::int64_t> m_skippedGrids;
    PredictFirstOutcome m_outcome;
    int m_done = 0;
};

} // namespace

std::string predictFirstLoadNote(const Calibration &calibration, const MachineLoad &cell,
                                 bool calibrationCell)
{
    if (calibrationCell)
        return busyCalibrationLine(calibration.busyMachine, calibration.load,
                                   calibration.setting.cores);
    const MachineLoad &calibrated = calibration.load;
    if (!calibrated.known() || !cell.known())
        return {};
    const double now = takenCores(cell);
    const double then = takenCores(calibrated);
    if (!(std::abs(now - then) > kLoadDifferenceCores))
        return {};
    return "other programs used " + coresText(now) + " of " + std::to_string(cell.cores)
           + (cell.cores == 1 ? " core" : " cores") + " during this cell, " + coresText(then)
           + " during the calibration run: its prediction and measurement "
           + "are not like for like";
}

std::string predictFirstProblem(const SweepDefinition &definition, const SweepShard &shard)
{
    if (shard.count > 1)
        return "--predict-first chooses among all of the sweep's cells: it does not run a shard "
               "(--shard, a Slurm array task)";
    if (definition.budget.kind == SweepBudget::Kind::Seconds)
        return "--predict-first needs a budget of samples or batches: with one of seconds every "
               "cell's end-to-end time is the budget, and the recommendation compares those";
    for (const SweepAxis &axis : definition.axes) {
        if (const std::string why = unpredictableAxisProblem(axis.key); !why.empty())
            return "--predict-first: axis " + axis.key + ": " + why
                   + "; run this sweep without --predict-first";
    }
    return {};
}

std::vector<std::int64_t> predictFirstCalibrationOrder(const SweepDefinition &definition)
{
    std::vector<json> base;
    for (const SweepAxis &axis : definition.axes)
        base.push_back(getConfigField(definition.base, axis.key));
    const std::int64_t grid = sweepCellCount(definition) / std::max(1, definition.repeats);
    std::vector<std::pair<double, std::int64_t>> byDistance;
    for (std::int64_t g = 0; g < grid; ++g) {
        const std::vector<json> values = sweepGridValues(definition, g);
        double distance = 0.0;
        for (std::size_t a = 0; a < values.size(); ++a)
            distance += axisDistance(values[a], base[a]);
        byDistance.emplace_back(distance, g);
    }
    std::stable_sort(byDistance.begin(), byDistance.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<std::int64_t> order;
    for (const auto &[distance, g] : byDistance)
        order.push_back(g);
    return order;
}

PredictFirstOutcome
runPredictFirst(SweepRunner &runner, const PredictFirstOptions &options, std::stop_token stop,
                const std::function<void(const PredictFirstProgress &)> &onProgress)
{
    if (const std::string why = predictFirstProblem(runner.definition(), runner.options().shard);
        !why.empty())
        throw std::invalid_argument(why);
    if (runner.options().runSkipped)
        throw std::invalid_argument("--predict-first weighs the skipped cells again itself: "
                                    "--run-skipped goes without it");
    checkPredictMargin(options.margin);
    return PredictFirstRun(runner, options, std::move(stop), onProgress).run();
}

} // namespace loaderlab
