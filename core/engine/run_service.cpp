#include "core/engine/run_service.h"

#include "core/io/chrome_trace.h"
#include "core/run/output_paths.h"
#include "core/system/output_guard.h"

#include <spdlog/spdlog.h>

namespace loaderlab {

RunReport makeRunReport(const Engine &engine, const std::map<std::string, std::string> &versions)
{
    RunReport report;
    const auto trace = engine.trace();
    report.config = engine.config();
    report.dataset = engine.datasetDescription();
    report.state = runStateName(engine.state());
    report.error = engine.error();
    // Computed as the batches arrived: it covers every batch, also those a trace
    // with retention no longer holds.
    report.summary = trace->summary();
    report.summary.peakMemoryBytes = engine.peakMemoryBytes();
    // A run without a model step has no input-bound verdict (the trace alone cannot
    // tell a 0 ms simulated step from a very short one).
    noteConsumerStep(report.summary, report.config);
    report.skipped = trace->skipped();
    report.markers = trace->markers();
    report.configVersions = trace->configVersions();
    report.machine = machineInfo();
    for (const auto &[name, version] : engine.versions())
        report.machine.versions[name] = version;
    for (const auto &[name, version] : versions)
        report.machine.versions[name] = version;
    return report;
}

RunService::RunService()
    : m_engine(makeEngine(EngineKind::LoaderLab))
{
    setOnEnded({});
}

RunReport RunService::report() const
{
    RunReport report = makeRunReport(*m_engine, m_versions);
    // A run that ended before its callback could end the interval (it ended while
    // start() was returning) ends it at its first report.
    const RunState state = m_engine->state();
    if (state != RunState::Running && state != RunState::Paused)
        m_load->end();
    report.machineLoad = m_load->load();
    return report;
}

RunService::~RunService() = default;

void RunService::start(const RunConfig &config, const RunOutputs &outputs,
                       const EngineCancel &cancelled)
{
    if (const std::string why = engineProblem(config); !why.empty())
        throw std::invalid_argument(why);
    checkOutputPaths({{"--csv", outputs.csvPath},
                      {"--json", outputs.jsonPath},
                      {"--trace-json", outputs.traceJsonPath}},
                     {config.dataset.path, config.consumer.model.scriptPath});
    // Every later write of this process (the outputs at the end, an export from the
    // window) refuses to land on them too (core/system/output_guard.h).
    protectInput(config.dataset.path);
    protectInput(config.consumer.model.scriptPath);
    // Created first, so a CSV that cannot be created stops nothing that ran; a
    // dataset that cannot be opened removes it again.
    std::unique_ptr<TraceCsvStream> csv;
    if (!outputs.csvPath.empty())
        csv = std::make_unique<TraceCsvStream>(outputs.csvPath);
    // Another engine: the current one stops first, and stays (with its trace) when
    // the new one cannot start.
    std::unique_ptr<Engine> other;
    if (config.engine != m_engine->kind()) {
        other = makeEngine(config.engine);
        other->setOnEnded(m_onEnded);
        m_engine->stop();
    }
    Engine &engine = other ? *other : *m_engine;
    engine.setTraceRetention(m_keepBatches, csv != nullptr);
    // Sampled before the start, which for the PyTorch engine starts Python; the
    // interval begins once the previous run has certainly ended (start() or the old
    // engine's end stops it), so that run's end callback ends its own interval.
    const CpuSample loadStart = sampleCpu();
    engine.start(config, cancelled);
    if (other)
        m_engine = std::move(other); // the previous engine's run ends with it
    m_load->begin(loadStart);
    if (csv)
        csv->follow(m_engine->trace());
    m_running.reset();
    if (csv && !outputs.jsonPath.empty()) {
        try {
            m_running = std::make_unique<RunningSummaryFile>(outputs.jsonPath,
                                                             makeRunReport(*m_engine, m_versions));
        } catch (const std::exception &e) {
            // Only following the run while it goes on is lost; the run and its
            // outputs at the end are not.
            spdlog::warn("the run cannot be followed while it goes on: {}", e.what());
        }
    }
    m_csv = std::move(csv);
    m_outputs = outputs;
}

void RunService::setOnEnded(std::function<void(RunState)> callback)
{
    m_onEnded = [load = m_load, callback = std::move(callback)](RunState state) {
        load->end();
        if (callback)
            callback(state);
    };
    m_engine->setOnEnded(m_onEnded);
}

std::vector<std::string> RunService::writeOutputs(const RunReport &report,
                                                  std::vector<std::string> *written)
{
    std::vector<std::string> errors;
    const auto write = [&](const std::string &path, const std::string &what, auto save) {
        if (path.empty())
            return;
        try {
            save();
            if (written)
                written->push_back("wrote " + what + " to " + path);
        } catch (const std::exception &e) {
            errors.push_back(e.what());
        }
    };
    if (m_csv) {
        try {
            const std::int64_t rows = m_csv->finish();
            if (written)
                written->push_back("wrote " + std::to_string(rows) + " batches to "
                                   + m_outputs.csvPath);
        } catch (const std::exception &e) {
            errors.push_back(e.what());
        }
        m_csv.reset();
    }
    m_running.reset(); // its ".part" name is the final JSON's to write through
    write(m_outputs.jsonPath, "the summary", [&] { saveRunReport(m_outputs.jsonPath, report); });
    write(m_outputs.traceJsonPath, "the trace for Perfetto", [&] {
        const auto trace = m_engine->trace();
        saveChromeTrace(m_outputs.traceJsonPath, report, trace->records(), trace->spans());
    });
    return errors;
}

} // namespace loaderlab
