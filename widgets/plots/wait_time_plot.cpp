#include "widgets/plots/wait_time_plot.h"

#include "widgets/plots/integer_axis_ticker.h"
#include "widgets/plots/plot_hint.h"
#include "widgets/plots/plot_units.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace loaderlab {

namespace {

using plotunits::kNsPerMs;
constexpr double kFollowBatches = 200.0;
using plotunits::kPixelsPerDot;

// Okabe-Ito: distinguishable with the common colour-vision deficiencies.
const QColor kWaitColor(0, 114, 178);    // blue
const QColor kMeanColor(213, 94, 0);     // vermillion
const QColor kComputeColor(0, 158, 115); // bluish green
const QColor kFirstColor(204, 0, 0);     // red: stands out from the palette on purpose

QCPGraph *makeGraph(QCustomPlot *plot, const QString &name, const QPen &pen)
{
    auto *graph = plot->addGraph();
    graph->setName(name);
    graph->setPen(pen);
    graph->setAdaptiveSampling(true);
    return graph;
}

} // namespace

WaitTimePlot::WaitTimePlot(QWidget *parent)
    : LivePlot(parent)
{
    xAxis->setLabel(tr("batch"));
    xAxis->setTicker(QSharedPointer<IntegerAxisTicker>::create()); // never "2.5"
    yAxis->setLabel(tr("wait and step (ms)"));

    QColor computeLight = kComputeColor;
    computeLight.setAlpha(150);
    m_compute = makeGraph(this, tr("model step"), QPen(computeLight, 1));
    m_compute->setObjectName(QStringLiteral("computeGraph"));

    m_wait = makeGraph(this, tr("wait"), QPen(kWaitColor, 1));
    m_wait->setObjectName(QStringLiteral("waitGraph"));
    m_wait->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 3));

    m_mean = makeGraph(this, tr("wait, rolling mean"), QPen(kMeanColor, 2));
    m_mean->setObjectName(QStringLiteral("meanGraph"));

    m_first = makeGraph(this, tr("first batch"), QPen(kFirstColor));
    m_first->setObjectName(QStringLiteral("firstBatchGraph"));
    m_first->setLineStyle(QCPGraph::lsNone);
    m_first->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(kFirstColor), QBrush(kFirstColor), 10));

    m_firstLabel = new QCPItemText(this);
    m_firstLabel->setText(tr("first batch"));
    m_firstLabel->setColor(kFirstColor);
    m_firstLabel->setFont(QFont(font().family(), 8));
    m_firstLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    m_firstLabel->setPadding(QMargins(8, 0, 0, 4));
    m_firstLabel->setClipToAxisRect(true);
    m_firstLabel->setVisible(false);

    legend->setVisible(true);
    legend->setFont(QFont(font().family(), 8));
    legend->setBrush(QBrush(QColor(255, 255, 255, 200)));
    placeLegendAbove(4);

    m_hint = new QCPItemText(this);
    m_hint->setObjectName(QStringLiteral("firstStartHint"));
    m_hint->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_hint->position->setCoords(0.5, 0.5);
    m_hint->setColor(QColor(90, 90, 90));
    m_hint->setFont(QFont(font().family(), 10));
    // Wrapped to the plot's width: it shares its row with the wait pattern.
    plothint::setWrappedText(
        m_hint, tr("Press Start to run the loader, or File → Open run… to look at a "
                   "recorded one.\nEach dot here is one batch's wait for its data:\nwith W "
                   "workers, the waits spike every W batches."));

    m_compute->setData(m_computeSeries.full());
    m_wait->setData(m_waitSeries.full());
    m_mean->setData(m_meanSeries.full());
    // After the layout, so the axis rect's width is that of this replot or export.
    connect(this, &QCustomPlot::afterLayout, this, &WaitTimePlot::chooseDetail);
    connect(this, &QCustomPlot::afterLayout, this, &WaitTimePlot::placeFirstLabel);
}

