#include "core/sweep/sweep_runner.h"

#include "core/engine/run_service.h"
#include "core/io/summary_json.h"

#include <chrono>
#include <exception>
#include <filesystem>
#include <stdexcept>

namespace loaderlab {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

std::string sweepCannotRun(const SweepDefinition &definition, const SweepShard &shard)
{
    std::string first;
    std::int64_t cells = 0;
    for (const SweepCell &cell : expandSweep(definition)) {
        if (!shard.contains(cell.order))
            continue;
        const std::string why = engineProblem(cell.config);
        if (why.empty())
            return {};
        if (first.empty())
            first = why;
        ++cells;
    }
    if (cells == 0)
        return {};
    return "no cell of the sweep can run (" + std::to_string(cells)
           + (cells == 1 ? " cell" : " cells") + "): " + first;
}

SweepRunner::SweepRunner(SweepDefinition definition, std::string dir, Options options)
    : m_definition(std::move(definition))
    , m_options(options)
    , m_results(std::move(dir), m_definition, options.shard)
{
}

std::string SweepRunner::summaryPath(std::int64_t order) const
{
    return std::filesystem::path(m_results.tracePath(order)).replace_extension(".json").string();
}

SweepOutcome SweepRunner::run(std::stop_token stop,
                              const std::function<void(const SweepProgress &)> &onProgress)
{
    const std::vector<SweepCell> cells = expandSweep(m_definition);
    std::vector<const SweepCell *> mine;
    SweepOutcome outcome;
    const auto &records = m_results.records();
    for (const SweepCell &cell : cells) {
        if (!m_options.shard.contains(cell.order))
            continue;
        const auto it = records.find(cell.order);
        const bool done = it != records.end() && !(it->second.failed() && m_options.retryFailed)
                          && !(it->second.skipped() && m_options.runSkipped);
        if (done) {
            ++outcome.skipped;
            if (it->second.skipped())
                ++outcome.leftSkipped;
        } else {
            mine.push_back(&cell);
        }
    }
    SweepProgress progress;
    progress.total = static_cast<int>(mine.size()) + outcome.skipped;
    progress.done = outcome.skipped;
    progress.skipped = outcome.skipped;
    double spent = 0.0;

    for (std::size_t i = 0; i < mine.size(); ++i) {
        if (stop.stop_requested()) {
            outcome.stopped = true;
            break;
        }
        const SweepCell &cell = *mine[i];
        progress.cell = &cell;
        progress.record = nullptr;
        if (onProgress)
            onProgress(progress);
        const std::optional<SweepRecord> record = runCell(cell, stop);
        if (!record) {
            outcome.stopped = true; // not recorded: it runs again next time
            break;
        }
        spent += record->cellSeconds;
        ++outcome.ran;
        if (record->failed())
            ++outcome.failed;
        ++progress.done;
        const auto remaining = static_cast<double>(mine.size() - i - 1);
        progress.etaSeconds = spent / static_cast<double>(i + 1) * remaining;
        progress.record = &m_results.records().at(cell.order);
        if (onProgress)
            onProgress(progress);
    }
    return outcome;
}

std::optional<SweepRecord> SweepRunner::runCell(const SweepCell &cell, std::stop_token stop,
                                                const SweepCellEnded &onEnded, bool keepSummary)
{
    const auto start = std::chrono::steady_clock::now();
    SweepRecord record = sweepRecordOf(cell);
    RunService service;
    bool ran = false;
    std::string lostOutput; // a trace that could not be written: the sweep stops
    try {
        RunOutputs outputs;
        if (m_options.keepTraces) {
            outputs.csvPath = m_results.tracePath(cell.order);
            if (keepSummary)
                outputs.jsonPath = summaryPath(cell.order);
        }
        service.start(cell.config, outputs);
        std::stop_callback stopRun(stop, [&service] { service.stop(); });
        service.wait();
        if (stop.stop_requested())
            return std::nullopt; // not recorded: it runs again next time
        ran = true;
        const RunReport report = service.report();
        if (service.state() == RunState::Failed) {
            record.state = "failed";
            record.error = report.error;
        } else {
            record.state = "finished";
            record.summary = toJson(report.summary);
            record.machineLoad = report.machineLoad; // unknown where not measured
            const auto errors = service.writeOutputs(report);
            if (!errors.empty())
                lostOutput = errors.front();
            else if (m_options.keepTraces)
                record.trace = SweepResults::traceName(cell.order);
        }
    } catch (const std::exception &e) {
        record.state = "failed";
        record.error = e.what();
    }
    // A full disk would go on losing every cell's trace while the sweep looks
    // fine: stop, unrecorded, so that a resume runs the cell again.
    if (!lostOutput.empty())
        throw std::runtime_error("cell " + std::to_string(cell.order + 1) + " of "
                                 + std::to_string(sweepCellCount(m_definition)) + ": " + lostOutput
                                 + "; the sweep stopped (the cell runs again when resumed)");
    record.cellSeconds = secondsSince(start);
    if (onEnded)
        onEnded(ran ? &service : nullptr, record);
    m_results.append(record);
    return record;
}

} // namespace loaderlab
