#include "widgets/plots/throughput_plot.h"
#include "widgets/plots/plot_units.h"

#include <algorithm>
#include <cmath>

namespace loaderlab {

namespace {

using plotunits::kMedianColor;
using plotunits::kNsPerS;
using plotunits::kPixelsPerDot;
constexpr double kFollowRateSeconds = 30.0;

const QColor kRateColor(0, 114, 178); // Okabe-Ito blue

} // namespace

ThroughputPlot::ThroughputPlot(QWidget *parent)
    : LivePlot(parent)
{
    xAxis->setLabel(tr("time (s)"));
    yAxis->setLabel(tr("samples/s"));

    m_rate = addGraph();
    m_rate->setObjectName(QStringLiteral("rateGraph"));
    m_rate->setName(tr("samples/s per round of workers"));
    m_rate->setPen(QPen(kRateColor, 1));
    m_rate->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 3));

    m_medianLine = new QCPItemStraightLine(this);
    m_medianLine->setPen(QPen(kMedianColor, 2, Qt::DashLine));
    m_medianLabel = new QCPItemText(this);
    m_medianLabel->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    // At the left end of the line.
    m_medianLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    m_medianLabel->setColor(kMedianColor);
    m_medianLabel->setFont(QFont(font().family(), 8));
    m_medianLabel->setBrush(QBrush(QColor(255, 255, 255, 200)));

    legend->setVisible(true);
    legend->setFont(QFont(font().family(), 8));
    legend->setBrush(QBrush(QColor(255, 255, 255, 200)));
    placeLegendAbove(2);

    m_rate->setData(m_rateSeries.full());
    // After the layout, so the axis rect's width is that of this replot or export.
    connect(this, &QCustomPlot::afterLayout, this, &ThroughputPlot::chooseDetail);

    updateMedianLine(); // hidden until there is a round
}

void ThroughputPlot::chooseDetail()
{
    const QCPRange range = xAxis->range();
    const double pixels = axisRect()->width();
    auto data = m_rateSeries.forView(range, pixels);
    if (m_rate->data() != data)
        m_rate->setData(data);
    // Dots only where they can be told apart; thousands of them cost milliseconds.
    const bool dots = m_rateSeries.visibleCount(range) * kPixelsPerDot <= pixels;
    m_rate->setScatterStyle(dots ? QCPScatterStyle(QCPScatterStyle::ssDisc, 3)
                                 : QCPScatterStyle(QCPScatterStyle::ssNone));
    for (std::size_t i = 0; i < m_overlayGraphs.size(); ++i) {
        data = m_overlaySeries[i]->forView(range, pixels);
        if (m_overlayGraphs[i]->data() != data)
            m_overlayGraphs[i]->setData(data);
    }
}

void ThroughputPlot::collectRounds(const loaderlab::TraceLog &log, int fallbackWorkers,
                                   std::size_t *roundStart, QVector<QCPGraphData> *out)
{
    // Each config version has its own worker count, so its own round size; a log
    // without config versions (made by hand) uses the count it was shown with.
    // A data-parallel run's ranks take their batches in turn: a round is W batches of
    // every rank (W x ranks in the log), as the summary's median counts it.
    const std::vector<int> workers = log.workersByVersion();
    const auto ranks = static_cast<std::size_t>(log.ranks());
    const auto roundOf = [&workers, fallbackWorkers, ranks](std::int32_t version) {
        if (workers.empty())
            return static_cast<std::size_t>(std::max(fallbackWorkers, 1)) * ranks;
        const auto v = std::min(static_cast<std::size_t>(std::max(version, 0)), workers.size() - 1);
        return static_cast<std::size_t>(std::max(workers[v], 1)) * ranks;
    };
    const std::size_t size = log.size();
    // Rounds the run has freed meanwhile (its log keeps the last N batches) are skipped.
    std::size_t start = std::max(*roundStart, log.firstKept());
    // A round is complete once the next round's first request is known.
    while (start < size) {
        const std::int32_t version = log[start].configVersion;
        const std::size_t rounds = roundOf(version);
        if (start + rounds >= size)
            break;
        if (log[start + rounds - 1].configVersion != version) {
            // A round cut by a reconfiguration ran under two settings: skip to the new one.
            while (start < size && log[start].configVersion == version)
                ++start;
            continue;
        }
        std::int64_t samples = 0;
        for (std::size_t k = start; k < start + rounds; ++k)
            samples += log[k].samples;
        const std::int64_t step = log[start + rounds].requestNs - log[start].requestNs;
        if (step > 0) {
            const double key = static_cast<double>(log[start + rounds - 1].computeEndNs) / kNsPerS;
            const double rate = static_cast<double>(samples)
                                / (static_cast<double>(step) / kNsPerS);
            out->push_back(QCPGraphData(key, rate));
        }
        start += rounds;
    }
    *roundStart = start;
}

