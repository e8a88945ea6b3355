#include "app/window/main_window.h"

#include "app/window/autotune_manager.h"
#include "app/window/engine_manager.h"
#include "app/window/file_manager.h"
#include "app/window/help_dialog.h"
#include "app/window/language.h"
#include "app/window/lesson_manager.h"
#include "app/window/live_plot_area.h"
#include "app/window/run_follower.h"
#include "app/window/run_manager.h"

#include "core/config/run_config_json.h"
#include "core/system/safe_json.h"

#include "widgets/experiments/experiments_view.h"
#include "widgets/lessons/lesson_panel.h"
#include "widgets/session/event_list_view.h"
#include "widgets/session/run_list.h"
#include "widgets/session/run_list_view.h"
#include "widgets/session/run_session.h"
#include "widgets/session/stats_panel.h"
#include "widgets/settings/control_panel.h"
#include "widgets/settings/engine_choice.h"
#include "widgets/what_if/what_if_panel.h"

#include <QCloseEvent>
#include <QCoreApplication>
#include <QDockWidget>
#include <QLabel>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <sstream>

namespace loaderlab {

namespace {

// The stats panel summarises at most this many recent batches while a run goes on.
constexpr std::size_t kLiveSummaryWindow = 20'000;

} // namespace

} // namespace loaderlab

