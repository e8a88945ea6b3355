#include "widgets/experiments/sweep_line_plots.h"

#include "core/config/config_fields.h"
#include "widgets/common/marker_text.h"
#include "widgets/experiments/sweep_text.h"
#include "widgets/plots/plot_hint.h"

#include <QEvent>
#include <QHBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

namespace loaderlab {

namespace {

// Okabe-Ito: distinguishable with the common colour-vision deficiencies.
const std::array<QColor, 7> kColors = {
    QColor(0, 114, 178), QColor(213, 94, 0),   QColor(0, 158, 115),  QColor(204, 121, 167),
    QColor(230, 159, 0), QColor(86, 180, 233), QColor(120, 120, 120)};

struct Line
{
    QString label;
    QVector<double> x;
    QVector<double> y;
};

int axisIndex(const SweepDefinition &d, const std::string &key)
{
    for (std::size_t a = 0; a < d.axes.size(); ++a) {
        if (d.axes[a].key == key)
            return static_cast<int>(a);
    }
    return d.axes.empty() ? -1 : 0;
}

// The axis named `key`, or -1: no stand-in.
int exactAxisIndex(const SweepDefinition &d, const std::string &key)
{
    for (std::size_t a = 0; a < d.axes.size(); ++a) {
        if (d.axes[a].key == key)
            return static_cast<int>(a);
    }
    return -1;
}

bool numericAxis(const SweepAxis &axis)
{
    return std::all_of(axis.values.begin(), axis.values.end(),
                       [](const nlohmann::json &v) { return v.is_number(); });
}

// Speedup is along the devices when they are swept (data-parallel scaling), else
// along the workers, else along the first axis of numbers that has two values or
// more; -1 when the sweep has none (an engine or dataset axis alone).
int scalingAxisIndex(const SweepDefinition &d)
{
    for (const char *key : {"devices", "loader.num_workers"}) {
        const int a = exactAxisIndex(d, key);
        if (a >= 0 && numericAxis(d.axes[static_cast<std::size_t>(a)]))
            return a;
    }
    for (std::size_t a = 0; a < d.axes.size(); ++a) {
        if (numericAxis(d.axes[a]) && d.axes[a].values.size() >= 2)
            return static_cast<int>(a);
    }
    return -1;
}

double xOf(const SweepAxis &axis, const nlohmann::json &value)
{
    if (numericAxis(axis))
        return value.get<double>();
    const auto it = std::find(axis.values.begin(), axis.values.end(), value);
    return static_cast<double>(it - axis.values.begin());
}

// One line per combination of the other axes' values, in grid order; cells whose
// figure is NaN (no finished run) are left out.
std::vector<Line> linesAlong(const SweepDefinition &d, const SweepAnalysis &analysis, int axis,
                             const std::function<double(const SweepCellStats &)> &figure)
{
    std::vector<Line> lines;
    for (const SweepCellStats &c : analysis.cells) {
        const double y = c.runs > 0 ? figure(c) : std::nan("");
        if (std::isnan(y))
            continue;
        const QString name = sweeptext::values(analysis.keys, c.values, axis);
        auto it = std::find_if(lines.begin(), lines.end(),
                               [&](const Line &l) { return l.label == name; });
        if (it == lines.end())
            it = lines.insert(lines.end(), Line{name, {}, {}});
        const SweepAxis &along = d.axes[static_cast<std::size_t>(axis)];
        it->x.push_back(xOf(along, c.values[static_cast<std::size_t>(axis)]));
        it->y.push_back(y);
    }
    return lines;
}

QCustomPlot *makePlot(const QString &title)
{
    auto *plot = new QCustomPlot;
    plot->plotLayout()->insertRow(0);
    auto *element = new QCPTextElement(plot, title, QFont(plot->font().family(), 9, QFont::Bold));
    plot->plotLayout()->addElement(0, 0, element);
    plothint::setWrappedTitle(element, title); // three plots share a row at 1280 px
    // The legend goes below the plot (placeLegend): inside it would cover the lines.
    plot->legend->setVisible(true);
    plot->legend->setFont(QFont(plot->font().family(), 8));
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setWrap(2);
    plot->legend->setIconSize(18, 8);
    plot->axisRect()->insetLayout()->take(plot->legend);
    plot->setMinimumSize(160, 180);
    return plot;
}

// The legend in the row below the plot when it has entries; out of the layout when it
// has none (an empty legend there narrows the plot's column to its own small width).
void placeLegend(QCustomPlot *plot)
{
    QCPLayoutGrid *layout = plot->plotLayout();
    const bool placed = layout->hasElement(2, 0) && layout->element(2, 0) == plot->legend;
    if (plot->legend->itemCount() > 0 && !placed) {
        layout->addElement(2, 0, plot->legend);
        layout->setRowStretchFactor(2, 0.001);
    } else if (plot->legend->itemCount() == 0 && placed) {
        layout->take(plot->legend);
        layout->simplify();
    }
}

// As many legend entries a row as the plot's width holds whole (at least one): two a
// row cut "Batch 128" to "Batch 12" in a third of a 1280 px window.
void fitLegend(QCustomPlot *plot)
{
    int widest = 1;
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        widest = std::max(widest, plot->legend->item(i)->minimumOuterSizeHint().width());
    const int perRow = std::max(1, (plot->width() - 12) / (widest + plot->legend->columnSpacing()));
    if (plot->legend->wrap() != perRow) {
        plot->legend->setWrap(perRow);
        plot->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    }
}

// Sets the x axis to the axis' values: numbers as they are, text evenly spaced.
void setXAxis(QCustomPlot *plot, const SweepAxis &axis)
{
    const ConfigField *field = findConfigField(axis.key);
    plot->xAxis->setLabel(field ? markertext::fieldLabel(*field)
                                : QString::fromStdString(axis.key));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (const nlohmann::json &v : axis.values)
        ticker->addTick(xOf(axis, v),
                        QString::fromStdString(field ? configValueText(*field, v) : v.dump()));
    plot->xAxis->setTicker(ticker);
    double low = xOf(axis, axis.values.front());
    double high = low;
    for (const nlohmann::json &v : axis.values) {
        low = std::min(low, xOf(axis, v));
        high = std::max(high, xOf(axis, v));
    }
    const double pad = std::max((high - low) * 0.05, 0.3);
    plot->xAxis->setRange(low - pad, high + pad);
}

QCPGraph *addLine(QCustomPlot *plot, const Line &line, std::size_t i, QCPAxis *valueAxis,
                  Qt::PenStyle style)
{
    auto *graph = plot->addGraph(plot->xAxis, valueAxis);
    graph->setName(line.label);
    graph->setPen(QPen(kColors[i % kColors.size()], 2, style));
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
    graph->setData(line.x, line.y, false);
    if (line.label.isEmpty()) // a single axis: one line, nothing to tell apart
        graph->removeFromLegend();
    return graph;
}

void fitY(QCPAxis *axis, bool fromZero)
{
    bool found = false;
    QCPRange range;
    for (QCPAbstractPlottable *p : axis->plottables()) {
        bool any = false;
        const QCPRange r = p->getValueRange(any);
        if (any)
            range = found ? QCPRange(std::min(range.lower, r.lower), std::max(range.upper, r.upper))
                          : r;
        found = found || any;
    }
    if (!found)
        range = QCPRange(0, 1);
    const double low = fromZero ? 0.0 : range.lower;
    axis->setRange(low, std::max(range.upper * 1.1, low + 1e-3));
}

// Mean step per sample (ms) of each grid cell over its finished runs.
std::map<std::int64_t, double> stepPerSample(const std::map<std::int64_t, SweepRecord> &records)
{
    std::map<std::int64_t, std::pair<double, int>> sums;
    for (const auto &[order, r] : records) {
        const double batches = r.figure("batches");
        const double samples = r.figure("samples");
        if (r.failed() || batches <= 0 || samples <= 0)
            continue;
        auto &[sum, n] = sums[r.grid];
        sum += r.figure("compute_mean_ms") / (samples / batches);
        ++n;
    }
    std::map<std::int64_t, double> means;
    for (const auto &[grid, s] : sums)
        means[grid] = s.first / s.second;
    return means;
}

} // namespace

QString SweepLinePlots::scalingNote() const
{
    return m_scalingNote->visible()
               ? m_scalingNote->text().replace(QLatin1Char('\n'), QLatin1Char(' '))
               : QString();
}

void SweepLinePlots::showScalingNote(const SweepDefinition &d, int scalingAxis)
{
    QStringList axes;
    for (const SweepAxis &axis : d.axes) {
        const ConfigField *field = findConfigField(axis.key);
        axes << (field ? markertext::fieldLabel(*field) : QString::fromStdString(axis.key));
    }
    const QList<QCPGraph *> speedups = m_scaling->yAxis->graphs();
    const bool empty = std::none_of(speedups.begin(), speedups.end(),
                                    [](QCPGraph *g) { return !g->data()->isEmpty(); });
    QString note;
    if (scalingAxis < 0 && !d.axes.empty())
        note = tr("No speedup to draw: it is measured along a swept number (workers, devices, "
                  "batch size), and this sweep varies %1.")
                   .arg(axes.join(QStringLiteral(", ")));
    else if (empty && !d.axes.empty())
        note = tr("No speedup yet: it needs finished runs at two values of the axis.");
    plothint::setWrappedText(m_scalingNote, note);
    m_scalingNote->setVisible(!note.isEmpty());
}

SweepLinePlots::SweepLinePlots(QWidget *parent)
    : QWidget(parent)
{
    m_endToEnd = makePlot(tr("End-to-end time"));
    m_endToEnd->setObjectName(QStringLiteral("sweepEndToEndPlot"));
    m_endToEnd->yAxis->setLabel(tr("end to end (s)"));
    m_step = makePlot(tr("Model step per sample"));
    m_step->setObjectName(QStringLiteral("sweepStepPlot"));
    m_step->yAxis->setLabel(tr("step ÷ batch size (ms)"));
    m_scaling = makePlot(tr("Speedup and efficiency"));
    m_scaling->setObjectName(QStringLiteral("sweepScalingPlot"));
    m_scaling->yAxis->setLabel(tr("speedup (×, solid)"));
    m_scaling->yAxis2->setVisible(true);
    m_scaling->yAxis2->setLabel(tr("efficiency (%, dashed)"));
    // Said on the plot (and so in its exports) when it has no line to show.
    m_scalingNote = new QCPItemText(m_scaling);
    m_scalingNote->setObjectName(QStringLiteral("sweepScalingNote"));
    m_scalingNote->setClipToAxisRect(true);
    m_scalingNote->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_scalingNote->position->setCoords(0.5, 0.5);
    m_scalingNote->setPositionAlignment(Qt::AlignCenter);
    m_scalingNote->setTextAlignment(Qt::AlignCenter);
    m_scalingNote->setColor(QColor(90, 90, 90));
    m_scalingNote->setVisible(false);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_endToEnd);
    layout->addWidget(m_step);
    layout->addWidget(m_scaling);
    for (QCustomPlot *plot : {m_endToEnd, m_step, m_scaling})
        plot->installEventFilter(this);
}

