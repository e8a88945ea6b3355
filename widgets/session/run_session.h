#pragma once

// RunSession: the GUI's handle on the engine. Owns the RunService (the same run
// service the command line uses, so reports are made one way), paces the
// view with a ~30 Hz timer that a RefreshGovernor slows down when the CPU is
// saturated (plots pull what is new from the trace; the engine never waits on the
// UI), debounces live reconfiguration, and holds the run list (widgets/session/run_list.h):
// the live run and the runs kept or opened for comparison. A run goes to the engine
// its config names (RunConfig::engine: LoaderLab's loader or PyTorch's DataLoader),
// through the one Engine interface (core/engine/engine.h).

#include "core/engine/run_service.h"
#include "core/io/run_reader.h"
#include "core/stats/run_summary.h"
#include "widgets/session/refresh_governor.h"
#include "widgets/session/run_list.h"

#include <QObject>
#include <QTimer>

#include <memory>
#include <optional>

namespace loaderlab {

class RunSession : public QObject
{
    Q_OBJECT

public:
    explicit RunSession(QObject *parent = nullptr);
    ~RunSession() override;

    // The engine of the current (or last) run.
    loaderlab::EngineKind runEngine() const { return m_service.engine().kind(); }

    // Starts a new run on the engine config.engine names. On failure (dataset cannot
    // be opened, bad settings, a setting the engine cannot run, no torch) returns
    // false with the reason, and the previous run and its trace stay as they were.
    bool start(const loaderlab::RunConfig &config, QString *error);
    // Applied to the running engine 200 ms after the last call (sliders move fast). A
    // change the engine refuses, or a model step that cannot be built there, is
    // reported by reconfigureFailed().
    void requestReconfigure(const loaderlab::LoaderConfig &loader,
                            const loaderlab::ConsumerConfig &consumer);
    void pause();
    void resume();
    void stop();
    // Stops and forgets the current run.
    void reset();

    loaderlab::RunState state() const;
    bool running() const;
    // The engine has ended the run (finished, stopped or failed).
    bool finished() const;
    std::shared_ptr<const loaderlab::TraceLog> trace() const { return m_trace; }
    loaderlab::RunConfig config() const;
    QString datasetDescription() const;
    QString error() const;
    // Largest worker count of the run so far (lanes of the timeline).
    int maxWorkers() const { return m_maxWorkers; }

    // The run's report (config versions, segments, markers), as `run --json` writes it.
    loaderlab::RunReport report() const;

    // Figures over the whole run, or over its last `window` batches while it runs
    // (summarising 10^6 batches at every refresh would cost more than the refresh).
    loaderlab::RunSummary summary(std::size_t window = 0) const;

    // The runs started after this keep only about the last `keep` batches in memory
    // (0: all), as headless runs do (`--keep-batches`; default kDefaultKeepBatches):
    // the window's memory stays bounded however long a run goes on.
    void setKeepBatches(std::size_t keep);

    // Adds the live run to the run list as a kept run (its trace and figures as they
    // are now); returns its id, or -1 when there is no run to keep.
    int keepRun();
    // Adds a run read from files; returns its id.
    int addOpenedRun(const loaderlab::OpenedRun &run);
    RunList *runs() { return &m_runs; }
    const RunList *runs() const { return &m_runs; }

    loaderlab::Engine &engine() { return m_service.engine(); }
    const loaderlab::Engine &engine() const { return m_service.engine(); }

Q_SIGNALS:
    void traceReplaced(); // a new run: views start over
    void tick();          // new data may be there
    void stateChanged(loaderlab::RunState state);
    // A live change of the model step could not be applied; the run goes on with the
    // previous step.
    void reconfigureFailed(const QString &reason);

private:
    void onTimer();
    void onEngineEnded();
    void applyPendingReconfigure();
    void setState(loaderlab::RunState state);

    loaderlab::RunService m_service;
    std::shared_ptr<const loaderlab::TraceLog> m_trace;
    RunList m_runs;
    loaderlab::RunState m_state = loaderlab::RunState::Idle;
    int m_maxWorkers = 0;
    mutable std::optional<double> m_firstBatchMs; // the live run's, once read
    QTimer m_refresh;
    RefreshGovernor m_governor;
    QTimer m_debounce;
    loaderlab::LoaderConfig m_pendingLoader;
    loaderlab::ConsumerConfig m_pendingConsumer;
};

} // namespace loaderlab
