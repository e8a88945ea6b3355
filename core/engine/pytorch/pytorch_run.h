#pragma once

// PyTorchRun: the same run with PyTorch's own DataLoader (worker processes) instead
// of LoaderLab's loader, as a reference. A Python script (core/engine/pytorch/python/
// pytorch_engine.py, embedded in the binary) runs the DataLoader with the run's
// dataset, transform, batch size, workers, prefetch, shuffle, pinning and simulated
// step, and streams one JSON line per batch on a pipe of its own (core/run/
// engine_channel.h); each becomes a TraceRecord in a TraceLog, so the summary, the
// CSV, the JSON and the plots are those of any run. What the engine, its dataset or
// its workers print on stdout or stderr is captured apart; its last lines go into
// the error message when the engine fails.
//
// Like RunController, the run can be changed live: reconfigure() sends the new
// settings on a command socket and the engine applies them at its next batch
// boundary, building a new DataLoader over the samples of the epoch not yet
// delivered (every sample still once per epoch; the new workers' start is the next
// batch's wait); pause() and resume() stop and restart it at a batch boundary. Each
// applied change adds a config version and a marker at its first batch.
// Measured per batch: wait (request to delivery in the main process), step, the
// worker that built it with its load start and end (monotonic clock, shared with
// the worker processes), and the read / decode / transform sums of its samples.
//
// Image folders, tensor files (one, or a manifest's shards: the files LoaderLab
// checked, whose records the engine reads with pread), synthetic data and pipeline
// files (IDX and CIFAR files are LoaderLab's readers); the "model" consumer is not
// available (the step is the simulated sleep, or none).
//
// devices N > 1 runs N rank processes that meet through torch.distributed after
// every step (core/engine/pytorch/python/loaderlab_ranks.py): each its own DataLoader
// over its DistributedSampler shard, a barrier, and with gradient_mb an all-reduce
// of that gradient. Rank 0 relays the other ranks' records; their batches join one
// trace, numbered in the order they arrive, each with its rank and sync times.
// With RunConfig::launchRank set (`run --slurm-ranks`), this process runs that one
// rank of ranks another program started; its trace holds that rank's batches.

#include "core/engine/engine_cancel.h"
#include "core/engine/engine_problem.h"
#include "core/engine/pytorch/python_process.h"
#include "core/engine/pytorch/pytorch_channel.h"
#include "core/io/summary_json.h"
#include "core/run/run_controller.h"
#include "core/trace/trace_log.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace loaderlab {

// The interpreter the engine runs: $LOADERLAB_PYTHON when set, else the first of
// python3 on the PATH and /usr/bin/python3 (Debian's, the one python3-torch
// installs into) that has torch and torchvision, else python3.
std::string pytorchEnginePython(const EngineCancel &cancelled = {});

// Runs Python once (a few hundredths of a second: it looks for torch and
// torchvision without importing them) and remembers a yes or a no per interpreter.
// The check has a time limit (engineCheckSeconds(): 30 s, or
// $LOADERLAB_PYTORCH_CHECK_SECONDS) and stops early when `cancelled` says so; its
// process group is then killed, and that answer is not remembered.
PythonCheck pytorchPythonCheck(const std::string &python = pytorchEnginePython(),
                               const EngineCancel &cancelled = {});
// The check's answer in a line; "" when Python can import them.
std::string pythonCheckText(const PythonCheck &check);
// "" when `python` has torch and torchvision; otherwise why not, in a line.
std::string pytorchEngineProblem(const std::string &python = pytorchEnginePython(),
                                 const EngineCancel &cancelled = {});

// The batches each rank runs for the run's batch limit (0: none): the limit over the
// ranks, rounded up, as the ranks run the same number of steps.
std::int64_t engineRankBatches(const RunConfig &config);

// Why `config` cannot run on the PyTorch engine; None / "" when it can.
EngineProblem pytorchConfigProblemKind(const RunConfig &config);
std::string pytorchConfigProblem(const RunConfig &config);

class PyTorchRun
{
public:
    explicit PyTorchRun(std::string python = pytorchEnginePython());
    ~PyTorchRun(); // stops the run and joins
    PyTorchRun(const PyTorchRun &) = delete;
    PyTorchRun &operator=(const PyTorchRun &) = delete;

    // Throws std::invalid_argument for a config the engine cannot run, and
    // std::runtime_error when Python cannot be started or fails the check for torch
    // (which `cancelled` can cut short).
    void start(const RunConfig &config, const EngineCancel &cancelled = {});
    bool wait(int timeoutMs = -1);
    // The Python process group gets SIGTERM, then SIGKILL after 3 s; once Python
    // itself has exited, its pipes are read for 0.5 s at most (a process that left
    // the group may hold them open). The same happens on a bad record.
    void stop();
    RunState state() const;
    std::string error() const;
    std::shared_ptr<const TraceLog> trace() const { return m_trace; }
    RunReport report() const;

