#include "app/main_window.h"

#include "app/language.h"

#include "core/autotune/autotuner.h"
#include "core/config/run_config_json.h"
#include "core/consumer/model_consumer_factory.h"
#include "core/io/summary_json.h"
#include "core/io/trace_csv.h"
#include "core/system/torch_info.h"

#include "widgets/control_panel.h"
#include "widgets/engine_choice.h"
#include "widgets/experiments_view.h"
#include "widgets/lesson_panel.h"
#include "widgets/model_panel.h"
#include "widgets/run_list.h"
#include "widgets/run_session.h"
#include "widgets/stats_panel.h"
#include "widgets/throughput_plot.h"
#include "widgets/wait_histogram_plot.h"
#include "widgets/wait_time_plot.h"
#include "widgets/worker_timeline_plot.h"

#include <QActionGroup>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

using namespace loaderlab;

namespace {

// The stats panel summarises at most this many recent batches while a run goes on.
constexpr std::size_t kLiveSummaryWindow = 20'000;

} // namespace

// The icon lives in loaderlab_gui's resources; a static library must register them.
static void initResources()
{
    Q_INIT_RESOURCE(resources);
}

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_session(new RunSession(this))
{
    initResources();
    setWindowTitle(tr("LoaderLab"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/loaderlab.svg")));

    m_controls = new ControlPanel;
    m_stats = new StatsPanel;
    buildRunViews();
    // The side column: the settings (which scroll within their part of it) and the
    // lessons as two tabs, the stats below them in view at any window height. The
    // column is as wide as its content needs (German labels are longer), so the
    // Experiments tab beside it cannot squeeze the controls.
    m_sideTabs = new QTabWidget;
    m_sideTabs->setObjectName(QStringLiteral("sideTabs"));
    m_sideTabs->setDocumentMode(true);
    m_sideTabs->addTab(m_controls, tr("Settings"));
    m_sideTabs->addTab(buildLessonPanel(), tr("Lessons"));
    auto *side = new QWidget;
    side->setObjectName(QStringLiteral("sidePanel"));
    auto *sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(4, 4, 4, 4);
    sideLayout->addWidget(m_engineChoice);
    sideLayout->addWidget(m_sideTabs, 1);
    sideLayout->addWidget(m_stats);
    side->setMinimumWidth(std::max(320, side->minimumSizeHint().width()));

    buildPlots();
    m_experiments = new ExperimentsView;
    m_experiments->setObjectName(QStringLiteral("experimentsView"));
    m_experiments->setConfigSource([this] { return m_controls->config(); });
    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("viewTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_plotSplitter, tr("Live"));
    m_tabs->addTab(m_experiments, tr("Experiments"));
    auto *splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(side);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(1, 1);
    setCentralWidget(splitter);

    m_statusLabel = new QLabel;
    statusBar()->addWidget(m_statusLabel, 1);
    buildMenus();

    const TorchInfo torch = torchInfo();
    m_controls->setPinMemoryAvailable(
        torch.cudaAvailable,
        torch.cudaAvailable
            ? QString()
            : tr("Pinned memory speeds up copies to a GPU; no CUDA device is available "
                 "(LibTorch %1).")
                  .arg(torch.linked ? QString::fromStdString(torch.version) : tr("not linked")));

    // Registered by main() when the build has LibTorch; empty otherwise.
    m_controls->setModelCapabilities(modelCapabilities());

    connect(m_session, &RunSession::reconfigureFailed, this, [this](const QString &reason) {
        m_controls->modelPanel()->showError(
            tr("Not applied; the run goes on with the previous step: %1").arg(reason));
        report(tr("Model step not changed: %1").arg(reason));
    });
    connect(m_session, &RunSession::traceReplaced, this, &MainWindow::onTraceReplaced);
    connect(m_session, &RunSession::tick, this, &MainWindow::onTick);
    connect(m_session, &RunSession::stateChanged, this, &MainWindow::onStateChanged);
    connect(m_controls, &ControlPanel::loaderSettingsChanged, this,
            &MainWindow::onLoaderSettingsChanged);
    connect(m_controls, &ControlPanel::datasetSettingsChanged, this,
            &MainWindow::onDatasetSettingsChanged);
    connect(m_controls, &ControlPanel::devicesChanged, this, &MainWindow::onDevicesChanged);
    connect(m_controls, &ControlPanel::startRequested, this, &MainWindow::startRun);
    connect(m_controls, &ControlPanel::pauseToggled, this, &MainWindow::onPauseToggled);
    connect(m_controls, &ControlPanel::stopRequested, m_session, &RunSession::stop);
    connect(m_controls, &ControlPanel::resetRequested, m_session, &RunSession::reset);
    connect(m_controls, &ControlPanel::autotuneChanged, this, &MainWindow::updateAutotune);

    restoreSettings();
    onStateChanged();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildPlots()
{
    m_waitPlot = new WaitTimePlot;
    m_throughputPlot = new ThroughputPlot;
    m_timelinePlot = new WorkerTimelinePlot;
    m_histogramPlot = new WaitHistogramPlot;
    m_plots = {m_waitPlot, m_throughputPlot, m_timelinePlot, m_histogramPlot};
    m_waitPlot->setObjectName(QStringLiteral("waitTimePlot"));
    m_throughputPlot->setObjectName(QStringLiteral("throughputPlot"));
    m_timelinePlot->setObjectName(QStringLiteral("workerTimelinePlot"));
    m_histogramPlot->setObjectName(QStringLiteral("waitHistogramPlot"));
    for (LivePlot *plot : m_plots)
        plot->setMinimumHeight(160);

    auto *lower = new QSplitter(Qt::Horizontal);
    lower->addWidget(m_throughputPlot);
    lower->addWidget(m_histogramPlot);
    lower->setStretchFactor(0, 2);
    lower->setStretchFactor(1, 1);
    m_plotSplitter = new QSplitter(Qt::Vertical);
    m_plotSplitter->addWidget(m_waitPlot);
    m_plotSplitter->addWidget(m_timelinePlot);
    m_plotSplitter->addWidget(lower);
    m_plotSplitter->setStretchFactor(0, 3);
    m_plotSplitter->setStretchFactor(1, 3);
    m_plotSplitter->setStretchFactor(2, 2);
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open configuration…"), QKeySequence::Open, this, &MainWindow::openConfig);
    file->addAction(tr("&Save configuration…"), QKeySequence::Save, this, &MainWindow::saveConfig);
    file->addSeparator();
    file->addAction(tr("Open &run…"), this, &MainWindow::openRunDialog);
    file->addSeparator();
    file->addAction(tr("Export trace as &CSV…"), this, &MainWindow::exportTraceDialog);
    file->addAction(tr("Export summary as &JSON…"), this, &MainWindow::exportSummaryDialog);
    file->addAction(tr("Export trace for Per&fetto…"), this, &MainWindow::exportChromeTraceDialog)
        ->setObjectName(QStringLiteral("exportPerfettoAction"));
    file->addAction(tr("Export &plots…"), this, &MainWindow::exportPlotsDialog);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu *run = menuBar()->addMenu(tr("&Run"));
    run->addAction(tr("&Start"), this, &MainWindow::startRun);
    run->addAction(tr("S&top"), m_session, &RunSession::stop);
    run->addAction(tr("&Reset"), m_session, &RunSession::reset);
    run->addSeparator();
    run->addAction(tr("&Keep run for comparison"), this, &MainWindow::keepRun);
    run->addAction(tr("&Remove kept and opened runs"), m_session->runs(), &RunList::clearKept);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Live plots"), QKeySequence(Qt::CTRL | Qt::Key_1), this,
                    [this] { showExperiments(false); });
    view->addAction(tr("&Experiments (sweeps)"), QKeySequence(Qt::CTRL | Qt::Key_2), this,
                    [this] { showExperiments(true); });
    view->addAction(m_runsDock->toggleViewAction());
    QAction *lessons = view->addAction(tr("&Lessons"), QKeySequence(Qt::CTRL | Qt::Key_L), this,
                                       [this] { showLessons(true); });
    view->addSeparator();
    m_followAction = view->addAction(tr("&Follow newest data"));
    m_followAction->setCheckable(true);
    m_followAction->setChecked(true);
    m_followAction->setShortcut(QKeySequence(Qt::Key_F));
    connect(m_followAction, &QAction::toggled, this, [this](bool follow) {
        for (LivePlot *plot : m_plots)
            plot->setFollowing(follow);
    });
    for (LivePlot *plot : m_plots) {
        connect(plot, &LivePlot::followingChanged, this, [this](bool following) {
            if (!following) {
                QSignalBlocker blocker(m_followAction);
                m_followAction->setChecked(false);
            }
        });
    }

    QMenu *language = menuBar()->addMenu(tr("&Language"));
    auto *group = new QActionGroup(language);
    const QString current = Language::configured();
    for (const auto &[code, name] : Language::available()) {
        QAction *action = language->addAction(name);
        action->setCheckable(true);
        action->setChecked(code == current);
        group->addAction(action);
        connect(action, &QAction::triggered, this, [this, code = code] { chooseLanguage(code); });
    }

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About LoaderLab"), this, &MainWindow::showAbout);

    QToolBar *toolbar = addToolBar(tr("Run"));
    toolbar->setObjectName(QStringLiteral("runToolbar"));
    toolbar->addAction(m_followAction);
    toolbar->addAction(lessons);
    toolbar->addAction(tr("Keep run"), this, &MainWindow::keepRun);
    toolbar->addAction(tr("Export plots…"), this, &MainWindow::exportPlotsDialog);
}

bool MainWindow::startRun()
{
    RunConfig config = m_controls->config();
    config.epochs = 0; // the window runs until stopped
    m_session->setEngine(m_engineChoice->pytorchChosen() ? RunSession::Engine::PyTorch
                                                         : RunSession::Engine::LoaderLab);
    QString error;
    stopAutotune(); // a new run on the same controller: the old tuner must not touch it
    if (!m_session->start(config, &error)) {
        m_controls->showDatasetError(error);
        report(tr("Cannot start: %1").arg(error));
        updateAutotune(); // the previous run goes on: so does its tuning
        return false;
    }
    m_controls->clearDatasetError();
    updateAutotune();
    return true;
}

void MainWindow::showLessons(bool lessons)
{
    m_sideTabs->setCurrentIndex(lessons ? 1 : 0);
}

void MainWindow::showExperiments(bool experiments)
{
    m_tabs->setCurrentWidget(experiments ? static_cast<QWidget *>(m_experiments)
                                         : static_cast<QWidget *>(m_plotSplitter));
}

void MainWindow::applyConfig(const RunConfig &config)
{
    m_controls->setConfig(config);
}

void MainWindow::onTraceReplaced()
{
    const int lanes = std::max(m_session->maxWorkers(), 1);
    for (LivePlot *plot : m_plots)
        plot->setTrace(m_session->trace(), lanes);
    if (!m_session->trace())
        m_stats->clear();
    m_lessons->setTrace(m_session->trace());
    m_followAction->setChecked(true);
}

void MainWindow::onTick()
{
    // A lane for every worker the run had, also those the autotuner added.
    int lanes = m_session->maxWorkers();
    if (const auto trace = m_session->trace()) {
        for (const int workers : trace->workersByVersion())
            lanes = std::max(lanes, workers);
    }
    m_timelinePlot->setWorkerLanes(lanes);
    for (LivePlot *plot : m_plots)
        plot->refresh();
    followAutotune();
    // Figures at ~4 Hz: enough to read, and summarising is not free.
    if (++m_ticks % 8 == 0 || m_session->finished()) {
        const bool live = m_session->running();
        const RunSummary summary = m_session->summary(live ? kLiveSummaryWindow : 0);
        m_stats->showSummary(summary);
        if (m_session->trace())
            m_session->runs()->setLiveSummary(summary);
        m_lessons->refresh();
        const auto trace = m_session->trace();
        QString status =
            tr("%1 — %2 batches").arg(stateText(m_session->state())).arg(trace ? trace->size() : 0);
        // Step beside wait, always in view: compute-bound or input-bound at a glance.
        if (trace && trace->size() > 0) {
            status += tr(" — step %1 ms, wait %2 ms per batch: %3")
                          .arg(QString::number(summary.computeMeanMs, 'f', 2),
                               QString::number(summary.waitMeanMs, 'f', 2),
                               StatsPanel::bandText(bandForShare(summary.inputBoundShare)));
        }
        status += tr(" — %1").arg(m_session->datasetDescription());
        // A failed run keeps saying why until the next one starts.
        if (m_session->state() == RunState::Failed)
            status += tr(" — %1").arg(m_session->error());
        m_statusLabel->setText(status);
    }
}

void MainWindow::onStateChanged()
{
    m_controls->setRunState(m_session->state());
    updateAutotune();
    if (m_session->state() == RunState::Failed)
        report(tr("The run failed: %1").arg(m_session->error()));
    onTick();
}

void MainWindow::onLoaderSettingsChanged()
{
    m_controls->modelPanel()->clearError();
    if (!m_session->running())
        return;
    if (m_session->runEngine() == RunSession::Engine::PyTorch) {
        report(tr("PyTorch's DataLoader cannot change settings while it runs; they apply at "
                  "the next Start."));
        return;
    }
    const RunConfig config = m_controls->config();
    m_session->requestReconfigure(config.loader, config.consumer);
}

void MainWindow::onDatasetSettingsChanged()
{
    m_controls->clearDatasetError();
    // A new dataset means a new run; if it cannot be opened the current run goes on.
    if (m_session->running())
        startRun();
}

void MainWindow::onDevicesChanged()
{
    // The ranks are fixed for a run: a running one is restarted with the new count.
    if (m_session->running() && startRun())
        report(tr("%n device(s): a new run", nullptr, m_controls->config().devices));
}

void MainWindow::onPauseToggled(bool paused)
{
    if (m_session->runEngine() == RunSession::Engine::PyTorch && m_session->running()) {
        m_controls->setRunState(m_session->state()); // the button back as it was
        report(tr("PyTorch's DataLoader cannot pause; Stop ends the run."));
        return;
    }
    if (paused)
        m_session->pause();
    else
        m_session->resume();
}

QString MainWindow::stateText(RunState state)
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

void MainWindow::report(const QString &message)
{
    statusBar()->showMessage(message, 10'000);
}
