#pragma once

// RunManager: the run's life in the window. Start (with the engine chosen and the
// autotuner handed over), the control panel's changes applied to a running run
// (live, or a new run for another dataset or device count), pause, keeping a run for
// comparison, and the status line's text.

#include "core/config/run_config.h"
#include "core/run/run_controller.h"

#include <QObject>
#include <QString>

#include <cstdint>

class QWidget;

namespace loaderlab {

struct RunSummary;

class AutotuneManager;
class ControlPanel;
class EngineManager;
class RunSession;

class RunManager : public QObject
{
    Q_OBJECT

public:
    RunManager(RunSession *session, ControlPanel *controls, EngineManager *engine,
               AutotuneManager *autotune, QObject *parent);

    // Starts a run with the panel's settings; false (and the error shown) on failure.
    // An ordinary run: Start, F5, and the restarts a change of dataset or devices makes.
    bool startRun();
    // The same with the configuration as it was set (a --config file, a lesson's
    // preset), a replay included (RunConfig::replayBatches), which Start leaves out.
    bool startConfiguredRun();
    // The same, replaying its first `batches` batches once they are kept (loading made
    // free, RunConfig::replayBatches).
    bool startReplayRun(std::int64_t batches);
    // Asks how many batches to keep, then startReplayRun.
    void askReplayRun(QWidget *parent);
    // The side panel's settings with the chosen engine: what Start runs, and the base
    // of a sweep or a lesson started from the window.
    loaderlab::RunConfig chosenConfig() const;
    void keepRun();
    // The panel's settings applied as if changed by hand: a new run for another
    // dataset, else live.
    void applyControls(bool datasetChanged);
    // "running — 120 batches — step …": the status line for `summary`.
    QString statusText(const loaderlab::RunSummary &summary) const;
    static QString stateText(loaderlab::RunState state);
    // The controls and the autotuner follow the run's state (on every change of it).
    void syncState();

Q_SIGNALS:
    void report(const QString &message);

private:
    bool start(loaderlab::RunConfig config);
    void onLoaderSettingsChanged();
    void onDatasetSettingsChanged();
    void onDevicesChanged();
    void onPauseToggled(bool paused);

    RunSession *m_session;
    ControlPanel *m_controls;
    EngineManager *m_engine;
    AutotuneManager *m_autotune;
};

} // namespace loaderlab