void WaitTimePlot::placeFirstLabel()
{
    if (m_first->data()->isEmpty())
        return;
    const QCPGraphData first = *m_first->data()->constBegin();
    // Followed past it (the newest batches only), the first batch's wait stays named
    // at the plot's top left, with its figure: it is in the legend, and the slow
    // start is the first thing a run teaches.
    const bool inView = xAxis->range().contains(first.key) && yAxis->range().contains(first.value);
    if (inView) {
        m_firstLabel->position->setType(QCPItemPosition::ptPlotCoords);
        m_firstLabel->position->setCoords(first.key, first.value);
        m_firstLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        m_firstLabel->setPadding(QMargins(8, 0, 0, 4));
        m_firstLabel->setText(tr("first batch"));
    } else {
        m_firstLabel->position->setType(QCPItemPosition::ptAxisRectRatio);
        m_firstLabel->position->setCoords(0.0, 0.0);
        m_firstLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        // Below the row of marker labels ("epoch 6") along the top.
        m_firstLabel->setPadding(QMargins(4, 16, 4, 2));
        m_firstLabel->setText(tr("◀ first batch: %1 ms").arg(first.value, 0, 'f', 1));
    }
}

void WaitTimePlot::chooseDetail()
{
    const QCPRange range = xAxis->range();
    const double pixels = axisRect()->width();
    std::vector<std::pair<QCPGraph *, const DecimatedSeries *>> graphs{
        {m_compute, &m_computeSeries}, {m_wait, &m_waitSeries}, {m_mean, &m_meanSeries}};
    for (std::size_t i = 0; i < m_overlayGraphs.size(); ++i)
        graphs.emplace_back(m_overlayGraphs[i], m_overlaySeries[i].get());
    for (const auto &[graph, series] : graphs) {
        auto data = series->forView(range, pixels);
        if (graph->data() != data)
            graph->setData(data);
    }
    // Dots only where they can be told apart; thousands of them cost milliseconds.
    const bool dots = m_waitSeries.visibleCount(range) * kPixelsPerDot <= pixels;
    m_wait->setScatterStyle(dots ? QCPScatterStyle(QCPScatterStyle::ssDisc, 3)
                                 : QCPScatterStyle(QCPScatterStyle::ssNone));
}

void WaitTimePlot::appendData(const loaderlab::TraceLog &log, std::size_t from, std::size_t)
{
    const std::size_t to = log.size();
    if (from >= to)
        return;
    if (m_ring.empty()) {
        m_window = std::max(numWorkers(), 1) * 4;
        m_ring.assign(static_cast<std::size_t>(m_window), 0);
        m_mean->setName(tr("wait, rolling mean of %n batch(es)", nullptr, m_window));
    }
    const std::size_t n = to - from;
    QVector<QCPGraphData> waits(static_cast<qsizetype>(n));
    QVector<QCPGraphData> means(static_cast<qsizetype>(n));
    QVector<QCPGraphData> computes(static_cast<qsizetype>(n));
    const std::size_t window = m_ring.size();
    for (std::size_t i = 0; i < n; ++i) {
        const loaderlab::TraceRecord &r = log[from + i];
        const auto key = static_cast<double>(r.index);
        const std::int64_t wait = r.waitNs();
        // m_ringCount counts every wait seen, so this slot holds the oldest one.
        std::int64_t &slot = m_ring[m_ringCount % window];
        if (m_ringCount >= window)
            m_ringSum -= slot;
        slot = wait;
        m_ringSum += wait;
        ++m_ringCount;
        const auto inWindow = static_cast<double>(std::min(m_ringCount, window));
        const auto q = static_cast<qsizetype>(i);
        waits[q] = QCPGraphData(key, static_cast<double>(wait) / kNsPerMs);
        means[q] = QCPGraphData(key, static_cast<double>(m_ringSum) / inWindow / kNsPerMs);
        computes[q] = QCPGraphData(key, static_cast<double>(r.computeNs()) / kNsPerMs);
        if (r.index == 0) {
            m_first->data()->set(QVector<QCPGraphData>{waits[q]}, true);
            m_firstLabel->setVisible(liveVisible());
        }
    }
    m_waitSeries.append(waits);
    m_meanSeries.append(means);
    m_computeSeries.append(computes);
    m_newest = std::max(m_newest, waits.constLast().key);
    updateHint();
}

