#pragma once

// Autotuner: tunes a running engine's (core/engine/engine.h) workers and prefetch (and batch size
// when allowed) from its live trace, with LoaderModelSearch (the loader model proposes,
// measured windows confirm; the default) or AutotuneSearch (a hill climb of measured
// trials) deciding. On a thread of its own: it applies the settings to measure, waits for the new
// loader to settle (a round of W batches plus one: a new loader starts with empty queues), measures
// samples/s at the consumer over a window of several rounds, and reports it. Trials
// and moves are live reconfigurations with MarkerKind::Autotune markers; a move's
// marker says why ("+18 %, noise 3 %"), a trial's says "trying". holding() says
// when the search has settled (no neighbour of the setting won) and waitForHold()
// waits for it.

#include "core/autotune/autotune_search.h"
#include "core/autotune/loader_model_search.h"
#include "core/record/trace_record.h"
#include "core/system/cpu_load.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <thread>

namespace loaderlab {

class Engine;
struct RunConfig;

struct AutotuneOptions
{
    bool tuneBatch = false;
    int windowRounds = 4;      // a window: this many rounds of W batches ...
    int minWindowBatches = 12; // ... and at least this many batches
    int maxPrefetch = 8;
    int maxWorkers = 0; // 0: autotuneWorkerCap of the machine's cores
    int minBatch = 8;   // the batch size's bounds, with tuneBatch
    int maxBatch = 512;
    // How often the tuner looks at the trace while it waits for a window's batches;
    // a stop wakes it at once.
    std::chrono::milliseconds pollInterval{20};
    // Count a change's own cost: each window starts at the last batch before the
    // change, so the wait while the engine rebuilds (new worker processes) is part of
    // what is measured, and a setting must win with its rebuild paid. Set by the
    // Autotuner for an engine whose changes restart worker processes
    // (Engine::changesRestartWorkers); otherwise a window starts after a round of W
    // batches has settled.
    bool countRebuild = false;
    // LoaderModelSearch (true) or the hill climb of AutotuneSearch (false).
    bool model = true;
    LoaderModelSearchOptions modelOptions;
};

// A run config's workers, prefetch and batch size.
AutotuneSettings autotuneSettingsOf(const RunConfig &config);

// The workers the autotuner may use: the cores, less one for a LibTorch model's
// own threads (the step computes while the workers decode); at least 1.
int autotuneWorkerCap(const RunConfig &config, int cores);

// The limits the tuner searches within for a run that starts with `start`: the
// workers cap (or the starting count if higher), the options' prefetch and batch
// bounds.
AutotuneLimits autotuneLimits(const RunConfig &start, const AutotuneOptions &options, int cores);

// The batches [from, to] a window measures for settings with `workers` workers
// that took effect at batch `firstBatch`: the new loader's first round (W batches
// plus one: it starts with empty queues) is left out, a window starts after the
// last batch the previous one measured (`measuredTo`), and it spans
// max(minWindowBatches, windowRounds x W) batches after its first. When an epoch
// takes `epochBatches` batches, at most kAutotuneEpochWindows such spans, the span
// is rounded up to a whole number of epochs: every window then holds the same
// number of epoch starts, each of which drains the pipeline (non-persistent workers
// start again), instead of one window holding one and the next none.
struct AutotuneWindow
{
    std::size_t from = 0;
    std::size_t to = 0;
};
inline constexpr int kAutotuneEpochWindows = 3;
AutotuneWindow autotuneWindow(std::int64_t firstBatch, int workers, std::size_t measuredTo,
                              const AutotuneOptions &options, std::int64_t epochBatches = 0);

// The batches an epoch takes at `batchSize`: the samples (delivered and skipped) of
// the last epoch `records` (in batch order) holds from its first batch to its last,
// over the batch size, rounded up; 0 when `records` holds no such epoch.
std::int64_t autotuneEpochBatches(std::span<const TraceRecord> records, int batchSize);

// Samples/s at the consumer over a window's records (in batch order): the samples
// of every batch after the first, over the time from the first's step end to the
// last's; 0 with fewer than two records or no time between them.
double autotuneWindowRate(std::span<const TraceRecord> records);

// A measured window: its samples/s (autotuneWindowRate), the CPU samples taken when
// its first batch and its last had arrived, and other programs' demand on the machine
// between them (liveOtherDemand; nothing: unknown).
struct AutotuneMeasure
{
    double samplesPerSec = 0.0;
    CpuSample start;
    CpuSample end;
    std::optional<double> otherCores;
};

// Other programs' demand on the machine (otherDemandCores) in the last window the
// tuner measured, and the machine's cores; otherCores is nothing before the first
// window, or where /proc/stat cannot say.
struct AutotuneLoad
{
    std::optional<double> otherCores;
    int cores = 0;
};

class Autotuner
{
public:
    using MoveCallback = std::function<void(const AutotuneMove &)>;

    // Starts tuning `run`, which must be running. `onMove` is called on the tuner's
    // thread.
    Autotuner(Engine &run, AutotuneOptions options, MoveCallback onMove = {});
    ~Autotuner(); // stops and joins
    Autotuner(const Autotuner &) = delete;
    Autotuner &operator=(const Autotuner &) = delete;

    void stop();
    AutotuneSettings incumbent() const;
    int moves() const;
    // True while the search holds: the last round found no better neighbour and the
    // run is at the incumbent. False again when a drift or a re-probe restarts it.
    bool holding() const;
    int windows() const;      // windows measured so far
    int calibrations() const; // times the loader model was calibrated (model search)
    AutotuneLoad lastLoad() const;
    // Waits up to `timeout` for holding(); false on a timeout or when the tuner ended
    // (stopped, or the run ended) without holding.
    bool waitForHold(std::chrono::milliseconds timeout) const;

private:
    void loop(std::stop_token stop);
    void tune(std::stop_token stop); // the search loop; returns when stopped or the run ended
    void tuneWithModel(std::stop_token stop); // the same, LoaderModelSearch deciding
    // Applies `want` unless the run has it already, with a marker saying `detail`, and
    // waits for it to take effect; false when refused (the memory budget) or stopped.
    bool apply(std::stop_token stop, const AutotuneSettings &want, const std::string &detail,
               bool *refused);
    // autotuneEpochBatches at `setting`'s batch size, from the trace's latest batches.
    std::int64_t epochBatches(const AutotuneSettings &setting) const;
    // Waits for the window of batches [from, to] of `setting` and measures it, the
    // machine's load included; nullopt when stopped or the run ended.
    std::optional<AutotuneMeasure> measure(std::stop_token stop, const AutotuneSettings &setting,
                                           std::size_t from, std::size_t to);
    void publish(AutotuneSettings incumbent, bool holding, int windows,
                 const std::optional<AutotuneMove> &move, int calibrations = 0);
    // Waits one poll interval, or less when stopped; false when stopped or the run ended.
    bool pause(std::stop_token stop);

    Engine &m_run;
    AutotuneOptions m_options;
    MoveCallback m_onMove;
    mutable std::mutex m_mutex;
    mutable std::condition_variable m_changed; // after each window, and at the end
    std::mutex m_pauseMutex;
    std::condition_variable_any m_pauseWake; // woken only by a stop
    AutotuneSettings m_incumbent;
    int m_moves = 0;
    bool m_holding = false;
    int m_windows = 0;
    int m_calibrations = 0;
    AutotuneLoad m_lastLoad;
    bool m_ended = false;
    std::jthread m_thread;
};

} // namespace loaderlab
