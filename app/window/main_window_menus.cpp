// MainWindow's menus and toolbar: every action the window offers, with the shortcuts
// the guide (F1) lists from these menus.

#include "app/window/file_manager.h"
#include "app/window/help_dialog.h"
#include "app/window/language.h"
#include "app/window/live_plot_area.h"
#include "app/window/main_window.h"
#include "app/window/run_manager.h"

#include "widgets/experiments/experiments_view.h"
#include "widgets/limits/limits_dialog.h"
#include "widgets/session/run_list.h"
#include "widgets/session/run_session.h"
#include "widgets/settings/control_panel.h"

#include <QActionGroup>
#include <QDockWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QToolBar>

namespace loaderlab {

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open configuration…"), QKeySequence::Open, m_files,
                    &FileManager::openConfig);
    file->addAction(tr("&Save configuration…"), QKeySequence::Save, m_files,
                    &FileManager::saveConfig);
    file->addSeparator();
    file->addAction(tr("Open &run…"), m_files, &FileManager::openRunDialog);
    file->addAction(tr("F&ollow run…"), m_files, &FileManager::followRunDialog)
        ->setObjectName(QStringLiteral("followRunAction"));
    file->addSeparator();
    file->addAction(tr("Export r&eport (HTML, PDF)…"), m_files, &FileManager::exportReportDialog)
        ->setObjectName(QStringLiteral("exportReportAction"));
    file->addAction(tr("Export trace as &CSV…"), m_files, &FileManager::exportTraceDialog)
        ->setObjectName(QStringLiteral("exportTraceAction"));
    file->addAction(tr("Export figures &table as CSV…"), m_files, &FileManager::exportFiguresDialog)
        ->setObjectName(QStringLiteral("exportFiguresAction"));
    file->addAction(tr("Export summary as &JSON…"), m_files, &FileManager::exportSummaryDialog);
    file->addAction(tr("Export trace for Per&fetto…"), m_files,
                    &FileManager::exportChromeTraceDialog)
        ->setObjectName(QStringLiteral("exportPerfettoAction"));
    file->addAction(tr("Export &plots…"), m_files, &FileManager::exportPlotsDialog);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    // F5 / Shift+F5 as in debuggers; F6 between them pauses. Keys without a modifier
    // would be typed into the settings' fields.
    QMenu *run = menuBar()->addMenu(tr("&Run"));
    run->addAction(tr("&Start"), QKeySequence(Qt::Key_F5), m_runs, &RunManager::startRun)
        ->setObjectName(QStringLiteral("startAction"));
    m_pauseAction = run->addAction(tr("&Pause"), QKeySequence(Qt::Key_F6), m_controls,
                                   &ControlPanel::togglePause);
    m_pauseAction->setObjectName(QStringLiteral("pauseAction"));
    run->addAction(tr("S&top"), QKeySequence(Qt::SHIFT | Qt::Key_F5), m_session, &RunSession::stop)
        ->setObjectName(QStringLiteral("stopAction"));
    run->addAction(tr("&Reset"), m_session, &RunSession::reset);
    run->addAction(tr("Start with loading made &free (replay)…"), this,
                   [this] { m_runs->askReplayRun(this); })
        ->setObjectName(QStringLiteral("replayAction"));
    run->addAction(tr("&Limits of this machine (roofline)…"), this, &MainWindow::showLimits)
        ->setObjectName(QStringLiteral("limitsAction"));
    run->addSeparator();
    QAction *keep = run->addAction(tr("&Keep run for comparison"),
                                   QKeySequence(Qt::CTRL | Qt::Key_K), m_runs,
                                   &RunManager::keepRun);
    keep->setObjectName(QStringLiteral("keepRunAction"));
    run->addAction(tr("&Remove kept and opened runs"), m_session->runs(), &RunList::clearKept);
    connect(m_session, &RunSession::stateChanged, this, &MainWindow::syncRunActions);
    syncRunActions();

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Live plots"), QKeySequence(Qt::CTRL | Qt::Key_1), this,
                    [this] { showExperiments(false); });
    view->addAction(tr("&Experiments (sweeps)"), QKeySequence(Qt::CTRL | Qt::Key_2), this,
                    [this] { showExperiments(true); });
    view->addAction(m_runsDock->toggleViewAction());
    view->addAction(m_eventsDock->toggleViewAction());
    QAction *lessons = view->addAction(tr("&Lessons"), QKeySequence(Qt::CTRL | Qt::Key_L), this,
                                       [this] { showLessons(true); });
    view->addAction(tr("&What if (predicted settings)"), this, &MainWindow::showWhatIf)
        ->setObjectName(QStringLiteral("whatIfAction"));
    view->addSeparator();
    m_followAction = view->addAction(tr("&Follow newest data"));
    m_followAction->setCheckable(true);
    m_followAction->setChecked(true);
    m_followAction->setShortcut(QKeySequence(Qt::Key_F));
    connect(m_followAction, &QAction::toggled, m_plots, &LivePlotArea::setFollowing);
    connect(m_plots, &LivePlotArea::followingStopped, this, [this] {
        QSignalBlocker blocker(m_followAction);
        m_followAction->setChecked(false);
    });
    QAction *fitAll = view->addAction(tr("Fit &all"), QKeySequence(Qt::Key_A), m_plots,
                                      &LivePlotArea::showWholeRun);
    fitAll->setObjectName(QStringLiteral("fitAllAction"));
    fitAll->setToolTip(tr("Every shown run whole on every plot (stops following)"));

    QMenu *language = menuBar()->addMenu(tr("&Language"));
    auto *group = new QActionGroup(language);
    const QString current = language::configured();
    for (const auto &[code, name] : language::available()) {
        QAction *action = language->addAction(name);
        action->setCheckable(true);
        action->setChecked(code == current);
        group->addAction(action);
        connect(action, &QAction::triggered, this, [this, code = code] { chooseLanguage(code); });
    }

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *guide = help->addAction(tr("&Guide to the window…"), QKeySequence::HelpContents, this,
                                     [this] { HelpDialog::showGuide(this, menuBar()); });
    guide->setObjectName(QStringLiteral("guideAction"));
    help->addAction(tr("&About LoaderLab"), this, &MainWindow::showAbout);

    QToolBar *toolbar = addToolBar(tr("Run"));
    toolbar->setObjectName(QStringLiteral("runToolbar"));
    toolbar->addAction(m_followAction);
    toolbar->addAction(fitAll);
    toolbar->addAction(lessons);
    toolbar->addAction(tr("Keep run"), m_runs, &RunManager::keepRun);
    toolbar->addAction(tr("Export plots…"), m_files, &FileManager::exportPlotsDialog);
}

