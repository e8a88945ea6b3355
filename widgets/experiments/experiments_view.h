#pragma once

// ExperimentsView: the window's second tab, sweeps as `loaderlab sweep` runs them but
// watched as they go. Left: the axes and their values (SweepAxesEditor), the results
// folder, Start / Stop / Resume, the progress, and the max batch finder. Right: the
// recommendation, the table of cells (SweepCellsModel), a heatmap of one figure over two
// axes (SweepHeatmap), the line plots of the research notes (SweepLinePlots) and the
// batches of the cell clicked in the table or the heatmap (SweepCellDetail).
//
// "Predicted" puts the loader model beside the measurement (core/predict/
// sweep_prediction.h): calibrated from one measured cell (the first by default, any
// other by choice), it predicts every cell; the heatmap then shows the error of each
// measured cell's prediction and the prediction alone where nothing was measured, and
// the table gains the predicted samples/s and the error. The model runs on a thread of
// its own (BackgroundTask); a cell that ends later only updates the measured side.
//
// The base config of a sweep is the side panel's (setConfigSource); the cells run on
// SweepWorker's thread and each ended cell comes back as a queued signal, so the view
// refreshes once per cell and the window never waits. Resume opens a results folder,
// shows its sweep and runs the cells it lacks.

#include "core/config/run_config.h"
#include "core/sweep/sweep_runner.h"

#include <QWidget>

#include <functional>

class QComboBox;
class QCustomPlot;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTabWidget;
class QTableView;
class QToolButton;

namespace loaderlab {

class BackgroundTask;
class MaxBatchPanel;
struct PlotExportOptions;
class SweepAxesEditor;
class SweepCellDetail;
class SweepCellsModel;
class SweepHeatmap;
class SweepLinePlots;
class SweepWorker;

class ExperimentsView : public QWidget
{
    Q_OBJECT

public:
    explicit ExperimentsView(QWidget *parent = nullptr);
    ~ExperimentsView() override; // stops a running sweep and joins its thread

    void setConfigSource(std::function<loaderlab::RunConfig()> source);

    // Runs the editor's sweep over the side panel's config into the folder typed (or a
    // new one under the app's data location). A folder holding another sweep is refused
    // with the reason; one holding this sweep is resumed. False with the reason.
    bool start(QString *error = nullptr);
    // Opens `dir`, shows its sweep and records, and runs the cells it lacks.
    bool resume(const QString &dir, QString *error = nullptr);
    // Asks the running cell to stop (it is not recorded); finished() follows.
    void stop();
    bool running() const;

    void setResultsFolder(const QString &dir);
    // The folder of the sweep shown (running or last run); empty before the first.
    QString resultsDir() const { return m_dir; }
    // A default folder: <app data>/sweeps/sweep-<date>-<time>.
    static QString defaultResultsDir();

    // Shows the batches of grid cell `grid` (in front); false with the reason when it has
    // no trace.
    bool showCell(std::int64_t grid, QString *error = nullptr);
    // Every plot as <dir>/<name>.<format> (png, svg or pdf), each written atomically
    // with a title line (the sweep and its base settings, or the cell's). Without
    // options: PNGs at twice the screen size (PlotExportOptions' defaults).
    bool exportPlots(const QString &dir, const QString &format, QString *error = nullptr);
    bool exportPlots(const QString &dir, const QString &format,
                     const loaderlab::PlotExportOptions &options, QString *error = nullptr);
    bool exportTableCsv(const QString &path, QString *error = nullptr);

    QString errorText() const;
    // Heatmap choices: the figure by name, the axes by index into the sweep's axes.
    void setHeatmap(const std::string &figure, int xAxis, int yAxis);

protected:
    void showEvent(QShowEvent *event) override;

Q_SIGNALS:
    // The sweep's thread has ended (every cell run, stopped, or failed).
    void finished(const loaderlab::SweepOutcome &outcome);

private:
    QWidget *buildSetup();
    QWidget *buildResults();
    // The Predicted toggle (into `toggleRow`) and the row under it
    // (experiments_view_prediction.cpp).
    QWidget *buildPrediction(QHBoxLayout *toggleRow);
    void onPredictedToggled(bool on);
    void forgetPrediction();
    void onRecordsChanged();
    void fillCalibrationCells();
    void requestPrediction();
    void showPredictionSummary();
    bool predictedShown() const;
    bool run(const loaderlab::SweepDefinition &definition, const QString &dir, QString *error);
    bool loadCell(std::int64_t grid, bool toFront, QString *error);
    void fillAxisCombos();
    void refreshResults();
    void refreshHeatmap();
    void onCellStarted(std::int64_t order, int done, int total, double eta);
    void onCellEnded(const loaderlab::SweepRecord &record, int done, int total, double eta);
    void onFinished(const loaderlab::SweepOutcome &outcome, const QString &error);
    void updateButtons();
    void showError(const QString &message);
    void browseFolder();
    void resumeDialog();
    void exportPlotsDialog();
    void exportTableDialog();
    std::vector<QCustomPlot *> plots() const;
    // The title lines of the exports: the sweep's (its axes, base settings, date), and
    // the shown cell's (its values and settings, date).
    QString sweepTitle() const;
    QString cellTitle() const;

    std::function<loaderlab::RunConfig()> m_source;
    SweepWorker *m_worker = nullptr;
    SweepCellsModel *m_model = nullptr;
    QString m_dir;
    bool m_stopping = false;
    bool m_cellShown = false;
    QString m_cellLabel; // "Workers 2, Batch size 32": the cell last asked for, and its
    loaderlab::RunConfig m_cellConfig; // settings, for the exports' title line

    SweepAxesEditor *m_editor = nullptr;
    QLineEdit *m_folderEdit = nullptr;
    QPushButton *m_startButton = nullptr;
    QPushButton *m_stopButton = nullptr;
    QPushButton *m_resumeButton = nullptr;
    QProgressBar *m_progressBar = nullptr;
    QLabel *m_progressLabel = nullptr;
    QLabel *m_errorLabel = nullptr;
    MaxBatchPanel *m_maxBatch = nullptr;

    QLabel *m_recommendation = nullptr;
    QComboBox *m_figureCombo = nullptr;
    QComboBox *m_xCombo = nullptr;
    QComboBox *m_yCombo = nullptr;
    QTableView *m_table = nullptr;
    SweepHeatmap *m_heatmap = nullptr;
    SweepLinePlots *m_lines = nullptr;
    SweepCellDetail *m_detail = nullptr;
    QTabWidget *m_lowerTabs = nullptr;
    QSplitter *m_upperSplit = nullptr;
    bool m_splitSized = false;

    QToolButton *m_predictedToggle = nullptr;
    QWidget *m_predictionRow = nullptr;
    QComboBox *m_calibrationCell = nullptr;
    QLabel *m_predictionSummary = nullptr;
    BackgroundTask *m_predictTask = nullptr;
    bool m_predictPending = false;
};

} // namespace loaderlab
