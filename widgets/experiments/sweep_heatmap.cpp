#include "widgets/experiments/sweep_heatmap.h"

#include "core/config/config_fields.h"
#include "widgets/common/marker_text.h"
#include "widgets/experiments/sweep_text.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace loaderlab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Above this many cells the values are not written on them (they would not fit).
constexpr int kMaxLabelledCells = 144;
const QColor kNoData(225, 225, 225);
const QColor kBestFrame(204, 0, 0);

int indexOf(const SweepAxis &axis, const nlohmann::json &value)
{
    const auto it = std::find(axis.values.begin(), axis.values.end(), value);
    return it == axis.values.end() ? -1 : static_cast<int>(it - axis.values.begin());
}

QString axisTitle(const std::string &key)
{
    const ConfigField *field = findConfigField(key);
    return field ? markertext::fieldLabel(*field) : QString::fromStdString(key);
}

// A value on its cell, where room is short.
QString figureText(const SweepFigure &figure, double value)
{
    return sweeptext::figureValue(figure, value, figure.decimals.map);
}

// The map's data for `n` cells along one axis. One cell would have no width (QCPColorMap
// spans cells between the first and last centre), so a single one is stored twice.
int dataSize(int n)
{
    return std::max(n, 2);
}

QCPRange dataRange(int n)
{
    return n > 1 ? QCPRange(0, n - 1) : QCPRange(-0.5, 0.5);
}

} // namespace

SweepHeatmap::SweepHeatmap(QWidget *parent)
    : QCustomPlot(parent)
{
    m_map = new QCPColorMap(xAxis, yAxis);
    m_map->setObjectName(QStringLiteral("heatmapColorMap"));
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false);
    m_scale = new QCPColorScale(this);
    plotLayout()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_map->setColorScale(m_scale);
    auto *margins = new QCPMarginGroup(this);
    axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);

    m_xTicker.reset(new QCPAxisTickerText);
    m_yTicker.reset(new QCPAxisTickerText);
    xAxis->setTicker(m_xTicker);
    yAxis->setTicker(m_yTicker);
    for (QCPAxis *axis : {xAxis, yAxis}) {
        axis->setSubTicks(false);
        axis->setTickLength(0, 4);
        axis->grid()->setVisible(false);
    }
    m_best = new QCPItemRect(this);
    m_best->setObjectName(QStringLiteral("heatmapBestMarker"));
    m_best->setPen(QPen(kBestFrame, 3));
    m_best->setBrush(Qt::NoBrush);
    m_best->setVisible(false);
    m_best->setClipToAxisRect(true);
    m_calibrated = new QCPItemRect(this);
    m_calibrated->setObjectName(QStringLiteral("heatmapCalibrationMarker"));
    m_calibrated->setPen(QPen(Qt::black, 2, Qt::DashLine));
    m_calibrated->setBrush(Qt::NoBrush);
    m_calibrated->setVisible(false);
    m_calibrated->setClipToAxisRect(true);
    // After the layout, so the cells' size in pixels is that of this replot or export.
    connect(this, &QCustomPlot::afterLayout, this, &SweepHeatmap::fitLabels);
}

void SweepHeatmap::fitLabels()
{
    if (m_labels.empty() || m_columns == 0)
        return;
    const double cellWidth = axisRect()->width() / static_cast<double>(m_columns);
    const double cellHeight = axisRect()->height() / static_cast<double>(m_rows);
    int widest = 0;
    for (const QCPItemText *label : m_labels)
        widest = std::max(widest, QFontMetrics(label->font()).horizontalAdvance(label->text()));
    const bool fits = widest + 4 <= cellWidth
                      && QFontMetrics(m_labels.front()->font()).height() <= cellHeight;
    for (QCPItemText *label : m_labels)
        label->setVisible(fits);
}

void SweepHeatmap::clearLabels()
{
    for (QCPItemText *label : m_labels)
        removeItem(label);
    m_labels.clear();
}

double SweepHeatmap::value(int x, int y) const
{
    if (x < 0 || y < 0 || x >= m_columns || y >= m_rows)
        return kNaN;
    return m_values[static_cast<std::size_t>(y * m_columns + x)];
}

