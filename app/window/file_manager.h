#pragma once

// FileManager: the window's files. Configurations opened and saved, the run exported
// (per-batch CSV, summary JSON, Chrome trace for Perfetto, the plots as images), and
// runs written by `loaderlab run` opened for comparison. The dialogs open over the
// window; the exports without dialog are for scripts and tests.

#include <QObject>
#include <QString>

class QWidget;

namespace loaderlab {

class ControlPanel;
class LivePlotArea;
struct PlotExportOptions;
class RunFollower;
class RunSession;

class FileManager : public QObject
{
    Q_OBJECT

public:
    FileManager(QWidget *window, RunSession *session, ControlPanel *controls, LivePlotArea *plots);

    // Adds a run written by `loaderlab run --csv F --json G` to the run list: the CSV
    // and the JSON in either order, or one of them with the other beside it (same
    // base name). False with the reason (naming the file) and nothing changed.
    bool openRun(const QString &first, const QString &second, QString *error);
    // Follows a run while it is written (app/window/run_follower.h): its CSV or JSON, or any
    // rank's of a torch.distributed set. False with the reason, nothing changed.
    bool followRun(const QString &path, QString *error);
    RunFollower *follower() const { return m_follower; }

    // The live run's per-batch CSV; with `runId`, that shown run's (kept, opened or
    // followed; widgets/session/run_list.h), times from its own start as every trace.
    bool exportTraceCsv(const QString &path, QString *error);
    bool exportTraceCsv(const QString &path, int runId, QString *error);
    // The figures table of the ticked runs (RunListView::figuresCsv), atomically.
    bool exportFiguresCsv(const QString &path, QString *error);
    // The one-file HTML report (core/io/html_report.h) of the shown runs, the live one
    // first, as `loaderlab report` writes it, or that report as a PDF when `path` ends
    // in .pdf (app/window/report_pdf.h); false with the error naming the file.
    bool exportReport(const QString &path, QString *error);
    bool exportSummaryJson(const QString &path, QString *error);
    // The run as a Chrome JSON trace for Perfetto (as `loaderlab run --trace-json`);
    // false with the error, which names the file and the reason.
    bool exportChromeTrace(const QString &path, QString *error);
    // Writes every plot as <dir>/<plot>.<format>, each with a title line naming the run
    // shown, its settings and the date; false with the first error. Without options:
    // PNGs at twice the screen size (PlotExportOptions' defaults).
    bool exportPlots(const QString &dir, const QString &format, QString *error);
    bool exportPlots(const QString &dir, const QString &format,
                     const loaderlab::PlotExportOptions &options, QString *error);

    void openConfig();
    void saveConfig();
    void openRunDialog();
    void followRunDialog();
    // Asks which run when more than one is shown.
    void exportTraceDialog();
    void exportFiguresDialog();
    void exportReportDialog();
    void exportSummaryDialog();
    void exportChromeTraceDialog();
    void exportPlotsDialog();

Q_SIGNALS:
    void report(const QString &message);
    // A run was opened: the window shows the live plots, where it is drawn.
    void runOpened();

private:
    // The plots' title below each plot's name: the runs drawn, the first one's dataset
    // and settings, the date.
    QString plotsTitle() const;

    QWidget *m_window;
    RunSession *m_session;
    ControlPanel *m_controls;
    LivePlotArea *m_plots;
    RunFollower *m_follower;
};

} // namespace loaderlab