// The icon lives in loaderlab_gui's resources; a static library must register them.
// Outside the namespace: Q_INIT_RESOURCE declares the registration function where it
// stands.
static void initResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace loaderlab {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_session(new RunSession(this))
    , m_controls(new ControlPanel)
    , m_stats(new StatsPanel)
    , m_plots(new LivePlotArea)
    , m_engine(new EngineManager(m_controls, this))
    , m_autotune(new AutotuneManager(m_session, m_controls, this))
    , m_runs(new RunManager(m_session, m_controls, m_engine, m_autotune, this))
    , m_lessons(new LessonManager(m_session, m_controls, m_runs, this))
    , m_files(new FileManager(this, m_session, m_controls, m_plots))
{
    initResources();
    setWindowTitle(tr("LoaderLab"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/loaderlab.svg")));

    buildRunsDock();
    QWidget *side = buildSidePanel();
    m_experiments = new ExperimentsView;
    m_experiments->setObjectName(QStringLiteral("experimentsView"));
    m_experiments->setConfigSource([this] { return m_runs->chosenConfig(); });
    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("viewTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_plots, tr("Live"));
    m_tabs->addTab(m_experiments, tr("Experiments"));
    auto *splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(side);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(1, 1);
    setCentralWidget(splitter);

    m_statusLabel = new QLabel;
    statusBar()->addWidget(m_statusLabel, 1);
    buildMenus();

    connect(m_autotune, &AutotuneManager::report, this, &MainWindow::report);
    connect(m_runs, &RunManager::report, this, &MainWindow::report);
    connect(m_lessons, &LessonManager::report, this, &MainWindow::report);
    // A lesson the chosen engine cannot run says so before Start.
    connect(m_engine->choice(), &EngineChoice::pytorchChosenChanged, m_lessons->panel(),
            &LessonPanel::updateAvailability);
    connect(m_files, &FileManager::report, this, &MainWindow::report);
    connect(m_files, &FileManager::runOpened, this, [this] { showExperiments(false); });
    connect(m_session, &RunSession::traceReplaced, this, &MainWindow::onTraceReplaced);
    connect(m_session, &RunSession::tick, this, &MainWindow::onTick);
    // After RunManager's: the controls show the new state before the figures refresh.
    connect(m_session, &RunSession::stateChanged, this, &MainWindow::onTick);

    restoreSettings();
    m_runs->syncState();
    onTick();
}

MainWindow::~MainWindow()
{
    // Qt deletes the children in the order they were made, RunSession (and its run)
    // first. What reaches into the run ends before it: the autotuner's thread holds
    // the run's Engine, and the follows add to its run list. A sweep's thread has runs
    // of its own; ExperimentsView joins it as it goes.
    m_autotune->stop();
    m_files->follower()->stopAll();
    m_session->stop();
}

QWidget *MainWindow::buildSidePanel()
{
    // The side column: the settings (which scroll within their part of it) and the
    // lessons as two tabs, the stats below them in view at any window height. The
    // column is as wide as its content needs (German labels are longer), so the
    // Experiments tab beside it cannot squeeze the controls.
    m_sideTabs = new QTabWidget;
    m_sideTabs->setObjectName(QStringLiteral("sideTabs"));
    m_sideTabs->setDocumentMode(true);
    m_sideTabs->addTab(m_controls, tr("Settings"));
    m_sideTabs->addTab(m_lessons->view(), tr("Lessons"));
    m_whatIf = new WhatIfPanel(m_session);
    m_whatIf->setObjectName(QStringLiteral("whatIfPanel"));
    m_sideTabs->addTab(m_whatIf, tr("What if"));
    auto *side = new QWidget;
    side->setObjectName(QStringLiteral("sidePanel"));
    auto *sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(4, 4, 4, 4);
    sideLayout->addWidget(m_engine->choice());
    sideLayout->addWidget(m_sideTabs, 1);
    sideLayout->addWidget(m_stats);
    side->setMinimumWidth(std::max(320, side->minimumSizeHint().width()));
    return side;
}

void MainWindow::buildRunsDock()
{
    // Runs kept and opened for comparison, drawn over the live one on every plot
    // (widgets/session/run_list.h). Below the plots: the figures table is wide, the plots want
    // the width.
    m_runListView = new RunListView(m_session->runs());
    m_runListView->setObjectName(QStringLiteral("runListView"));
    m_runsDock = new QDockWidget(tr("Runs"), this);
    m_runsDock->setObjectName(QStringLiteral("runsDock"));
    m_runsDock->setWidget(m_runListView);
    m_runsDock->toggleViewAction()->setText(tr("&Runs and their figures"));
    addDockWidget(Qt::BottomDockWidgetArea, m_runsDock);
    // About five rows: the plots keep most of the height (a saved layout wins).
    resizeDocks({m_runsDock}, {5 * (fontMetrics().height() + 6)}, Qt::Vertical);
    connect(m_session->runs(), &RunList::overlaysChanged, this, &MainWindow::onRunsChanged);

    // The shown runs' markers as a list, a tab beside the runs: choosing one centres
    // the plots on it. Hidden until asked for (View → Events, Ctrl+E): its tab bar
    // would take the height that shows a fourth run at 1280x800.
    m_events = new EventListView(m_session->runs());
    m_events->setObjectName(QStringLiteral("eventList"));
    m_eventsDock = new QDockWidget(tr("Events"), this);
    m_eventsDock->setObjectName(QStringLiteral("eventsDock"));
    m_eventsDock->setWidget(m_events);
    m_eventsDock->toggleViewAction()->setText(tr("E&vents (markers of the shown runs)"));
    addDockWidget(Qt::BottomDockWidgetArea, m_eventsDock);
    tabifyDockWidget(m_runsDock, m_eventsDock);
    m_eventsDock->toggleViewAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_eventsDock->hide();
    m_runsDock->raise();
    // Shown: in front of the runs, where it is looked for.
    connect(m_eventsDock->toggleViewAction(), &QAction::triggered, this, [this](bool shown) {
        if (shown)
            m_eventsDock->raise();
    });
    connect(m_events, &EventListView::eventChosen, this, [this](const TraceMarker &marker) {
        showExperiments(false);
        m_plots->centreOn(marker);
    });
}

const std::vector<LivePlot *> &MainWindow::plots() const
{
    return m_plots->plots();
}

EngineChoice *MainWindow::engineChoice() const
{
    return m_engine->choice();
}

LessonPanel *MainWindow::lessonPanel() const
{
    return m_lessons->panel();
}

const Autotuner *MainWindow::autotuner() const
{
    return m_autotune->autotuner();
}

bool MainWindow::startRun()
{
    return m_runs->startConfiguredRun();
}

void MainWindow::applyConfig(const RunConfig &config)
{
    m_controls->setConfig(config);
    m_engine->choice()->choose(config.engine);
}

bool MainWindow::openRun(const QString &first, const QString &second, QString *error)
{
    return m_files->openRun(first, second, error);
}

bool MainWindow::followRun(const QString &path, QString *error)
{
    return m_files->followRun(path, error);
}

RunFollower *MainWindow::runFollower() const
{
    return m_files->follower();
}

bool MainWindow::exportTraceCsv(const QString &path, QString *error)
{
    return m_files->exportTraceCsv(path, error);
}

bool MainWindow::exportSummaryJson(const QString &path, QString *error)
{
    return m_files->exportSummaryJson(path, error);
}

bool MainWindow::exportChromeTrace(const QString &path, QString *error)
{
    return m_files->exportChromeTrace(path, error);
}

bool MainWindow::exportPlots(const QString &dir, const QString &format, QString *error)
{
    return m_files->exportPlots(dir, format, error);
}

void MainWindow::showLessons(bool lessons)
{
    m_sideTabs->setCurrentIndex(lessons ? 1 : 0);
}

void MainWindow::showWhatIf()
{
    m_sideTabs->setCurrentWidget(m_whatIf);
}

void MainWindow::showExperiments(bool experiments)
{
    m_tabs->setCurrentWidget(experiments ? static_cast<QWidget *>(m_experiments)
                                         : static_cast<QWidget *>(m_plots));
}

void MainWindow::onTraceReplaced()
{
    m_plots->setTrace(m_session->trace(), std::max(m_session->maxWorkers(), 1));
    if (!m_session->trace())
        m_stats->clear();
    m_lessons->panel()->setTrace(m_session->trace());
    m_followAction->setChecked(true);
    m_events->rebuild();
}

void MainWindow::onTick()
{
    // A lane for every worker the run had, also those the autotuner added.
    int lanes = m_session->maxWorkers();
    if (const auto trace = m_session->trace()) {
        for (const int workers : trace->workersByVersion())
            lanes = std::max(lanes, workers);
    }
    m_plots->refresh(lanes);
    // Hidden (as it starts), the list catches up with the markers when shown.
    if (m_eventsDock->isVisible())
        m_events->refresh();
    m_autotune->follow();
    // Figures at ~4 Hz: enough to read, and summarising is not free.
    if (++m_ticks % 8 == 0 || m_session->finished()) {
        const bool live = m_session->running();
        const RunSummary summary = m_session->summary(live ? kLiveSummaryWindow : 0);
        const RunEntry *oneRank = m_session->runs()->newestOneRankRun();
        m_stats->showSummary(summary, oneRank ? &oneRank->summary : nullptr,
                             oneRank ? oneRank->name : QString());
        if (m_session->trace())
            m_session->runs()->setLiveSummary(summary);
        m_lessons->panel()->refresh();
        m_statusLabel->setText(m_runs->statusText(summary));
    }
}

void MainWindow::onRunsChanged()
{
    std::vector<PlotOverlay> overlays;
    for (const RunEntry *run : m_session->runs()->visibleOverlays())
        overlays.push_back({run->trace, run->workers, run->colour, run->name});
    m_plots->setOverlays(overlays, m_session->runs()->live().visible);
    m_events->rebuild();
    // The dock grows to show up to four runs (never over a third of the window, never
    // shrinking what the user made larger).
    const int rows = std::min(static_cast<int>(m_session->runs()->runs().size()), 4);
    const int title = m_runsDock->height() - m_runListView->height();
    const int wanted = std::min(m_runListView->heightFor(rows) + title, height() / 3);
    if (m_runsDock->isVisible() && !m_runsDock->isFloating() && m_runsDock->height() < wanted)
        resizeDocks({m_runsDock}, {wanted}, Qt::Vertical);
}

void MainWindow::chooseLanguage(const QString &language)
{
    language::setConfigured(language);
    QMessageBox::information(this, tr("Language"),
                             tr("The language changes when LoaderLab is started again."));
}

void MainWindow::showAbout()
{
    const QString docs = HelpDialog::docsDirectory();
    const QString where = docs.isEmpty()
                              ? tr("The documentation is in the docs folder of the source tree.")
                              : tr("Documentation: <a href=\"%1\">%2</a>")
                                    .arg(QUrl::fromLocalFile(docs).toString(QUrl::FullyEncoded),
                                         docs.toHtmlEscaped());
    QMessageBox::about(this, tr("About LoaderLab"),
                       tr("<h3>LoaderLab %1</h3><p>See and tune how data loading feeds a "
                          "deep-learning model: a real loader with PyTorch's DataLoader semantics, "
                          "live plots of every batch.</p>")
                               .arg(QCoreApplication::applicationVersion())
                           + QStringLiteral("<p>") + where + QStringLiteral("</p><p>")
                           + tr("Help → Guide to the window (F1) explains every part of this "
                                "window.")
                           + QStringLiteral("</p>"));
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_plots->restoreState(settings.value(QStringLiteral("window/plots")).toByteArray());
    m_sideTabs->setCurrentIndex(settings.value(QStringLiteral("window/sideTab"), 0).toInt());
    const QString json = settings.value(QStringLiteral("run/config")).toString();
    if (json.isEmpty())
        return;
    try {
        std::istringstream in(json.toStdString());
        applyConfig(runConfigFromJson(parseConfigJson(in)));
    } catch (const std::exception &e) {
        // A stored config this version cannot read (an older key, a value out of the
        // current range) leaves the defaults in place; say so instead of hiding it.
        report(
            tr("The saved settings were not restored: %1").arg(QString::fromStdString(e.what())));
    }
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/plots"), m_plots->saveState());
    settings.setValue(QStringLiteral("window/sideTab"), m_sideTabs->currentIndex());
    settings.setValue(QStringLiteral("run/config"),
                      QString::fromStdString(toSafeJson(toJson(m_runs->chosenConfig())).dump()));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveSettings();
    m_session->stop();
    m_files->follower()->stopAll();
    m_experiments->stop(); // its sweep ends on a thread of its own
    event->accept();
}

void MainWindow::report(const QString &message)
{
    statusBar()->showMessage(message, 10'000);
}

} // namespace loaderlab