std::int64_t SweepHeatmap::gridAt(int x, int y) const
{
    if (x < 0 || y < 0 || x >= m_columns || y >= m_rows)
        return -1;
    return m_grids[static_cast<std::size_t>(y * m_columns + x)];
}

bool SweepHeatmap::layOutAxes(const SweepDefinition &definition, int xIndex, int &yIndex)
{
    clearLabels();
    m_bestCell.reset();
    m_best->setVisible(false);
    m_calibrated->setVisible(false);
    const auto &axes = definition.axes;
    if (xIndex < 0 || xIndex >= static_cast<int>(axes.size())) {
        m_columns = m_rows = 0;
        m_values.clear();
        m_grids.clear();
        m_map->data()->clear();
        replot(rpQueuedReplot);
        return false;
    }
    if (yIndex == xIndex || yIndex >= static_cast<int>(axes.size()))
        yIndex = -1;
    const SweepAxis &ax = axes[static_cast<std::size_t>(xIndex)];
    m_columns = static_cast<int>(ax.values.size());
    m_rows = yIndex < 0 ? 1
                        : static_cast<int>(axes[static_cast<std::size_t>(yIndex)].values.size());
    m_values.assign(static_cast<std::size_t>(m_columns * m_rows), kNaN);
    m_grids.assign(m_values.size(), -1);

    m_xTicker->clear();
    for (int x = 0; x < m_columns; ++x)
        m_xTicker->addTick(x, sweeptext::axisValue(ax.key, ax.values[static_cast<std::size_t>(x)]));
    xAxis->setLabel(axisTitle(ax.key));
    m_yTicker->clear();
    yAxis->setTicks(yIndex >= 0);
    if (yIndex < 0) {
        m_yTicker->addTick(0, QString());
        yAxis->setLabel(QString());
    } else {
        const SweepAxis &ay = axes[static_cast<std::size_t>(yIndex)];
        for (int y = 0; y < m_rows; ++y)
            m_yTicker->addTick(
                y, sweeptext::axisValue(ay.key, ay.values[static_cast<std::size_t>(y)]));
        yAxis->setLabel(axisTitle(ay.key));
    }
    xAxis->setRange(-0.5, m_columns - 0.5);
    yAxis->setRange(-0.5, m_rows - 0.5);
    return true;
}

bool SweepHeatmap::mapCellOf(const SweepDefinition &definition,
                             const std::vector<nlohmann::json> &values, int xIndex, int yIndex,
                             int &x, int &y) const
{
    const auto &axes = definition.axes;
    x = indexOf(axes[static_cast<std::size_t>(xIndex)], values[static_cast<std::size_t>(xIndex)]);
    y = yIndex < 0 ? 0
                   : indexOf(axes[static_cast<std::size_t>(yIndex)],
                             values[static_cast<std::size_t>(yIndex)]);
    return x >= 0 && y >= 0;
}

void SweepHeatmap::fillMap(const QCPColorGradient &gradient, const QCPRange &range)
{
    QCPColorMapData *data = m_map->data();
    data->setSize(dataSize(m_columns), dataSize(m_rows));
    data->setRange(dataRange(m_columns), dataRange(m_rows));
    for (int y = 0; y < dataSize(m_rows); ++y) {
        for (int x = 0; x < dataSize(m_columns); ++x)
            data->setCell(x, y, value(std::min(x, m_columns - 1), std::min(y, m_rows - 1)));
    }
    QCPColorGradient g = gradient;
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(kNoData);
    m_map->setGradient(g);
    m_map->setDataRange(range);
}

void SweepHeatmap::addLabels(const std::function<QString(int x, int y, QColor &colour)> &text,
                             const std::function<bool(int x, int y)> &bold)
{
    if (m_columns * m_rows > kMaxLabelledCells)
        return;
    for (int y = 0; y < m_rows; ++y) {
        for (int x = 0; x < m_columns; ++x) {
            auto *label = new QCPItemText(this);
            label->position->setCoords(x, y);
            label->setPositionAlignment(Qt::AlignCenter);
            label->setClipToAxisRect(true);
            QFont font = this->font();
            font.setPointSizeF(font.pointSizeF() * 0.9);
            font.setBold(bold(x, y));
            QColor colour(110, 110, 110);
            label->setText(text(x, y, colour));
            label->setColor(colour);
            label->setFont(font);
            m_labels.push_back(label);
        }
    }
}

