#pragma once

// Autotuner: tunes a running RunController's workers and prefetch (and batch size
// when allowed) from its live trace, with AutotuneSearch deciding. On a thread of
// its own: it applies the settings to measure, waits for the new loader to settle
// (a round of W batches plus one: a new loader starts with empty queues), measures
// samples/s at the consumer over a window of several rounds, and reports it. Trials
// and moves are live reconfigurations with MarkerKind::Autotune markers; a move's
// marker says why ("+18 %, noise 3 %"), a trial's says "trying".

#include "core/autotune/autotune_search.h"

#include <functional>
#include <mutex>
#include <thread>

namespace loaderlab {

class RunController;
struct RunConfig;

struct AutotuneOptions
{
    bool tuneBatch = false;
    int windowRounds = 4;      // a window: this many rounds of W batches ...
    int minWindowBatches = 12; // ... and at least this many batches
    int maxPrefetch = 8;
};

// The workers the autotuner may use: the cores, less one for a LibTorch model's
// own threads (the step computes while the workers decode); at least 1.
int autotuneWorkerCap(const RunConfig &config, int cores);

class Autotuner
{
public:
    using MoveCallback = std::function<void(const AutotuneMove &)>;

    // Starts tuning `run`, which must be running. `onMove` is called on the tuner's
    // thread.
    Autotuner(RunController &run, AutotuneOptions options, MoveCallback onMove = {});
    ~Autotuner(); // stops and joins
    Autotuner(const Autotuner &) = delete;
    Autotuner &operator=(const Autotuner &) = delete;

    void stop();
    AutotuneSettings incumbent() const;
    int moves() const;

private:
    void loop(std::stop_token stop);

    RunController &m_run;
    AutotuneOptions m_options;
    MoveCallback m_onMove;
    mutable std::mutex m_mutex;
    AutotuneSettings m_incumbent;
    int m_moves = 0;
    std::jthread m_thread;
};

} // namespace loaderlab
