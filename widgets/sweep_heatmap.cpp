#include "widgets/sweep_heatmap.h"

#include "core/config/config_fields.h"
#include "widgets/marker_text.h"

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

QString valueText(const std::string &key, const nlohmann::json &value)
{
    const ConfigField *field = findConfigField(key);
    return QString::fromStdString(field ? configValueText(*field, value) : value.dump());
}

QString figureText(const std::string &figure, double value)
{
    if (figure == "samples_per_sec")
        return QString::number(value, 'f', 0);
    if (figure == "end_to_end_s")
        return QString::number(value, 'f', 3);
    if (figure == "input_bound_share")
        return QString::number(value * 100.0, 'f', 0) + QStringLiteral(" %");
    if (figure == "first_batch_ms")
        return QString::number(value, 'f', 1);
    return QString::number(value, 'f', 2);
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

const std::vector<std::string> &SweepHeatmap::figures()
{
    static const std::vector<std::string> names = {
        "samples_per_sec", "end_to_end_s", "input_bound_share", "first_batch_ms", "wait_p95_ms"};
    return names;
}

QString SweepHeatmap::figureLabel(const std::string &figure)
{
    if (figure == "samples_per_sec")
        return tr("Throughput (samples/s)");
    if (figure == "end_to_end_s")
        return tr("End-to-end time (s)");
    if (figure == "input_bound_share")
        return tr("Input-bound share");
    if (figure == "first_batch_ms")
        return tr("First-batch latency (ms)");
    return tr("Wait p95 (ms)");
}

bool SweepHeatmap::higherIsBetter(const std::string &figure)
{
    return figure == "samples_per_sec";
}

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

void SweepHeatmap::plotSweep(const SweepDefinition &definition, const SweepAnalysis &analysis,
                             int xIndex, int yIndex, const std::string &figure)
{
    clearLabels();
    m_bestCell.reset();
    m_best->setVisible(false);
    const auto &axes = definition.axes;
    if (xIndex < 0 || xIndex >= static_cast<int>(axes.size())) {
        m_columns = m_rows = 0;
        m_map->data()->clear();
        replot(rpQueuedReplot);
        return;
    }
    if (yIndex == xIndex || yIndex >= static_cast<int>(axes.size()))
        yIndex = -1;
    const SweepAxis &ax = axes[static_cast<std::size_t>(xIndex)];
    m_columns = static_cast<int>(ax.values.size());
    m_rows = yIndex < 0 ? 1
                        : static_cast<int>(axes[static_cast<std::size_t>(yIndex)].values.size());
    m_values.assign(static_cast<std::size_t>(m_columns * m_rows), kNaN);
    m_grids.assign(m_values.size(), -1);
    std::vector<bool> failed(m_values.size(), false);
    const bool higher = higherIsBetter(figure);

    for (const SweepCellStats &c : analysis.cells) {
        const int x = indexOf(ax, c.values[static_cast<std::size_t>(xIndex)]);
        const int y = yIndex < 0 ? 0
                                 : indexOf(axes[static_cast<std::size_t>(yIndex)],
                                           c.values[static_cast<std::size_t>(yIndex)]);
        if (x < 0 || y < 0)
            continue;
        const auto i = static_cast<std::size_t>(y * m_columns + x);
        if (c.runs == 0) {
            failed[i] = true;
            if (m_grids[i] < 0)
                m_grids[i] = c.grid; // a click shows why it failed
            continue;
        }
        const double v = c.figure(figure);
        const double old = m_values[i];
        if (std::isnan(old) || (higher ? v > old : v < old)) {
            m_values[i] = v;
            m_grids[i] = c.grid;
        }
    }

    QCPColorMapData *data = m_map->data();
    data->setSize(dataSize(m_columns), dataSize(m_rows));
    data->setRange(dataRange(m_columns), dataRange(m_rows));
    double low = std::numeric_limits<double>::infinity();
    double high = -low;
    for (int y = 0; y < dataSize(m_rows); ++y) {
        for (int x = 0; x < dataSize(m_columns); ++x) {
            const double v = value(std::min(x, m_columns - 1), std::min(y, m_rows - 1));
            data->setCell(x, y, v);
        }
    }
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
    gradient.setNanHandling(QCPColorGradient::nhNanColor);
    gradient.setNanColor(kNoData);
    m_map->setGradient(higher ? gradient : gradient.inverted());
    m_map->setDataRange(QCPRange(low, high));
    m_scale->axis()->setLabel(figureLabel(figure));

    m_xTicker->clear();
    for (int x = 0; x < m_columns; ++x)
        m_xTicker->addTick(x, valueText(ax.key, ax.values[static_cast<std::size_t>(x)]));
    xAxis->setLabel(axisTitle(ax.key));
    m_yTicker->clear();
    yAxis->setTicks(yIndex >= 0);
    if (yIndex < 0) {
        m_yTicker->addTick(0, QString());
        yAxis->setLabel(QString());
    } else {
        const SweepAxis &ay = axes[static_cast<std::size_t>(yIndex)];
        for (int y = 0; y < m_rows; ++y)
            m_yTicker->addTick(y, valueText(ay.key, ay.values[static_cast<std::size_t>(y)]));
        yAxis->setLabel(axisTitle(ay.key));
    }
    xAxis->setRange(-0.5, m_columns - 0.5);
    yAxis->setRange(-0.5, m_rows - 0.5);

    if (m_columns * m_rows <= kMaxLabelledCells) {
        const QCPRange range(low, high);
        for (int y = 0; y < m_rows; ++y) {
            for (int x = 0; x < m_columns; ++x) {
                const double v = value(x, y);
                auto *label = new QCPItemText(this);
                label->position->setCoords(x, y);
                label->setPositionAlignment(Qt::AlignCenter);
                label->setClipToAxisRect(true);
                QFont font = this->font();
                font.setPointSizeF(font.pointSizeF() * 0.9);
                if (std::isnan(v)) {
                    label->setText(failed[static_cast<std::size_t>(y * m_columns + x)]
                                       ? tr("failed")
                                       : tr("not run"));
                    label->setColor(QColor(110, 110, 110));
                } else {
                    const QRgb rgb = m_map->gradient().color(v, range);
                    label->setText(figureText(figure, v));
                    label->setColor(qGray(rgb) > 128 ? Qt::black : Qt::white);
                    font.setBold(m_bestCell == std::make_pair(x, y));
                }
                label->setFont(font);
                m_labels.push_back(label);
            }
        }
    }
    if (m_bestCell) {
        const auto [bx, by] = *m_bestCell;
        // Inset a little so the frame stays inside its cell.
        m_best->topLeft->setCoords(bx - 0.47, by + 0.47);
        m_best->bottomRight->setCoords(bx + 0.47, by - 0.47);
        m_best->setVisible(true);
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