void SweepHeatmap::plotSweep(const SweepDefinition &definition, const SweepAnalysis &analysis,
                             int xIndex, int yIndex, const std::string &figureName,
                             const std::vector<std::int64_t> &skipped)
{
    const SweepFigure &figure = sweepFigure(figureName);
    if (!layOutAxes(definition, xIndex, yIndex))
        return;
    std::vector<bool> failed(m_values.size(), false);
    std::vector<bool> notRun(m_values.size(), false); // skipped by sweep --predict-first
    for (const std::int64_t grid : skipped) {
        int x = 0, y = 0;
        if (mapCellOf(definition, sweepGridValues(definition, grid), xIndex, yIndex, x, y))
            notRun[static_cast<std::size_t>(y * m_columns + x)] = true;
    }
    const bool higher = figure.higherIsBetter;

    for (const SweepCellStats &c : analysis.cells) {
        int x = 0, y = 0;
        if (!mapCellOf(definition, c.values, xIndex, yIndex, x, y))
            continue;
        const auto i = static_cast<std::size_t>(y * m_columns + x);
        if (c.runs == 0) {
            failed[i] = true;
            if (m_grids[i] < 0)
                m_grids[i] = c.grid; // a click shows why it failed
            continue;
        }
        const double v = c.figure(figure.id);
        const double old = m_values[i];
        if (std::isnan(old) || (higher ? v > old : v < old)) {
            m_values[i] = v;
            m_grids[i] = c.grid;
        }
    }

    double low = std::numeric_limits<double>::infinity();
    double high = -low;
    for (int y = 0; y < m_rows; ++y) {
        for (int x = 0; x < m_columns; ++x) {
            const double v = value(x, y);
            if (std::isnan(v))
                continue;
            low = std::min(low, v);
            high = std::max(high, v);
            if (!m_bestCell
                || (higher ? v > value(m_bestCell->first, m_bestCell->second)
                           : v < value(m_bestCell->first, m_bestCell->second)))
                m_bestCell = std::make_pair(x, y);
        }
    }
    if (!(low <= high)) {
        low = 0.0;
        high = 1.0;
    } else if (low == high) {
        const double pad = low == 0.0 ? 1.0 : std::abs(low) * 0.01;
        low -= pad;
        high += pad;
    }
    // Viridis (QCustomPlot has no preset for it): even steps in lightness, readable in
    // grey and with the common colour-vision deficiencies.
    QCPColorGradient gradient;
    gradient.setColorStops({{0.0, QColor(68, 1, 84)},
                            {0.25, QColor(59, 82, 139)},
                            {0.5, QColor(33, 145, 140)},
                            {0.75, QColor(94, 201, 98)},
                            {1.0, QColor(253, 231, 37)}});
    const QCPRange range(low, high);
    fillMap(higher ? gradient : gradient.inverted(), range);
    m_scale->axis()->setLabel(sweeptext::figureLabel(figure));

    addLabels(
        [&](int x, int y, QColor &colour) {
            const double v = value(x, y);
            const auto i = static_cast<std::size_t>(y * m_columns + x);
            if (std::isnan(v))
                return failed[i] ? tr("failed") : notRun[i] ? tr("skipped") : tr("not run");
            colour = qGray(m_map->gradient().color(v, range)) > 128 ? Qt::black : Qt::white;
            return figureText(figure, v);
        },
        [&](int x, int y) {
            return !std::isnan(value(x, y)) && m_bestCell == std::make_pair(x, y);
        });
    if (m_bestCell) {
        const auto [bx, by] = *m_bestCell;
        // Inset a little so the frame stays inside its cell.
        m_best->topLeft->setCoords(bx - 0.47, by + 0.47);
        m_best->bottomRight->setCoords(bx + 0.47, by - 0.47);
        m_best->setVisible(true);
    }
    replot(rpQueuedReplot);
}

