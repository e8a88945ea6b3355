#pragma once

// SweepHeatmap: one figure of a sweep (throughput, end-to-end time, ...) over two of
// its axes as a colour map, with a colour scale, the axis values as tick labels, each
// cell's value written on it, and the best cell framed. A cell with no finished run
// (not run yet, or failed) is NaN and drawn in the light grey of "no data", labelled
// as such (labels are left out when the cells are too small for them). With more than two axes, a
// cell shows the best value over the other axes (the cell that has it is the one a click opens).
// The colours run from dark (worst) to bright (best) whichever way the figure is better.

#include "core/sweep/sweep_analysis.h"

#include "widgets/qcustomplot_include.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace loaderlab {

class SweepHeatmap : public QCustomPlot
{
    Q_OBJECT

public:
    // The figures it can show: the names SweepCellStats::figure() takes.
    static const std::vector<std::string> &figures();
    static QString figureLabel(const std::string &figure);
    static bool higherIsBetter(const std::string &figure);

    explicit SweepHeatmap(QWidget *parent = nullptr);

    // `xAxis`/`yAxis`: indices into definition.axes; yAxis -1 (or equal to xAxis) for a
    // single row.
    void plotSweep(const loaderlab::SweepDefinition &definition,
                   const loaderlab::SweepAnalysis &analysis, int xAxis, int yAxis,
                   const std::string &figure);

    // Map cell (x index, y index) of the best value; empty when no cell has one.
    std::optional<std::pair<int, int>> bestCell() const { return m_bestCell; }
    // The shown value of map cell (x, y): NaN when it has none.
    double value(int x, int y) const;
    // The grid cell a map cell shows; -1 when none.
    std::int64_t gridAt(int x, int y) const;

Q_SIGNALS:
    void cellClicked(std::int64_t grid);

protected:
    void mousePressEvent(QMouseEvent *event) override;

private:
    void clearLabels();
    // Values are written on the cells only where they fit.
    void fitLabels();

    QCPColorMap *m_map = nullptr;
    QCPColorScale *m_scale = nullptr;
    QCPItemRect *m_best = nullptr;
    QSharedPointer<QCPAxisTickerText> m_xTicker;
    QSharedPointer<QCPAxisTickerText> m_yTicker;
    std::vector<QCPItemText *> m_labels;
    int m_columns = 0;
    int m_rows = 0;
    std::vector<double> m_values;      // m_columns x m_rows, x fastest
    std::vector<std::int64_t> m_grids; // the grid cell shown, -1 for none
    std::optional<std::pair<int, int>> m_bestCell;
};

} // namespace loaderlab
