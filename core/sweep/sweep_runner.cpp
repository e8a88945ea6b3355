#include "core/sweep/sweep_runner.h"

#include "core/engine/run_service.h"
#include "core/io/summary_json.h"

#include <chrono>
#include <exception>
#include <stdexcept>

namespace loaderlab {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

SweepRunner::SweepRunner(SweepDefinition definition, std::string dir, Options options)
    : m_definition(std::move(definition))
    , m_options(options)
    , m_results(std::move(dir), m_definition, options.shard)
{
}

SweepOutcome SweepRunner::run(std::stop_token stop,
                              const std::function<void(const SweepProgress &)> &onProgress)
{
    const std::vector<SweepCell> cells = expandSweep(m_definition);
    std::vector<const SweepCell *> mine;
    SweepOutcome outcome;
    for (const SweepCell &cell : cells) {
        if (!m_options.shard.contains(cell.order))
            continue;
        const bool done = m_options.retryFailed ? m_results.finished(cell.order)
                                                : m_results.recorded(cell.order);
        if (done)
            ++outcome.skipped;
        else
            mine.push_back(&cell);
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

        const auto start = std::chrono::steady_clock::now();
        SweepRecord record;
        record.order = cell.order;
        record.grid = cell.grid;
        record.repeat = cell.repeat;
        record.values = cell.values;
        RunService service;
        std::string lostOutput; // a trace that could not be written: the sweep stops
        try {
            RunOutputs outputs;
            if (m_options.keepTraces)
                outputs.csvPath = m_results.tracePath(cell.order);
            service.start(cell.config, outputs);
            std::stop_callback stopRun(stop, [&service] { service.stop(); });
            service.wait();
            if (stop.stop_requested()) {
                outcome.stopped = true; // not recorded: it runs again next time
                break;
            }
            const RunReport report = service.report();
            if (service.state() == RunState::Failed) {
                record.state = "failed";
                record.error = report.error;
            } else {
                record.state = "finished";
                record.summary = toJson(report.summary);
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
                                     + std::to_string(cells.size()) + ": " + lostOutput
                                     + "; the sweep stopped (the cell runs again when resumed)");
        record.cellSeconds = secondsSince(start);
        m_results.append(record);
        spent += record.cellSeconds;
        ++outcome.ran;
        if (record.failed())
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

} // namespace loaderlab