bool SweepLinePlots::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Resize) {
        for (QCustomPlot *plot : {m_endToEnd, m_step, m_scaling}) {
            if (watched == plot)
                fitLegend(plot);
        }
    }
    return QWidget::eventFilter(watched, event);
}

void SweepLinePlots::plotSweep(const SweepDefinition &d, const SweepAnalysis &analysis,
                               const std::map<std::int64_t, SweepRecord> &records)
{
    for (QCustomPlot *plot : {m_endToEnd, m_step, m_scaling})
        plot->clearGraphs();
    const int workers = axisIndex(d, "loader.num_workers");
    const int batch = axisIndex(d, "loader.batch_size");
    const int scalingAxis = scalingAxisIndex(d);

    if (workers >= 0) {
        const auto e2e = linesAlong(d, analysis, workers,
                                    [](const SweepCellStats &c) { return c.endToEndMean; });
        for (std::size_t i = 0; i < e2e.size(); ++i)
            addLine(m_endToEnd, e2e[i], i, m_endToEnd->yAxis, Qt::SolidLine);
        setXAxis(m_endToEnd, d.axes[static_cast<std::size_t>(workers)]);
        fitY(m_endToEnd->yAxis, true);
    }
    if (workers >= 0 && batch >= 0) {
        const auto steps = stepPerSample(records);
        const auto perSample = linesAlong(d, analysis, batch, [&steps](const SweepCellStats &c) {
            const auto it = steps.find(c.grid);
            return it == steps.end() ? std::nan("") : it->second;
        });
        for (std::size_t i = 0; i < perSample.size(); ++i)
            addLine(m_step, perSample[i], i, m_step->yAxis, Qt::SolidLine);
        setXAxis(m_step, d.axes[static_cast<std::size_t>(batch)]);
        fitY(m_step->yAxis, true);
    }

    // Speedup needs a number to divide by: only along a numeric axis.
    if (scalingAxis >= 0) {
        const SweepAxis &along = d.axes[static_cast<std::size_t>(scalingAxis)];
        const auto scaling = scalingAlong(analysis, along.key);
        for (std::size_t i = 0; i < scaling.size(); ++i) {
            Line speedup{sweeptext::values(analysis.keys, scaling[i].values, scalingAxis), {}, {}};
            Line efficiency{tr("%1, efficiency").arg(speedup.label), {}, {}};
            for (const ScalingPoint &p : scaling[i].points) {
                speedup.x.push_back(p.value.get<double>());
                speedup.y.push_back(p.speedup);
                if (!std::isnan(p.efficiency)) {
                    efficiency.x.push_back(p.value.get<double>());
                    efficiency.y.push_back(p.efficiency * 100.0);
                }
            }
            addLine(m_scaling, speedup, i, m_scaling->yAxis, Qt::SolidLine);
            // Open squares: where speedup and efficiency meet (2 workers, 1.9x and
            // 95 %) the two lines stay apart by their points.
            QCPGraph *dashed = addLine(m_scaling, efficiency, i, m_scaling->yAxis2, Qt::DashLine);
            dashed->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, 7));
            dashed->removeFromLegend();
        }
        setXAxis(m_scaling, along);
    }
    showScalingNote(d, scalingAxis);
    fitY(m_scaling->yAxis, true);
    fitY(m_scaling->yAxis2, true);
    // Efficiency needs a first value above 0 (workers 0,1,2: none).
    const QList<QCPGraph *> efficiencies = m_scaling->yAxis2->graphs();
    m_scaling->yAxis2->setVisible(std::any_of(efficiencies.begin(), efficiencies.end(),
                                              [](QCPGraph *g) { return !g->data()->isEmpty(); }));
    for (QCustomPlot *plot : {m_endToEnd, m_step, m_scaling}) {
        placeLegend(plot);
        fitLegend(plot);
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

} // namespace loaderlab
