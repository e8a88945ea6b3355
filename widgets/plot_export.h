#pragma once

// exportPlot: saves a QCustomPlot as PNG, SVG or PDF (by the file's suffix). The file
// is written next to its destination and renamed into place only when complete, so
// a failed export never replaces a good file.

#include <QString>

class QCustomPlot;

// width/height 0 = the widget's current size. On failure returns false and sets
// `error` (if given) to "cannot write <path>: <reason>".
bool exportPlot(QCustomPlot *plot, const QString &path, int width, int height, QString *error);
