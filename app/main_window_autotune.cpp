// MainWindow's autotune toggle: while the control panel's Autotune box is checked
// and a run goes, an Autotuner (core/autotune) drives its workers and prefetch (and
// the batch size when allowed); its trials and moves are live reconfigurations with
// autotune markers, which the plots draw, and the panel's controls follow the run.

#include "app/main_window.h"

#include "core/autotune/autotuner.h"

#include "widgets/control_panel.h"
#include "widgets/run_session.h"

using namespace loaderlab;

void MainWindow::updateAutotune()
{
    // The autotuner drives LoaderLab's own loader: not PyTorch's DataLoader, whose
    // settings cannot change while it runs.
    const bool want = m_controls->autotuneEnabled() && m_session->state() == RunState::Running
                      && m_session->runEngine() == RunSession::Engine::LoaderLab;
    const bool batch = m_controls->autotuneBatch();
    if (!want || (m_autotuner && batch != m_autotuneBatch))
        stopAutotune();
    if (want && !m_autotuner) {
        AutotuneOptions options;
        options.tuneBatch = batch;
        m_autotuneBatch = batch;
        // Starts from the run's settings; reports its moves as markers (no callback:
        // the window reads them from the trace like every other marker).
        m_autotuner = std::make_unique<Autotuner>(m_session->controller(), options);
        report(batch ? tr("Autotune on: workers, prefetch and batch size")
                     : tr("Autotune on: workers and prefetch"));
    }
    m_controls->setTuning(m_autotuner != nullptr, m_autotuneBatch);
}

void MainWindow::stopAutotune()
{
    if (!m_autotuner)
        return;
    m_autotuner.reset(); // joins its thread (it sleeps in 20 ms steps)
    m_controls->setTuning(false, false);
}

void MainWindow::followAutotune()
{
    if (!m_autotuner)
        return;
    const RunConfig run = m_session->config();
    const RunConfig shown = m_controls->config();
    if (run.loader.numWorkers != shown.loader.numWorkers
        || run.loader.prefetchFactor != shown.loader.prefetchFactor
        || run.loader.batchSize != shown.loader.batchSize)
        m_controls->showTuned(run.loader.numWorkers, run.loader.prefetchFactor,
                              run.loader.batchSize);
}
