#pragma once

// RunSession: the GUI's handle on the engine. Owns the RunService (the same run
// service the command line uses, so reports are made one way), paces the
// view with a ~30 Hz timer that a RefreshGovernor slows down when the CPU is
// saturated (plots pull what is new from the trace; the engine never waits on the
// UI), debounces live reconfiguration, and keeps a finished run as the
// reference for comparison.

#include "core/run/run_service.h"
#include "core/stats/run_summary.h"
#include "widgets/refresh_governor.h"

#include <QObject>
#include <QTimer>

#include <memory>

class RunSession : public QObject
{
    Q_OBJECT

public:
    explicit RunSession(QObject *parent = nullptr);
    ~RunSession() override;

    // Starts a new run. On failure (dataset cannot be opened, bad settings) returns
    // false with the reason, and the previous run and its trace stay as they were.
    bool start(const loaderlab::RunConfig &config, QString *error);
    // Applied to the running engine 200 ms after the last call (sliders move fast). A
    // model step that cannot be built there is reported by reconfigureFailed().
    void requestReconfigure(const loaderlab::LoaderConfig &loader,
                            const loaderlab::ConsumerConfig &consumer);
    void pause();
    void resume();
    void stop();
    // Stops and forgets the current run.
    void reset();

    loaderlab::RunState state() const;
    bool running() const;
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

    void keepAsReference();
    void clearReference();
    std::shared_ptr<const loaderlab::TraceLog> reference() const { return m_reference; }
    const loaderlab::RunSummary *referenceSummary() const;
    int referenceWorkers() const { return m_referenceWorkers; }

    loaderlab::RunController &controller() { return m_service.controller(); }

Q_SIGNALS:
    void traceReplaced(); // a new run: views start over
    void tick();          // new data may be there
    void stateChanged(loaderlab::RunState state);
    void referenceChanged();
    // A live change of the model step could not be applied; the run goes on with the
    // previous step.
    void reconfigureFailed(const QString &reason);

private:
    void onTimer();
    void onEngineEnded();
    void applyPendingReconfigure();
    void setState(loaderlab::RunState state);

    loaderlab::RunService m_service;
    loaderlab::RunController &m_controller = m_service.controller();
    std::shared_ptr<const loaderlab::TraceLog> m_trace;
    std::shared_ptr<const loaderlab::TraceLog> m_reference;
    loaderlab::RunSummary m_referenceSummary;
    int m_referenceWorkers = 0;
    loaderlab::RunState m_state = loaderlab::RunState::Idle;
    int m_maxWorkers = 0;
    QTimer m_refresh;
    RefreshGovernor m_governor;
    QTimer m_debounce;
    loaderlab::LoaderConfig m_pendingLoader;
    loaderlab::ConsumerConfig m_pendingConsumer;
};