void WaitTimePlot::updateHint()
{
    m_hint->setVisible(m_waitSeries.full()->isEmpty() && m_overlayGraphs.empty());
}

void WaitTimePlot::clearData()
{
    m_waitSeries.clear();
    m_meanSeries.clear();
    m_computeSeries.clear();
    m_first->data()->clear();
    m_firstLabel->setVisible(false);
    m_ring.clear();
    m_ringCount = 0;
    m_ringSum = 0;
    m_newest = 0.0;
    updateHint();
}

void WaitTimePlot::setOverlayData(const std::vector<PlotOverlay> &overlays)
{
    for (QCPGraph *graph : m_overlayGraphs)
        removeGraph(graph);
    m_overlayGraphs.clear();
    m_overlaySeries.clear();
    for (const PlotOverlay &overlay : overlays) {
        auto series = std::make_unique<DecimatedSeries>();
        const loaderlab::TraceLog &log = *overlay.trace;
        QVector<QCPGraphData> waits;
        {
            const auto hold = log.hold();
            const std::size_t size = log.size();
            waits.reserve(static_cast<qsizetype>(size - log.firstKept()));
            for (std::size_t i = log.firstKept(); i < size; ++i)
                waits.push_back(QCPGraphData(static_cast<double>(log[i].index),
                                             static_cast<double>(log[i].waitNs()) / kNsPerMs));
        }
        series->append(waits);
        QCPGraph *graph = makeGraph(this, tr("wait: %1").arg(overlay.name),
                                    QPen(overlay.colour, 1));
        graph->setData(series->full());
        m_overlayGraphs.push_back(graph);
        m_overlaySeries.push_back(std::move(series));
    }
    // Behind the live run's series, above the grid.
    for (QCPGraph *graph : m_overlayGraphs)
        graph->setLayer(QStringLiteral("grid"));
    updateHint();
}

void WaitTimePlot::showLiveSeries(bool visible)
{
    for (QCPGraph *graph : {m_compute, m_wait, m_mean, m_first})
        graph->setVisible(visible);
    m_firstLabel->setVisible(visible && !m_first->data()->isEmpty());
}

QString WaitTimePlot::hoverText(const QPointF &pos) const
{
    if (!axisRect()->rect().contains(pos.toPoint()))
        return {};
    const std::int64_t index = std::llround(xAxis->pixelToCoord(pos.x()));
    if (index < 0)
        return {};
    const auto describe = [](const loaderlab::TraceRecord &r) {
        return tr("wait %1 ms, step %2 ms, %3, config version %4")
            .arg(static_cast<double>(r.waitNs()) / kNsPerMs, 0, 'f', 2)
            .arg(static_cast<double>(r.computeNs()) / kNsPerMs, 0, 'f', 2)
            .arg(workerName(r.worker))
            .arg(r.configVersion);
    };
    QStringList lines;
    std::int32_t epoch = -1;
    if (liveVisible() && trace()) {
        if (const auto r = recordOfBatch(*trace(), index)) {
            lines << describe(*r);
            epoch = r->epoch;
        }
    }
    for (std::size_t i = 0; i < overlays().size(); ++i) {
        const auto r = recordOfBatch(*overlays()[i].trace, index);
        if (!r || !m_overlayGraphs[i]->visible())
            continue;
        lines << overlays()[i].name + QStringLiteral(": ") + describe(*r);
        epoch = epoch < 0 ? r->epoch : epoch;
    }
    if (lines.isEmpty())
        return {};
    lines.prepend(tr("batch %1 (epoch %2)").arg(index).arg(epoch));
    return lines.join(QLatin1Char('\n'));
}

double WaitTimePlot::markerKey(const loaderlab::TraceMarker &marker) const
{
    return static_cast<double>(marker.batch);
}

QCPRange WaitTimePlot::followRange(double newest) const
{
    return {std::max(0.0, newest - kFollowBatches) - 0.5, newest + 0.5};
}

double WaitTimePlot::newestKey() const
{
    return m_newest;
}

} // namespace loaderlab