void ThroughputPlot::appendData(const loaderlab::TraceLog &log, std::size_t, std::size_t)
{
    QVector<QCPGraphData> rates;
    collectRounds(log, numWorkers(), &m_roundStart, &rates);
    if (rates.isEmpty())
        return;
    for (const QCPGraphData &d : std::as_const(rates))
        m_median.add(d.value);
    m_newest = std::max(m_newest, rates.constLast().key);
    m_rateSeries.append(rates);
    updateMedianLine();
}

QString ThroughputPlot::hoverText(const QPointF &pos) const
{
    if (!axisRect()->rect().contains(pos.toPoint()))
        return {};
    const double key = xAxis->pixelToCoord(pos.x());
    // A round within 12 pixels of the mouse, on each shown graph.
    const double reach = std::abs(xAxis->pixelToCoord(pos.x() + 12.0) - key);
    QStringList lines;
    for (int i = 0; i < graphCount(); ++i) {
        const QCPGraph *g = graph(i);
        if (!g->visible())
            continue;
        const auto &data = *g->data();
        auto best = data.constEnd();
        for (auto it = data.findBegin(key - reach, false);
             it != data.constEnd() && it->key <= key + reach; ++it)
            if (best == data.constEnd() || std::abs(it->key - key) < std::abs(best->key - key))
                best = it;
        if (best == data.constEnd())
            continue;
        lines << tr("%1: %2 samples/s at %3 s")
                     .arg(g->name())
                     .arg(best->value, 0, 'f', 0)
                     .arg(best->key, 0, 'f', 2);
    }
    if (lines.isEmpty())
        return {};
    if (liveVisible() && median() > 0)
        lines << tr("median of the live run: %1 samples/s").arg(median(), 0, 'f', 0);
    return lines.join(QLatin1Char('\n'));
}

void ThroughputPlot::clearData()
{
    m_rateSeries.clear();
    m_median = loaderlab::QuantileSketch(kExactRounds);
    m_roundStart = 0;
    m_newest = 0.0;
    updateMedianLine();
}

void ThroughputPlot::updateMedianLine()
{
    const bool any = liveVisible() && !m_rateSeries.full()->isEmpty();
    const double median = m_median.quantile(50.0);
    m_medianLine->setVisible(any);
    m_medianLabel->setVisible(any);
    m_medianLine->point1->setCoords(0.0, median);
    m_medianLine->point2->setCoords(1.0, median);
    m_medianLabel->position->setCoords(0.01, median);
    m_medianLabel->setText(tr("median %1 samples/s").arg(median, 0, 'f', 0));
}

void ThroughputPlot::setOverlayData(const std::vector<PlotOverlay> &overlays)
{
    for (QCPGraph *graph : m_overlayGraphs)
        removeGraph(graph);
    for (QCPItemStraightLine *line : m_overlayMedianLines)
        removeItem(line);
    m_overlayGraphs.clear();
    m_overlaySeries.clear();
    m_overlayMedianLines.clear();
    for (const PlotOverlay &overlay : overlays) {
        QVector<QCPGraphData> rates;
        std::size_t start = 0;
        {
            const auto hold = overlay.trace->hold();
            collectRounds(*overlay.trace, overlay.workers, &start, &rates);
        }
        loaderlab::QuantileSketch median(kExactRounds);
        for (const QCPGraphData &d : std::as_const(rates))
            median.add(d.value);
        auto series = std::make_unique<DecimatedSeries>();
        series->append(rates);
        QCPGraph *graph = addGraph();
        graph->setName(overlay.name);
        graph->setPen(QPen(overlay.colour, 1));
        graph->setLayer(QStringLiteral("grid")); // behind the live run, above the grid
        graph->setData(series->full());
        auto *line = new QCPItemStraightLine(this);
        line->setPen(QPen(overlay.colour, 1, Qt::DashLine));
        line->point1->setCoords(0.0, median.quantile(50.0));
        line->point2->setCoords(1.0, median.quantile(50.0));
        line->setVisible(!rates.isEmpty());
        m_overlayGraphs.push_back(graph);
        m_overlaySeries.push_back(std::move(series));
        m_overlayMedianLines.push_back(line);
    }
}

void ThroughputPlot::showLiveSeries(bool visible)
{
    m_rate->setVisible(visible);
    updateMedianLine();
}

double ThroughputPlot::markerKey(const loaderlab::TraceMarker &marker) const
{
    return static_cast<double>(marker.timeNs) / kNsPerS;
}

QCPRange ThroughputPlot::followRange(double newest) const
{
    // A little room on the right, so the newest point is not on the border.
    return {std::max(0.0, newest - kFollowRateSeconds), newest + kFollowRateSeconds * 0.02};
}

double ThroughputPlot::newestKey() const
{
    return m_newest;
}

} // namespace loaderlab
