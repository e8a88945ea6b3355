#pragma once

// RunService: one run from start to report, without a window, for the command line,
// the window's RunSession and anything that drives runs by config (sweeps, lessons):
// checks the outputs before the run starts, runs it on the engine the config names
// (RunConfig::engine, core/engine/engine.h), and turns the result into one
// RunReport, with the machine's CPU load over the run (core/system/cpu_load.h); then
// writes every output it can, so one output that fails at the end never costs the
// others.

#include "core/engine/engine.h"
#include "core/io/running_summary.h"
#include "core/io/summary_json.h"
#include "core/io/trace_csv_stream.h"
#include "core/system/cpu_load.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace loaderlab {

struct RunOutputs
{
    // Per-batch trace (core/io/trace_csv.h), written while the run goes on
    // (core/io/trace_csv_stream.h); empty: none.
    std::string csvPath;
    std::string jsonPath; // summary (core/io/summary_json.h); empty: none
    // Chrome JSON trace for Perfetto (core/io/chrome_trace.h) of the batches the
    // trace holds; empty: none.
    std::string traceJsonPath;
};

// The report of the engine's current (or last) run. `versions` is added to the
// machine's library versions (the window adds Qt's, which core cannot know).
RunReport makeRunReport(const Engine &engine,
                        const std::map<std::string, std::string> &versions = {});

class RunService
{
public:
    RunService(); // holds an idle LoaderLab engine until the first start
    ~RunService();
    RunService(const RunService &) = delete;
    RunService &operator=(const RunService &) = delete;

    // Starts `config` on the engine it names; a run still going, on either engine,
    // is stopped first. Throws std::invalid_argument (a bad output path, a setting
    // the engine refuses, engineProblem()), DatasetError or std::runtime_error (the
    // CSV cannot be created, the engine cannot start), before anything runs; the
    // previous run's engine and trace stay in place then. `cancelled` cuts a long
    // start short (the PyTorch engine's check for torch). With both a CSV and a JSON
    // output the CSV's rows go to RUN.csv.part as they come and RUN.json.part says the
    // run is running (core/io/running_summary.h), so it can be followed; both take
    // their final names in writeOutputs().
    void start(const RunConfig &config, const RunOutputs &outputs = {},
               const EngineCancel &cancelled = {});
    // Waits up to `timeoutMs` (negative: forever); true once the run has ended.
    bool wait(int timeoutMs = -1) const { return m_engine->waitForEnd(timeoutMs); }
    void stop() { m_engine->stop(); }
    RunState state() const { return m_engine->state(); }

    // Called on the run thread when the run ends; must not block.
    void setOnEnded(std::function<void(RunState)> callback);
    // Keep only about the last `keepBatches` batches of the runs started after this
    // in memory (0: all); the CSV and the summary still cover every batch.
    void setTraceRetention(std::size_t keepBatches) { m_keepBatches = keepBatches; }
    void setExtraVersions(std::map<std::string, std::string> versions)
    {
        m_versions = std::move(versions);
    }

    // With the machine's CPU load from the run's start to its end (to now while it
    // goes on).
    RunReport report() const;
    // Once the run has ended: writes every output given to start() (the CSV's last
    // batches, the summary); returns one message per output that could not be
    // written (empty: all written). `written` gets a line per file.
    std::vector<std::string> writeOutputs(const RunReport &report,
                                          std::vector<std::string> *written = nullptr);

    // The engine of the current (or last) run.
    Engine &engine() { return *m_engine; }
    const Engine &engine() const { return *m_engine; }

private:
    // The CPU load of the current (or last) run: begun when it starts, ended by the
    // engine's end callback (which holds it too, so it outlives the engine).
    std::shared_ptr<CpuLoadMeter> m_load = std::make_shared<CpuLoadMeter>();
    std::unique_ptr<Engine> m_engine;
    // The caller's callback, with the end of the load's interval before it.
    std::function<void(RunState)> m_onEnded;
    RunOutputs m_outputs;
    std::unique_ptr<TraceCsvStream> m_csv;
    // With both a CSV and a JSON output: the JSON's "running" form while the run goes
    // on, for File > Follow run (core/io/running_summary.h).
    std::unique_ptr<RunningSummaryFile> m_running;
    std::size_t m_keepBatches = 0;
    std::map<std::string, std::string> m_versions;
};

} // namespace loaderlab