void MainWindow::syncRunActions()
{
    const RunState state = m_session->state();
    m_pauseAction->setEnabled(state == RunState::Running || state == RunState::Paused);
    m_pauseAction->setText(state == RunState::Paused ? tr("Res&ume") : tr("&Pause"));
}

namespace {

// What the roofline places: the window's runs with a steady rate, the live one first,
// then the finished cells of the Experiments view's sweep.
std::vector<RooflinePoint> rooflineRuns(const RunList &runs, const ExperimentsView &experiments)
{
    std::vector<RooflinePoint> points;
    for (const RunEntry &run : runs.runs())
        if (run.summary.samplesPerSecMean > 0.0)
            points.push_back({run.name.toStdString(), run.workers, run.summary.samplesPerSecMean});
    if (const QString sweep = experiments.resultsDir(); !sweep.isEmpty()) {
        try {
            const std::vector<RooflinePoint> cells = rooflinePoints(sweep.toStdString());
            points.insert(points.end(), cells.begin(), cells.end());
        } catch (const std::exception &) {
            // No finished cell yet, or a folder that cannot be read: the runs alone.
        }
    }
    return points;
}

} // namespace

LimitsDialog *MainWindow::showLimits()
{
    if (!m_limits) {
        m_limits = new LimitsDialog(
            [this] { return m_runs->chosenConfig(); },
            [this] { return rooflineRuns(*m_session->runs(), *m_experiments); }, this);
        m_limits->setAttribute(Qt::WA_DeleteOnClose);
    }
    m_limits->show();
    m_limits->raise();
    return m_limits;
}

} // namespace loaderlab