    // A live change, applied by the engine at its next batch boundary (as
    // RunController::reconfigure): from that batch on the run has a new config
    // version and a marker of `kind` with `detail` and the changes (liveChanges).
    // Throws std::invalid_argument for settings the engine refuses: validate(loader),
    // pytorchConfigProblem on the would-be config, and the loader settings it cannot
    // change live (seed, drop last, in order, strategy, bad samples). Does nothing
    // when no run is going on, or when the settings are those last asked for.
    void reconfigure(const LoaderConfig &loader, const ConsumerConfig &consumer,
                     MarkerKind kind = MarkerKind::Reconfigure, std::string detail = {});
    // Why the last change was not applied (the engine refused it or could not be
    // told), once; "" when it was.
    std::string takeReconfigureError();
    // state() is Paused at once; the Pause marker comes when the engine has paused
    // (at its next batch boundary), the Resume marker when it goes on.
    void pause();
    void resume();
    RunConfig config() const; // with the latest applied reconfiguration
    std::string datasetDescription() const;
    // Called on the reader thread when the run ends (state() says how), before wait()
    // returns. Must not block, nor wait for this run.
    void setOnEnded(std::function<void(RunState)> callback);
    // For the runs started after this: the trace keeps about the last `keepBatches`
    // batches (0: all), held for a reader when `heldForReader` (TraceLog).
    void setTraceRetention(std::size_t keepBatches, bool heldForReader);

    // Per epoch: the samples delivered and the sum of their engineSampleId modulo
    // 2^61 (core/engine/pytorch/pytorch_channel.h), from the engine's batch records: for a
    // check that each sample came exactly once.
    struct EpochSamples
    {
        std::int64_t samples = 0;
        std::uint64_t ids = 0;
    };
    std::map<std::int32_t, EpochSamples> epochSamples() const;
    // The run's time 0 (its start record) on the wall clock, ns since 1970; 0 before.
    std::int64_t startUnixNs() const { return m_startUnixNs.load(); }
    // The engine's process group (Python's pid) of the latest run; -1 before one.
    int processGroup() const { return m_pid; }
    // Whether the run failed because its settings or dataset cannot run at all (a
    // pipeline file's empty dataset): what LoaderLab's engine refuses in start().
    bool refused() const;

private:
    struct Request
    {
        RunConfig config; // the would-be config
        MarkerKind kind = MarkerKind::Reconfigure;
        std::string detail;
    };

    void readOutput(PythonProcess child);
    void handleLine(std::string_view line);
    void handleBatch(const ChannelBatch &b);
    void handleReconfigured(const ChannelReconfigured &r);
    void refuseOutput(const std::string &why);
    void finish(int status);
    void sendCommand(const std::string &line);

    std::string m_python;
    RunConfig m_config; // under m_mutex once the run started
    std::shared_ptr<TraceLog> m_trace;
    std::size_t m_keepBatches = 0;
    bool m_heldForReader = false;
    // CLOCK_MONOTONIC when the DataLoader was built (before that: when Python was
    // started), the trace's zero; written and read by the reader thread only.
    std::int64_t m_startNs = 0;
    // What the next record may say; the reader thread's own, like m_lineNumber.
    ChannelContext m_channel;
    std::int64_t m_lineNumber = 0;
    std::int32_t m_lastEpoch = 0; // the reader thread's, like m_channel
    std::int64_t m_batches = 0;   // the trace's batches so far, every rank's (reader thread)
    int m_launchRank = -1;        // RunConfig::launchRank of the run (reader thread)
    std::atomic<std::int64_t> m_startUnixNs{0};
    std::string m_sampleSource; // a skipped sample's source: the dataset's path
    std::int32_t m_version = 0; // the trace's config version in force (reader thread)
    int m_pid = -1;
    // The commands socket: written by the callers of reconfigure/pause/resume under
    // m_commandMutex (taken before m_mutex, never while holding it), closed by the reader.
    std::mutex m_commandMutex;
    int m_commandFd = -1;
    std::atomic<std::int64_t> m_lastRequest{0}; // the latest change number sent
    std::jthread m_reader;
    mutable std::mutex m_mutex;
    std::condition_variable m_ended;
    RunState m_state = RunState::Idle;
    std::string m_error;
    std::string m_errTail;
    std::string m_description;
    bool m_sawEnd = false;
    bool m_endedCalled = true; // no run, or the run's end is told: wait() returns
    bool m_stopRequested = false;
    bool m_outputRefused = false; // a bad record: the run failed, the records are dropped
    bool m_refused = false;       // the engine's error record said "refused"
    // The pipeline code running before the start record (ChannelPhase): what it is and
    // when its time is up, limit and grace; 0: none. The reader thread's own.
    std::string m_phase;
    double m_phaseSeconds = 0.0;
    std::int64_t m_phaseDeadlineNs = 0;
    std::string m_outTail;                      // the engine's stdout, last 4 KiB
    RunConfig m_requested;                      // the latest settings asked for (under m_mutex)
    std::map<std::int64_t, Request> m_requests; // sent, not answered yet (under m_mutex)
    std::string m_reconfigureError;
    std::function<void(RunState)> m_onEnded;
    std::map<std::int32_t, EpochSamples> m_epochSamples; // under m_mutex
};

} // namespace loaderlab