void SweepHeatmap::plotPrediction(const SweepDefinition &definition,
                                  const SweepPrediction &prediction, int xIndex, int yIndex,
                                  const std::string &figureName)
{
    const SweepFigure &figure = sweepFigure(figureName);
    if (!layOutAxes(definition, xIndex, yIndex))
        return;
    // With more than two axes a map cell shows one of its grid cells: one measured and
    // predicted before one only predicted, and among those the best, as the measured
    // map picks them.
    const bool higher = figure.higherIsBetter;
    std::vector<const SweepCellPrediction *> shown(m_values.size(), nullptr);
    const auto rank = [&figureName](const SweepCellPrediction *c) {
        return !c ? 0 : !std::isnan(c->error(figureName)) ? 3 : c->predicted ? 2 : 1;
    };
    const auto shownFigure = [&figure](const SweepCellPrediction *c) {
        return c->measuredRuns > 0 ? c->measured.figure(figure.id)
                                   : c->prediction.figure(figure.id);
    };
    for (const SweepCellPrediction &c : prediction.cells) {
        int x = 0, y = 0;
        if (!mapCellOf(definition, c.values, xIndex, yIndex, x, y))
            continue;
        const auto i = static_cast<std::size_t>(y * m_columns + x);
        const SweepCellPrediction *old = shown[i];
        const bool better = rank(&c) > rank(old)
                            || (rank(&c) == rank(old) && rank(&c) > 1
                                && (higher ? shownFigure(&c) > shownFigure(old)
                                           : shownFigure(&c) < shownFigure(old)));
        if (!better)
            continue;
        shown[i] = &c;
        m_grids[i] = c.grid;
        m_values[i] = c.error(figureName) * 100.0; // NaN when not both measured and predicted
    }

    double largest = 0.0;
    for (const double v : m_values) {
        if (!std::isnan(v))
            largest = std::max(largest, std::abs(v));
    }
    // Symmetric about 0, at least +-5 % (so small errors stay pale) and at most +-100 %.
    const double bound = std::clamp(largest, 5.0, 100.0);
    const QCPRange range(-bound, bound);
    // Red-blue diverging (ColorBrewer's RdBu): white where the prediction is exact.
    QCPColorGradient gradient;
    gradient.setColorStops({{0.0, QColor(33, 102, 172)},
                            {0.25, QColor(146, 197, 222)},
                            {0.5, QColor(247, 247, 247)},
                            {0.75, QColor(244, 165, 130)},
                            {1.0, QColor(178, 24, 43)}});
    fillMap(gradient, range);
    // The figure is the one chosen beside the map; a longer title would be cut off.
    m_scale->axis()->setLabel(tr("Prediction error (%)"));

    addLabels(
        [&](int x, int y, QColor &colour) {
            const SweepCellPrediction *c = shown[static_cast<std::size_t>(y * m_columns + x)];
            const double v = value(x, y);
            if (!std::isnan(v)) {
                colour = std::abs(v) > 0.6 * bound ? Qt::white : Qt::black;
                return QString::asprintf("%+.1f %%", v);
            }
            if (c && c->predicted)
                return tr("pred. %1").arg(figureText(figure, c->prediction.figure(figure.id)));
            return c ? tr("not predicted") : QString();
        },
        [](int, int) { return false; });
    for (const SweepCellPrediction &c : prediction.cells) {
        int x = 0, y = 0;
        if (c.grid != prediction.calibrationGrid
            || !mapCellOf(definition, c.values, xIndex, yIndex, x, y))
            continue;
        m_calibrated->topLeft->setCoords(x - 0.44, y + 0.44);
        m_calibrated->bottomRight->setCoords(x + 0.44, y - 0.44);
        m_calibrated->setVisible(true);
    }
    replot(rpQueuedReplot);
}

void SweepHeatmap::mousePressEvent(QMouseEvent *event)
{
    QCustomPlot::mousePressEvent(event);
    if (event->button() != Qt::LeftButton || !axisRect()->rect().contains(event->pos()))
        return;
    const int x = static_cast<int>(std::lround(xAxis->pixelToCoord(event->pos().x())));
    const int y = static_cast<int>(std::lround(yAxis->pixelToCoord(event->pos().y())));
    if (const std::int64_t grid = gridAt(x, y); grid >= 0)
        Q_EMIT cellClicked(grid);
}

} // namespace loaderlab
