#pragma once

// MainWindow: hosts the control panel, the stats panel and two tabs: the live plots,
// wired to a RunSession, and the Experiments view (sweeps over the panel's config).
// Menus for configs, exports, comparison and language.

#include "core/run/run_config.h"
#include "core/run/run_controller.h"

#include <QMainWindow>
#include <QTimer>

#include <vector>

class ControlPanel;
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
    // Brings the Experiments tab (or the live plots) to the front.
    void showExperiments(bool experiments);

    // Starts a run with the panel's settings; false (and the error shown) on failure.
    bool startRun();
    void applyConfig(const loaderlab::RunConfig &config);

    bool exportTraceCsv(const QString &path, QString *error);
    bool exportSummaryJson(const QString &path, QString *error);
    // Writes every plot as <dir>/<plot>.<format>; false with the first error.
    bool exportPlots(const QString &dir, const QString &format, QString *error);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildPlots();
    void buildMenus();
    void onTraceReplaced();
    void onTick();
    void onStateChanged();
    void onLoaderSettingsChanged();
    void onDatasetSettingsChanged();
    void onPauseToggled(bool paused);
    void onReferenceChanged();
    void openConfig();
    void saveConfig();
    void exportTraceDialog();
    void exportSummaryDialog();
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
    ExperimentsView *m_experiments = nullptr;
    QAction *m_followAction = nullptr;
    QLabel *m_statusLabel = nullptr;
    int m_ticks = 0;
};
