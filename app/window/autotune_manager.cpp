#include "app/window/autotune_manager.h"

#include "core/autotune/autotuner.h"

#include "widgets/session/run_session.h"
#include "widgets/settings/control_panel.h"

namespace loaderlab {

AutotuneManager::AutotuneManager(RunSession *session, ControlPanel *controls, QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_controls(controls)
{
    connect(m_controls, &ControlPanel::autotuneChanged, this, &AutotuneManager::update);
}

AutotuneManager::~AutotuneManager() = default;

void AutotuneManager::update()
{
    // The autotuner moves by live reconfiguration: on an engine that can.
    const bool want = m_controls->autotuneEnabled() && m_session->state() == RunState::Running
                      && engineCannot(m_session->runEngine(), EngineFeature::Reconfigure).empty();
    const bool batch = m_controls->autotuneBatch();
    const bool model = m_controls->autotuneModelSearch();
    if (!want || (m_autotuner && (batch != m_autotuneBatch || model != m_modelSearch)))
        stop();
    if (want && !m_autotuner) {
        AutotuneOptions options;
        options.tuneBatch = batch;
        options.model = model;
        m_autotuneBatch = batch;
        m_modelSearch = model;
        // Starts from the run's settings; reports its moves as markers (no callback:
        // the window reads them from the trace like every other marker).
        m_autotuner = std::make_unique<Autotuner>(m_session->engine(), options);
        Q_EMIT report(batch ? tr("Autotune on: workers, prefetch and batch size")
                            : tr("Autotune on: workers and prefetch"));
    }
    m_controls->setTuning(m_autotuner != nullptr, m_autotuneBatch);
}

void AutotuneManager::stop()
{
    if (!m_autotuner)
        return;
    m_autotuner.reset(); // joins its thread (it sleeps in 20 ms steps)
    m_controls->setTuning(false, false);
}

void AutotuneManager::follow()
{
    if (!m_autotuner)
        return;
    const AutotuneLoad load = m_autotuner->lastLoad();
    m_controls->showTuningState(m_autotuner->windows(), m_autotuner->holding(), load.otherCores,
                                load.cores);
    const RunConfig run = m_session->config();
    const RunConfig shown = m_controls->config();
    if (run.loader.numWorkers != shown.loader.numWorkers
        || run.loader.prefetchFactor != shown.loader.prefetchFactor
        || run.loader.batchSize != shown.loader.batchSize)
        m_controls->showTuned(run.loader.numWorkers, run.loader.prefetchFactor,
                              run.loader.batchSize);
}

} // namespace loaderlab
