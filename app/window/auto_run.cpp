#include "app/window/auto_run.h"

#include "app/window/main_window.h"

#include "widgets/experiments/experiments_view.h"
#include "widgets/limits/limits_dialog.h"
#include "widgets/session/run_session.h"
#include "widgets/settings/engine_choice.h"

#include <QApplication>
#include <QSaveFile>
#include <QStatusBar>
#include <QTimer>

#include <cstdio>
#include <utility>

namespace loaderlab {

namespace {

bool saveScreenshot(QWidget &window, const QString &path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !window.grab().save(&file, "PNG") || !file.commit()) {
        std::fprintf(stderr, "loaderlab: cannot write %s: %s\n", qPrintable(path),
                     qPrintable(file.errorString()));
        return false;
    }
    return true;
}

} // namespace

AutoRun::AutoRun(MainWindow &window, WindowOptions options, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_options(std::move(options))
{
}

void AutoRun::start()
{
    if (m_options.automatic())
        waitForEngine();
    else if (m_options.sweepDir)
        startSweep();
}

void AutoRun::datasetFailed()
{
    if (!m_options.automatic())
        return;
    m_exitCode = 2;
    QApplication::quit();
}

void AutoRun::waitForEngine()
{
    EngineChoice *engine = m_window.engineChoice();
    if (engine->choicePending()) {
        connect(engine, &EngineChoice::probeDone, this, &AutoRun::waitForEngine,
                Qt::SingleShotConnection);
        return;
    }
    if (!engine->unmetChoice().isEmpty()) {
        fail(engine->unmetChoice(), 2);
        return;
    }
    if (m_options.experiments && m_options.screenshot)
        startSweep();
    else
        startRun();
}

void AutoRun::startRun()
{
    if (!m_window.startRun()) {
        // The window says why in its status bar; a script reads stderr.
        fail(m_window.statusBar()->currentMessage(), 2);
        return;
    }
    QTimer::singleShot(m_options.seconds * 1000, this, &AutoRun::stopRun);
}

void AutoRun::stopRun()
{
    m_window.session()->stop();
    if (m_options.limits && m_options.screenshot) {
        // The run's point is on the roofline; the dialog is saved once it is drawn.
        LimitsDialog *limits = m_window.showLimits();
        connect(limits, &LimitsDialog::measureEnded, this, [this, limits] {
            QTimer::singleShot(200, this, [this, limits] {
                if (!saveScreenshot(*limits, *m_options.screenshot))
                    m_exitCode = 1;
                QApplication::quit();
            });
        });
        limits->measure();
        return;
    }
    if (m_options.json) {
        QString error;
        if (!m_window.exportSummaryJson(*m_options.json, &error)) {
            std::fprintf(stderr, "loaderlab: %s\n", qPrintable(error));
            m_exitCode = 1;
        }
    }
    finish();
}

void AutoRun::startSweep()
{
    ExperimentsView *sweeps = m_window.experimentsView();
    QString error;
    const bool started = m_options.sweepDir ? sweeps->resume(*m_options.sweepDir, &error)
                                            : sweeps->start(&error);
    if (!started) {
        fail(error, 2);
        return;
    }
    connect(sweeps, &ExperimentsView::finished, this, &AutoRun::finish);
}

void AutoRun::finish()
{
    // Saves the screenshot once the last refresh has painted.
    QTimer::singleShot(200, this, &AutoRun::saveAndQuit);
}

void AutoRun::saveAndQuit()
{
    if (m_options.screenshot && !saveScreenshot(m_window, *m_options.screenshot))
        m_exitCode = 1;
    QApplication::quit();
}

void AutoRun::fail(const QString &reason, int exitCode)
{
    std::fprintf(stderr, "loaderlab: %s\n", qPrintable(reason));
    m_exitCode = exitCode;
    QApplication::quit();
}

} // namespace loaderlab
