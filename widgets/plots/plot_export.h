#pragma once

// exportPlot: saves a QCustomPlot as PNG, SVG or PDF (by the file's suffix), with a
// title line above it that exists in the export only (the plot on screen is left as
// it was). A plot is laid out as on screen, widened and heightened where that would
// make a poor figure (figureLayout), and a PNG drawn finer than that (twice by
// default); SVG and PDF are vector. The file is
// written next to its destination and renamed into place only when complete, so a
// failed export never replaces a good file. exportPlotsWithDialog: the "Export
// plots" dialog of the window and of the Experiments view, a folder chooser with the
// size and title choices below it (remembered in QSettings).

#include <QSize>
#include <QString>

#include <functional>

class QCustomPlot;
class QWidget;

namespace loaderlab {

// The export choices of the dialog. The defaults are what the exports without dialog
// (MainWindow::exportPlots, ExperimentsView::exportPlots) use.
struct PlotExportOptions
{
    // PNG pixels per layout pixel (1, 2, 3): the plot is laid out at figureLayout() of
    // its screen size and drawn `scale` times as fine. Unused by SVG and PDF.
    double scale = 2.0;
    // PNG only: when > 0, the image is this many pixels wide (its height in proportion),
    // instead of `scale`.
    int pixelWidth = 0;
    // Draw the title line (what the plot shows, the run's settings, the date) above it.
    bool titleLine = true;

    // The choices last made in the dialog (QSettings "export/..."), else the defaults.
    static PlotExportOptions stored();
    void store() const;
};

// The size a plot of `screen` size is laid out at for a file: at least 520 px wide, and
// between 0.45 and 0.8 of its width tall (the narrow wait pattern, the timeline's
// strip); a plot already so is laid out as it is on screen.
QSize figureLayout(QSize screen);

// Writes `plot` to `path` (.png, .svg or .pdf). `title`: the title line, drawn above
// the plot when options.titleLine is set; its first line bold, each line wrapped to the
// plot's width. `layoutSize`: the size the plot is laid out at; empty =
// figureLayout(the widget's size).
// On failure returns false and sets `error` (if given) to "cannot write <path>: <reason>".
bool exportPlot(QCustomPlot *plot, const QString &path, const PlotExportOptions &options,
                const QString &title, QSize layoutSize, QString *error);
// The plot alone at width x height pixels (0 = the widget's size), without title.
bool exportPlot(QCustomPlot *plot, const QString &path, int width, int height, QString *error);

// Writes every plot of a view into `dir` as `format` ("png", "svg", "pdf") with the
// choices made in the dialog.
using PlotsExporterWithOptions = std::function<bool(
    const QString &dir, const QString &format, const PlotExportOptions &options, QString *error)>;

// Asks for a folder (starting in `startDir`) and the size and title choices, and
// writes the plots there as PNG, SVG and PDF; the first failure is shown in a message
// box and stops the export. Returns the line to report ("Wrote the plots as PNG, SVG
// and PDF to DIR"), or "" when the dialog was cancelled or the export failed.
QString exportPlotsWithDialog(QWidget *parent, const QString &startDir,
                              const PlotsExporterWithOptions &exportPlots);

} // namespace loaderlab
