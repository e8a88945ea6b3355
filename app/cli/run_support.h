#pragma once

// What the commands that run the loader share (`run`, `sweep`): stopping on
// SIGINT, SIGTERM and SIGHUP with the outputs still written, and the default
// dataset, generated on first use when a folder run names no path.

#include "core/config/run_config.h"
#include "core/tools/imagenette_generator.h"
#include "core/trace/trace_log.h"

#include <QCommandLineParser>

#include <atomic>
#include <stop_token>
#include <thread>

namespace loaderlab::cli {

// Installs the handlers for its lifetime and restores the defaults after. A signal
// does not end the process: takeStopSignal() reports it, and the command stops its
// run, writes what was measured and exits with 128 + the signal's number.
class StopSignals
{
public:
    StopSignals();
    ~StopSignals();
    StopSignals(const StopSignals &) = delete;
    StopSignals &operator=(const StopSignals &) = delete;
};

// The signal received since the last call, or 0.
int takeStopSignal();

// For commands whose work takes a std::stop_token (sweep, lesson, max-batch): a
// thread that turns the first stop signal into a stop request. Install StopSignals
// first.
class SignalStop
{
public:
    SignalStop();
    ~SignalStop(); // joins
    SignalStop(const SignalStop &) = delete;
    SignalStop &operator=(const SignalStop &) = delete;

    std::stop_token token() const { return m_stop.get_token(); }
    int signal() const { return m_signal.load(); } // 0 while none came

private:
    std::stop_source m_stop;
    std::atomic<int> m_signal{0};
    std::jthread m_watcher;
};

// A folder run without a path gets the default dataset (generated on first use,
// with progress on stderr).
void ensureDefaultDataset(loaderlab::RunConfig &config);

// Progress of a dataset tool on stderr ("images: 40/432"): every 5 % and at the end.
loaderlab::ProgressCallback progressPrinter(const char *what);

// One progress line on stderr (refreshed in place on a terminal): the seconds since
// the run started, batches so far and samples/s over the last 50, and "no batch for
// N s" when the last came `idleSeconds` ago (2 s or more: a loader, a dataset or a
// pipeline that hangs shows as one).
void printRunProgress(const loaderlab::TraceLog &trace, bool tty, double elapsedSeconds,
                      double idleSeconds);

} // namespace loaderlab::cli
