#pragma once

// PyTorchRun: the same run with PyTorch's own DataLoader (worker processes) instead
// of LoaderLab's loader, as a reference. A Python script (core/run/python/
// pytorch_engine.py, embedded in the binary) runs the DataLoader with the run's
// dataset, transform, batch size, workers, prefetch, shuffle, pinning and simulated
// step, and streams one JSON line per batch; each becomes a TraceRecord in a
// TraceLog, so the summary, the CSV, the JSON and the plots are those of any run.
// Measured per batch: wait (request to delivery in the main process), step, the
// worker that built it with its load start and end (monotonic clock, shared with
// the worker processes), and the read / decode / transform sums of its samples.
//
// Image folders and synthetic data only (tensor, IDX and CIFAR files are
// LoaderLab's readers); the "model" consumer is not available (the step is the
// simulated sleep, or none).

#include "core/io/summary_json.h"
#include "core/run/engine_channel.h"
#include "core/run/engine_process.h"
#include "core/run/run_controller.h"
#include "core/trace/trace_log.h"

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace loaderlab {

// Asked now and then during a long wait (the import check): true to give up.
using EngineCancel = std::function<bool()>;

// The interpreter the engine runs: $LOADERLAB_PYTHON when set, else the first of
// python3 on the PATH and /usr/bin/python3 (Debian's, the one python3-torch
// installs into) that imports torch and torchvision, else python3.
std::string pytorchEnginePython(const EngineCancel &cancelled = {});

// "" when `python` can import torch and torchvision; otherwise why not, in a line.
// Runs Python once (about a second) and remembers a yes or a no per interpreter.
// The check has a time limit (engineCheckSeconds(): 30 s, or
// $LOADERLAB_PYTORCH_CHECK_SECONDS) and stops early when `cancelled` says so; its
// process group is then killed, and that answer is not remembered.
std::string pytorchEngineProblem(const std::string &python = pytorchEnginePython(),
                                 const EngineCancel &cancelled = {});

// Why `config` cannot run on the PyTorch engine; "" when it can.
std::string pytorchConfigProblem(const RunConfig &config);

class PyTorchRun
{
public:
    explicit PyTorchRun(std::string python = pytorchEnginePython());
    ~PyTorchRun(); // stops the run and joins
    PyTorchRun(const PyTorchRun &) = delete;
    PyTorchRun &operator=(const PyTorchRun &) = delete;

    // Throws std::invalid_argument for a config the engine cannot run, and
    // std::runtime_error when Python cannot be started or fails the import check
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
    // Not possible on this engine yet: throws std::invalid_argument with the reason.
    void reconfigure(const LoaderConfig &loader, const ConsumerConfig &consumer,
                     MarkerKind kind = MarkerKind::Reconfigure, std::string detail = {});
    std::string takeReconfigureError() { return {}; }
    // Not possible on this engine yet: ignored.
    void pause() { }
    void resume() { }
    RunConfig config() const;
    std::string datasetDescription() const;
    // Called on the reader thread when the run ends; must not block.
    void setOnEnded(std::function<void(RunState)> callback);
    // For the runs started after this (TraceLog(keepBatches, heldForReader)).
    void setTraceRetention(std::size_t keepBatches, bool heldForReader);

private:
    void readOutput(EngineProcess child);
    void handleLine(std::string_view line);
    void refuseOutput(const std::string &why);
    void finish(int status);

    std::string m_python;
    RunConfig m_config;
    std::shared_ptr<TraceLog> m_trace;
    // CLOCK_MONOTONIC when the DataLoader was built (before that: when Python was
    // started), the trace's zero; written and read by the reader thread only.
    std::int64_t m_startNs = 0;
    // What the next record may say; the reader thread's own, like m_lineNumber.
    EngineChannelContext m_channel;
    std::int64_t m_lineNumber = 0;
    int m_pid = -1;
    std::jthread m_reader;
    mutable std::mutex m_mutex;
    std::condition_variable m_ended;
    RunState m_state = RunState::Idle;
    std::string m_error;
    std::string m_errTail;
    std::string m_description;
    bool m_sawEnd = false;
    bool m_stopRequested = false;
    bool m_outputRefused = false; // a bad record: the run failed, stdout is dropped
    std::function<void(RunState)> m_onEnded;
    std::size_t m_keepBatches = 0;
    bool m_heldForReader = false;
};

} // namespace loaderlab
