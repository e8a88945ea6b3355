#pragma once

// Engine: one run of a loader and a step, whichever loader runs it, LoaderLab's own
// (RunController, core/run/run_controller.h) or PyTorch's DataLoader (PyTorchRun,
// core/engine/pytorch/pytorch_run.h). The command line, the window, sweeps, the autotuner and
// lessons talk to this interface only; what differs between the engines is answered
// here, by the engine, with the reason when it cannot do something: engineProblem()
// for a config, engineCannot() for a feature. makeEngine() is the one place that
// picks an engine by RunConfig::engine.

#include "core/config/run_config.h"
#include "core/engine/engine_cancel.h"
#include "core/engine/engine_problem.h"
#include "core/record/trace_record.h"
#include "core/run/run_state.h"
#include "core/trace/trace_log.h"

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

namespace loaderlab {

// The engine cannot run on this machine (Python without torch, a process that cannot
// be started); what() says why and what to install.
class EngineUnavailable : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// What an engine may be unable to do.
enum class EngineFeature {
    Reconfigure,    // change loader and step settings while the run goes on
    Pause,          // pause and resume
    ModelStep,      // a real model (LibTorch) as the step
    DataParallel,   // devices > 1
    SampleParallel, // the sample-parallel strategy
    PeakMemory,     // the step's peak memory in the report
    MaxBatch,       // `max-batch`: the largest batch a model's step fits in
};

// Why `engine` cannot do `feature`, in a sentence; "" when it can.
std::string engineCannot(EngineKind engine, EngineFeature feature);

// Why `config` cannot run on its engine (config.engine), in a sentence; "" when it
// can. Needs no Python: whether the PyTorch engine's Python works is start()'s.
std::string engineProblem(const RunConfig &config);
// The same as data, for the window to word (widgets/common/engine_text.h).
EngineProblem engineProblemKind(const RunConfig &config);

// Whether `engine` can run on this machine: for the PyTorch engine, whether its
// Python (pytorchEnginePython()) has torch and torchvision, a few hundredths of a
// second the first time and then remembered (pytorchPythonCheck()); LoaderLab's
// always can.
// `cancelled` cuts the check short (Result::Stopped, not remembered).
PythonCheck engineCheck(EngineKind engine, const EngineCancel &cancelled = {});

// The engine's name for people: "LoaderLab", "PyTorch DataLoader".
const char *engineLabel(EngineKind engine);

class Engine
{
public:
    virtual ~Engine() = default; // stops the run and joins its threads

    virtual EngineKind kind() const = 0;

    // Starts a run of `config` (config.engine must be this engine's kind). A run still
    // going is stopped first. Throws std::invalid_argument for settings this engine
    // cannot run (engineProblem()) or refuses, DatasetError, or std::runtime_error
    // when the engine itself cannot start (no torch); `cancelled` cuts a long start
    // short. On a throw, the previous run's trace stays in place.
    virtual void start(const RunConfig &config, const EngineCancel &cancelled = {}) = 0;
    virtual void stop() = 0;
    // Engines that cannot pause (engineCannot(kind(), EngineFeature::Pause)) ignore these.
    virtual void pause() = 0;
    virtual void resume() = 0;
    // Applied at the next batch boundary; every sample is still delivered once per
    // epoch; the trace gets a marker of `kind` with `detail` and a new config version.
    // Throws std::invalid_argument for settings the engine refuses (with the reason;
    // also where the engine cannot reconfigure at all).
    virtual void reconfigure(const LoaderConfig &loader, const ConsumerConfig &consumer,
                             MarkerKind kind = MarkerKind::Reconfigure,
                             std::string detail = {}) = 0;
    // Why the last reconfiguration was not (fully) applied, once; "" when it was.
    virtual std::string takeReconfigureError() = 0;

    virtual RunState state() const = 0;
    bool finished() const; // Finished, Stopped or Failed
    // Waits up to `timeoutMs` (negative: forever); true once the run has ended (or
    // none was started).
    virtual bool waitForEnd(int timeoutMs = -1) const = 0;

    virtual std::shared_ptr<const TraceLog> trace() const = 0;
    virtual RunConfig config() const = 0;  // with the latest applied reconfiguration
    virtual std::string error() const = 0; // why the run failed; "" otherwise
    // Whether the run failed on settings or data that cannot run at all, found only
    // once it started (a pipeline file's empty dataset, known when Python made it):
    // what start() throws std::invalid_argument or DatasetError for when it can tell.
    virtual bool refused() const = 0;
    virtual std::string datasetDescription() const = 0;
    // The step's highest memory use so far; 0: not measured (EngineFeature::PeakMemory).
    virtual std::int64_t peakMemoryBytes() const = 0;
    // Threads (and, for the PyTorch engine, its Python process) of the current run
    // still alive; 0 once a run has ended and let go of them.
    virtual int liveThreads() const = 0;
    // A live change starts new worker processes (about a second: the PyTorch engine),
    // not threads (LoaderLab's, microseconds); the autotuner counts that wait against
    // a move (AutotuneOptions::countRebuild).
    virtual bool changesRestartWorkers() const = 0;
    // The engine's own entries for the report's versions ("engine", "torch").
    virtual std::map<std::string, std::string> versions() const = 0;
    // The run's time 0 on the wall clock, ns since 1970; 0 where not known. What places
    // a rank's run beside other processes' (RunReport::probe).
    virtual std::int64_t startUnixNs() const { return 0; }

    // Called on an engine thread when a run ends; must not block.
    virtual void setOnEnded(std::function<void(RunState)> callback) = 0;
    // For the runs started after this: keep only about the last `keepBatches`
    // batches (0: all), held for a reader that must see every batch when
    // `heldForReader` (core/trace/trace_log.h).
    virtual void setTraceRetention(std::size_t keepBatches, bool heldForReader) = 0;
};

// A new engine of `kind`, idle.
std::unique_ptr<Engine> makeEngine(EngineKind kind);

} // namespace loaderlab
