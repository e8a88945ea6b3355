#pragma once

// SweepHeatmap: one figure of a sweep (throughput, end-to-end time, ...) over two of
// its axes as a colour map, with a colour scale, the axis values as tick labels, each
// cell's value written on it, and the best cell framed. A cell with no finished run
// (not run yet, or failed) is NaN and drawn in the light grey of "no data", labelled
// as such (labels are left out when the cells are too small for them). With more than two axes, a
// cell shows the best value over the other axes (the cell that has it is the one a click opens).
// The colours run from dark (worst) to bright (best) whichever way the figure is better.
//
// plotPrediction shows the loader model's prediction beside the measurement instead
// (core/predict/sweep_prediction_error.h): each cell coloured by the error of the predicted
// figure, (predicted - measured) / measured, in diverging colours (blue: predicted too
// low, white: exact, red: too high); a cell not measured shows the prediction alone on
// the grey of "no data", and the cell the model was calibrated from is framed in black.
//
// A figure is named as core's figure table names it (core/sweep/sweep_figures.h), which
// gives its label, direction and decimals; an unknown name is refused (std::invalid_argument)
// before anything is drawn.

#include "core/predict/sweep_prediction_error.h"
#include "core/sweep/sweep_analysis.h"

#include "widgets/plots/qcustomplot_include.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace loaderlab {

class SweepHeatmap : public QCustomPlot
{
    Q_OBJECT

public:
    explicit SweepHeatmap(QWidget *parent = nullptr);

    // `xAxis`/`yAxis`: indices into definition.axes; yAxis -1 (or equal to xAxis) for a
    // single row. `skipped`: grid cells `sweep --predict-first` did not run (labelled so).
    void plotSweep(const loaderlab::SweepDefinition &definition,
                   const loaderlab::SweepAnalysis &analysis, int xAxis, int yAxis,
                   const std::string &figure, const std::vector<std::int64_t> &skipped = {});

    // `prediction` over the same sweep: the error of `figure` per cell, in percent.
    void plotPrediction(const loaderlab::SweepDefinition &definition,
                        const loaderlab::SweepPrediction &prediction, int xAxis, int yAxis,
                        const std::string &figure);

    // Map cell (x index, y index) of the best value; empty when no cell has one.
    std::optional<std::pair<int, int>> bestCell() const { return m_bestCell; }
    // The shown value of map cell (x, y): NaN when it has none (in prediction mode the
    // error in percent; NaN for a cell not both measured and predicted).
    double value(int x, int y) const;
    // The grid cell a map cell shows; -1 when none.
    std::int64_t gridAt(int x, int y) const;

Q_SIGNALS:
    void cellClicked(std::int64_t grid);

protected:
    void mousePressEvent(QMouseEvent *event) override;

private:
    // Sets the map's size, ticks and axis titles for the axes chosen; false (and the
    // map emptied) when `xIndex` is no axis. `yIndex` becomes -1 for a single row.
    bool layOutAxes(const loaderlab::SweepDefinition &definition, int xIndex, int &yIndex);
    // Map cell (x, y) of grid cell values `values`; false when it is not on the map.
    bool mapCellOf(const loaderlab::SweepDefinition &definition,
                   const std::vector<nlohmann::json> &values, int xIndex, int yIndex, int &x,
                   int &y) const;
    // m_values into the colour map, coloured over `range`.
    void fillMap(const QCPColorGradient &gradient, const QCPRange &range);
    // A text on each cell (when there are few enough), `text(x, y, colour)` giving it
    // and its colour; `bold` cells in bold.
    void addLabels(const std::function<QString(int x, int y, QColor &colour)> &text,
                   const std::function<bool(int x, int y)> &bold);
    void clearLabels();
    // Values are written on the cells only where they fit.
    void fitLabels();

    QCPColorMap *m_map = nullptr;
    QCPColorScale *m_scale = nullptr;
    QCPItemRect *m_best = nullptr;
    QCPItemRect *m_calibrated = nullptr; // prediction mode: the cell calibrated from
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
