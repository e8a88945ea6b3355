#include "app/window/run_manager.h"

#include "app/window/autotune_manager.h"
#include "app/window/engine_manager.h"

#include "core/stats/run_summary.h"

#include "widgets/plots/plot_title.h"
#include "widgets/session/run_session.h"
#include "widgets/session/stats_panel.h"
#include "widgets/settings/control_panel.h"
#include "widgets/settings/model_panel.h"

#include <QInputDialog>
#include <QRegularExpression>

namespace loaderlab {

namespace {

// The run's dataset in the window's language. The engine's description is English
// (it goes into the run's JSON as is); of it only the torch version the PyTorch
// engine reports is kept.
QString datasetText(const RunSession &session)
{
    const RunConfig config = session.config();
    const QString dataset = plottitle::dataset(config.dataset);
    if (config.engine != EngineKind::PyTorch)
        return dataset;
    static const QRegularExpression torch(
        QStringLiteral("^PyTorch DataLoader \\(torch ([^)]*)\\)"));
    const QRegularExpressionMatch match = torch.match(session.datasetDescription());
    return match.hasMatch()
               ? RunManager::tr("PyTorch DataLoader (torch %1): %2").arg(match.captured(1), dataset)
               : RunManager::tr("PyTorch DataLoader: %1").arg(dataset);
}

} // namespace

RunManager::RunManager(RunSession *session, ControlPanel *controls, EngineManager *engine,
                       AutotuneManager *autotune, QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_controls(controls)
    , m_engine(engine)
    , m_autotune(autotune)
{
    connect(m_session, &RunSession::reconfigureFailed, this, [this](const QString &reason) {
        m_controls->modelPanel()->showError(
            tr("Not applied; the run goes on with the previous step: %1").arg(reason));
        Q_EMIT report(tr("Model step not changed: %1").arg(reason));
    });
    connect(m_session, &RunSession::stateChanged, this, &RunManager::syncState);
    connect(m_controls, &ControlPanel::loaderSettingsChanged, this,
            &RunManager::onLoaderSettingsChanged);
    connect(m_controls, &ControlPanel::datasetSettingsChanged, this,
            &RunManager::onDatasetSettingsChanged);
    connect(m_controls, &ControlPanel::devicesChanged, this, &RunManager::onDevicesChanged);
    connect(m_controls, &ControlPanel::startRequested, this, &RunManager::startRun);
    connect(m_controls, &ControlPanel::pauseToggled, this, &RunManager::onPauseToggled);
    connect(m_controls, &ControlPanel::stopRequested, m_session, &RunSession::stop);
    connect(m_controls, &ControlPanel::resetRequested, m_session, &RunSession::reset);
}

RunConfig RunManager::chosenConfig() const
{
    RunConfig config = m_controls->config();
    config.engine = m_engine->chosenEngine();
    return config;
}

bool RunManager::startRun()
{
    RunConfig config = chosenConfig();
    config.replayBatches = 0; // a replay is Run > Start with loading made free
    return start(config);
}

bool RunManager::startConfiguredRun()
{
    return start(chosenConfig());
}

bool RunManager::startReplayRun(std::int64_t batches)
{
    RunConfig config = chosenConfig();
    config.replayBatches = batches;
    return start(config);
}

void RunManager::askReplayRun(QWidget *parent)
{
    const RunConfig config = chosenConfig();
    bool ok = false;
    const int batches = QInputDialog::getInt(
        parent, tr("Start with loading made free"),
        tr("The run loads this many batches, then stops loading and runs its step on them "
           "again and again: the job's speed with a loader that costs nothing, beside the "
           "speed while it loaded. Batches to keep (more than the %n warm-up batch(es)):",
           nullptr, config.warmupBatches),
        std::max(config.warmupBatches + 15, 20), 1, 1'000'000, 1, &ok);
    if (ok)
        startReplayRun(batches);
}

bool RunManager::start(RunConfig config)
{
    config.epochs = 0; // the window runs until stopped
    QString error;
    m_autotune->stop(); // a new run on the same controller: the old tuner must not touch it
    if (!m_session->start(config, &error)) {
        m_controls->showDatasetError(error);
        m_controls->showRunError(tr("Cannot start: %1").arg(error));
        Q_EMIT report(tr("Cannot start: %1").arg(error));
        m_autotune->update(); // the previous run goes on: so does its tuning
        return false;
    }
    m_controls->clearDatasetError();
    m_controls->showRunError({});
    m_autotune->update();
    return true;
}

void RunManager::keepRun()
{
    if (m_session->keepRun() < 0)
        Q_EMIT report(tr("There is no run to keep yet."));
}

void RunManager::applyControls(bool datasetChanged)
{
    if (datasetChanged)
        onDatasetSettingsChanged();
    else
        onLoaderSettingsChanged();
}

void RunManager::syncState()
{
    m_controls->setRunState(m_session->state());
    m_autotune->update();
    if (m_session->state() == RunState::Failed) {
        m_controls->showRunError(tr("The run failed: %1").arg(m_session->error()));
        Q_EMIT report(tr("The run failed: %1").arg(m_session->error()));
    }
}

void RunManager::onLoaderSettingsChanged()
{
    m_controls->modelPanel()->clearError();
    if (!m_session->running())
        return;
    if (const QString refusal = EngineManager::refusal(m_session->runEngine(),
                                                       EngineFeature::Reconfigure);
        !refusal.isEmpty()) {
        Q_EMIT report(refusal);
        return;
    }
    const RunConfig config = m_controls->config();
    m_session->requestReconfigure(config.loader, config.consumer);
}

void RunManager::onDatasetSettingsChanged()
{
    m_controls->clearDatasetError();
    // A new dataset means a new run; if it cannot be opened the current run goes on.
    if (m_session->running())
        startRun();
}

void RunManager::onDevicesChanged()
{
    // The ranks are fixed for a run: a running one is restarted with the new count.
    if (m_session->running() && startRun())
        Q_EMIT report(tr("%n device(s): a new run", nullptr, m_controls->config().devices));
}

void RunManager::onPauseToggled(bool paused)
{
    const QString refusal = EngineManager::refusal(m_session->runEngine(), EngineFeature::Pause);
    if (!refusal.isEmpty() && m_session->running()) {
        m_controls->setRunState(m_session->state()); // the button back as it was
        Q_EMIT report(refusal);
        return;
    }
    if (paused)
        m_session->pause();
    else
        m_session->resume();
}

QString RunManager::statusText(const RunSummary &summary) const
{
    const auto trace = m_session->trace();
    QString status =
        tr("%1 — %2 batches").arg(stateText(m_session->state())).arg(trace ? trace->size() : 0);
    // Step beside wait, always in view: compute-bound or input-bound at a glance.
    if (trace && trace->size() > 0) {
        status += tr(" — step %1 ms, wait %2 ms per batch: %3")
                      .arg(QString::number(summary.computeMeanMs, 'f', 2),
                           QString::number(summary.waitMeanMs, 'f', 2),
                           StatsPanel::bandText(isShareBand(summary.band)
                                                    ? bandForShare(summary.inputBoundShare)
                                                    : summary.band));
    }
    status += tr(" — %1").arg(datasetText(*m_session));
    // A failed run keeps saying why until the next one starts.
    if (m_session->state() == RunState::Failed)
        status += tr(" — %1").arg(m_session->error());
    return status;
}

QString RunManager::stateText(RunState state)
{
    switch (state) {
    case RunState::Idle:
        return tr("idle");
    case RunState::Running:
        return tr("running");
    case RunState::Paused:
        return tr("paused");
    case RunState::Finished:
        return tr("finished");
    case RunState::Stopped:
        return tr("stopped");
    case RunState::Failed:
        return tr("failed");
    }
    return {};
}

} // namespace loaderlab
