#pragma once

// exportPlot: saves a QCustomPlot as PNG, SVG or PDF (by the file's suffix). The file
// is written next to its destination and renamed into place only when complete, so
// a failed export never replaces a good file. exportPlotsWithDialog: the "Export
// plots" dialog of the window and of the Experiments view.

#include <QString>

#include <functional>

class QCustomPlot;
class QWidget;

namespace loaderlab {

// width/height 0 = the widget's current size. On failure returns false and sets
// `error` (if given) to "cannot write <path>: <reason>".
bool exportPlot(QCustomPlot *plot, const QString &path, int width, int height, QString *error);

// Writes every plot of a view into `dir` as `format` ("png", "svg", "pdf").
using PlotsExporter =
    std::function<bool(const QString &dir, const QString &format, QString *error)>;

// Asks for a folder (starting in `startDir`) and writes the plots there as PNG, SVG
// and PDF; the first failure is shown in a message box and stops the export.
// Returns the line to report ("Wrote the plots as PNG, SVG and PDF to DIR"), or ""
// when the dialog was cancelled or the export failed.
QString exportPlotsWithDialog(QWidget *parent, const QString &startDir,
                              const PlotsExporter &exportPlots);

} // namespace loaderlab
