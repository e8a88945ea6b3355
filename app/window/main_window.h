#pragma once

// MainWindow: lays out the side column (engine choice, settings, lessons and What if
// as tabs, stats), the Live plots and the Experiments view as tabs, the run list and
// events docks, the menus (main_window_menus.cpp) and the status line; the work is done by the
// managers it owns, each for one responsibility: RunManager (the run's life), EngineManager (which
// engine, what the machine offers), AutotuneManager, LessonManager and FileManager (configurations,
// exports, opened runs). They talk to the window through signals (report) and to
// each other through the narrow references their constructors take, so the order in
// which they are made is the order their constructors need.

#include "core/config/run_config.h"

#include <QMainWindow>
#include <QPointer>

#include <vector>

class QAction;
class QDockWidget;
class QLabel;
class QTabWidget;

namespace loaderlab {

class Autotuner;

class AutotuneManager;
class ControlPanel;
class EngineChoice;
class EngineManager;
class EventListView;
class ExperimentsView;
class FileManager;
class LessonManager;
class LessonPanel;
class LimitsDialog;
class LivePlot;
class LivePlotArea;
class RunListView;
class RunFollower;
class RunManager;
class RunSession;
class StatsPanel;
class WhatIfPanel;

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    RunSession *session() const { return m_session; }
    ControlPanel *controlPanel() const { return m_controls; }
    const std::vector<LivePlot *> &plots() const;
    ExperimentsView *experimentsView() const { return m_experiments; }
    EngineChoice *engineChoice() const;
    LessonPanel *lessonPanel() const;
    // Brings the Lessons tab (or the settings) to the front of the side panel.
    void showLessons(bool lessons);
    // Brings the What if tab to the front of the side panel.
    void showWhatIf();
    // Run > Limits of this machine: the ceilings and the roofline of the side panel's
    // settings, with the window's runs placed on it (one dialog, raised if open).
    LimitsDialog *showLimits();
    // The autotuner driving the run, or nullptr (Autotune off, or no run going).
    const loaderlab::Autotuner *autotuner() const;
    // Brings the Experiments tab (or the live plots) to the front.
    void showExperiments(bool experiments);

    // Starts a run with the configuration as set (--config's, with its replay if it has
    // one); false (and the error shown) on failure.
    bool startRun();
    void applyConfig(const loaderlab::RunConfig &config);

    // FileManager's: see app/window/file_manager.h.
    bool openRun(const QString &first, const QString &second, QString *error);
    bool followRun(const QString &path, QString *error);
    RunFollower *runFollower() const;
    bool exportTraceCsv(const QString &path, QString *error);
    bool exportSummaryJson(const QString &path, QString *error);
    bool exportChromeTrace(const QString &path, QString *error);
    bool exportPlots(const QString &dir, const QString &format, QString *error);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    QWidget *buildSidePanel();
    void buildRunsDock();
    void buildMenus(); // main_window_menus.cpp
    void syncRunActions();
    void onTraceReplaced();
    void onTick();
    void onRunsChanged();
    void chooseLanguage(const QString &language);
    void showAbout();
    void restoreSettings();
    void saveSettings() const;
    void report(const QString &message);

    // Made in this order by the constructor: each takes what the ones before made.
    RunSession *m_session = nullptr;
    ControlPanel *m_controls = nullptr;
    StatsPanel *m_stats = nullptr;
    LivePlotArea *m_plots = nullptr;
    EngineManager *m_engine = nullptr;
    AutotuneManager *m_autotune = nullptr;
    RunManager *m_runs = nullptr;
    LessonManager *m_lessons = nullptr;
    FileManager *m_files = nullptr;

    QTabWidget *m_tabs = nullptr;
    QTabWidget *m_sideTabs = nullptr;
    WhatIfPanel *m_whatIf = nullptr;
    RunListView *m_runListView = nullptr;
    QDockWidget *m_runsDock = nullptr;
    EventListView *m_events = nullptr;
    QDockWidget *m_eventsDock = nullptr;
    ExperimentsView *m_experiments = nullptr;
    QAction *m_followAction = nullptr;
    QAction *m_pauseAction = nullptr;
    QLabel *m_statusLabel = nullptr;
    QPointer<LimitsDialog> m_limits;
    int m_ticks = 0;
};

} // namespace loaderlab
