#pragma once

// MainWindow: hosts the control panel, the stats panel and two tabs: the live plots,
// wired to a RunSession, and the Experiments view (sweeps over the panel's config).
// Menus for configs, runs (open, keep, compare), exports and language.

#include "core/config/run_config.h"
#include "core/run/run_controller.h"

#include <QMainWindow>
#include <QTimer>

#include <memory>
#include <thread>
#include <vector>

namespace loaderlab {
class Autotuner;
}

class ControlPanel;
class QDockWidget;
class EngineChoice;
class RunListView;
class LessonPanel;
class ExperimentsView;
class LivePlot;
class RunSession;
class StatsPanel;
class ThroughputPlot;
class WaitHistogramPlot;
class WaitTimePlot;
class WorkerTimelinePlot;
class QAction;
class QLabel;
class QSplitter;
class QTabWidget;

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    RunSession *session() const { return m_session; }
    ControlPanel *controlPanel() const { return m_controls; }
    const std::vector<LivePlot *> &plots() const { return m_plots; }
    ExperimentsView *experimentsView() const { return m_experiments; }
    RunListView *runListView() const { return m_runListView; }
    EngineChoice *engineChoice() const { return m_engineChoice; }
    LessonPanel *lessonPanel() const { return m_lessons; }
    // Brings the Lessons tab (or the settings) to the front of the side panel.
    void showLessons(bool lessons);
    // The autotuner driving the run, or nullptr (Autotune off, or no run going).
    const loaderlab::Autotuner *autotuner() const { return m_autotuner.get(); }
    // Brings the Experiments tab (or the live plots) to the front.
    void showExperiments(bool experiments);

    // Starts a run with the panel's settings; false (and the error shown) on failure.
    bool startRun();
    void applyConfig(const loaderlab::RunConfig &config);

    // Adds a run written by `loaderlab run --csv F --json G` to the run list: the CSV
    // and the JSON in either order, or one of them with the other beside it (same
    // base name). False with the reason (naming the file) and nothing changed.
    bool openRun(const QString &first, const QString &second, QString *error);

    bool exportTraceCsv(const QString &path, QString *error);
    bool exportSummaryJson(const QString &path, QString *error);
    // The run as a Chrome JSON trace for Perfetto (as `loaderlab run --trace-json`);
    // false with the error, which names the file and the reason.
    bool exportChromeTrace(const QString &path, QString *error);
    // Writes every plot as <dir>/<plot>.<format>; false with the first error.
    bool exportPlots(const QString &dir, const QString &format, QString *error);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildPlots();
    void buildMenus();
    QWidget *buildLessonPanel();
    void startLesson(const loaderlab::RunConfig &config);
    void applyLessonStep(const loaderlab::RunConfig &target);
    void applyLessonConfig(loaderlab::RunConfig config, bool datasetChanged);
    // Starts or stops the autotuner as the Autotune box and the run's state say.
    void updateAutotune();
    void stopAutotune();
    void followAutotune();
    void onTraceReplaced();
    void onTick();
    void onStateChanged();
    void onLoaderSettingsChanged();
    void onDatasetSettingsChanged();
    void onDevicesChanged();
    void onPauseToggled(bool paused);
    // main_window_runs.cpp
    void buildRunViews();
    void onRunsChanged();
    void openRunDialog();
    void keepRun();
    void openConfig();
    void saveConfig();
    void exportTraceDialog();
    void exportSummaryDialog();
    void exportChromeTraceDialog();
    void exportPlotsDialog();
    void chooseLanguage(const QString &language);
    void showAbout();
    void restoreSettings();
    void saveSettings() const;
    void report(const QString &message);
    static QString stateText(loaderlab::RunState state);

    RunSession *m_session = nullptr;
    ControlPanel *m_controls = nullptr;
    StatsPanel *m_stats = nullptr;
    WaitTimePlot *m_waitPlot = nullptr;
    ThroughputPlot *m_throughputPlot = nullptr;
    WorkerTimelinePlot *m_timelinePlot = nullptr;
    WaitHistogramPlot *m_histogramPlot = nullptr;
    std::vector<LivePlot *> m_plots;
    QSplitter *m_plotSplitter = nullptr;
    QTabWidget *m_tabs = nullptr;
    RunListView *m_runListView = nullptr;
    QDockWidget *m_runsDock = nullptr;
    EngineChoice *m_engineChoice = nullptr;
    ExperimentsView *m_experiments = nullptr;
    QAction *m_followAction = nullptr;
    QLabel *m_statusLabel = nullptr;
    LessonPanel *m_lessons = nullptr;
    QTabWidget *m_sideTabs = nullptr;
    std::unique_ptr<loaderlab::Autotuner> m_autotuner;
    bool m_autotuneBatch = false;  // the running autotuner's option
    std::jthread m_lessonPreparer; // makes a lesson's tensor file
    int m_ticks = 0;
};
