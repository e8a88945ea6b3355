#include "widgets/plots/wait_histogram_plot.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace loaderlab {

namespace {

constexpr double kNsPerUs = 1e3;
constexpr double kUsPerMs = 1e3;

const QColor kBarColor(0, 114, 178); // Okabe-Ito blue

// First and last non-empty bin, or {0, -1} when all are empty.
std::pair<int, int> usedBins(const std::vector<std::int64_t> &counts)
{
    int first = -1;
    int last = -1;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (counts[i] == 0)
            continue;
        if (first < 0)
            first = static_cast<int>(i);
        last = static_cast<int>(i);
    }
    return first < 0 ? std::pair{0, -1} : std::pair{first, last};
}

} // namespace

WaitHistogramPlot::WaitHistogramPlot(QWidget *parent)
    : LivePlot(parent)
{
    xAxis->setLabel(tr("wait (log scale)"));
    yAxis->setLabel(tr("batches (%)"));
    m_ticker.reset(new QCPAxisTickerText);
    m_ticker->setSubTickCount(kBinsPerDecade - 1);
    xAxis->setTicker(m_ticker);
    xAxis->grid()->setVisible(false);

    m_bars = new QCPBars(xAxis, yAxis);
    m_bars->setObjectName(QStringLiteral("histogramBars"));
    m_bars->setName(tr("this run"));
    m_bars->setWidth(0.7);
    m_bars->setPen(Qt::NoPen);
    m_bars->setBrush(kBarColor);

    legend->setVisible(true);
    legend->setFont(QFont(font().family(), 8));
    legend->setBrush(QBrush(QColor(255, 255, 255, 200)));
    placeLegendAbove(1);

    // Everything created from here on (the base's marker lines and labels) lands on
    // a layer that is never drawn.
    addLayer(QStringLiteral("hiddenMarkers"));
    layer(QStringLiteral("hiddenMarkers"))->setVisible(false);
    setCurrentLayer(QStringLiteral("hiddenMarkers"));

    updateTicks(1);
    connect(this, &QCustomPlot::afterLayout, this, &WaitHistogramPlot::chooseTickStep);
}

void WaitHistogramPlot::chooseTickStep()
{
    // The widest label, "100 ms", with room on both sides.
    const QFontMetricsF metrics(xAxis->tickLabelFont());
    const double needed = metrics.horizontalAdvance(tr("%1 ms").arg(100)) + 8.0;
    const double decadePx = std::abs(xAxis->coordToPixel(kBinsPerDecade)
                                     - xAxis->coordToPixel(0.0));
    int step = 1;
    while (step < 6 && decadePx * step < needed)
        ++step;
    if (step != m_tickStep)
        updateTicks(step);
}

int WaitHistogramPlot::binOf(std::int64_t waitNs)
{
    const double us = static_cast<double>(waitNs) / kNsPerUs;
    if (!(us > 1.0))
        return 0;
    // The epsilon keeps exact decade edges (1 ms = 10^3 us) in the bin they start.
    const int bin = static_cast<int>(std::floor(kBinsPerDecade * std::log10(us) + 1e-9));
    return std::clamp(bin, 0, kMaxBins - 1);
}

double WaitHistogramPlot::binLowerMs(int bin)
{
    return std::pow(10.0, static_cast<double>(bin) / kBinsPerDecade) / kUsPerMs;
}

QString WaitHistogramPlot::hoverText(const QPointF &pos) const
{
    if (!axisRect()->rect().contains(pos.toPoint()))
        return {};
    const int bin = static_cast<int>(std::lround(xAxis->pixelToCoord(pos.x())));
    if (bin < 0 || bin >= kMaxBins)
        return {};
    const auto shareAt = [bin](const auto &data) -> std::optional<double> {
        for (auto it = data->findBegin(bin - 0.5, false);
             it != data->constEnd() && it->key < bin + 0.5; ++it)
            if (std::lround(it->key) == bin)
                return it->value;
        return std::nullopt;
    };
    QStringList lines;
    if (m_bars->visible() && m_total > 0)
        lines << tr("this run: %1 % of %2 batches")
                     .arg(shareAt(m_bars->data()).value_or(0.0), 0, 'f', 1)
                     .arg(m_total);
    for (std::size_t i = 0; i < m_overlayGraphs.size(); ++i)
        if (const auto share = shareAt(m_overlayGraphs[i]->data());
            share && m_overlayGraphs[i]->visible())
            lines << overlays()[i].name + QStringLiteral(": ") + tr("%1 %").arg(*share, 0, 'f', 1);
    if (lines.isEmpty())
        return {};
    lines.prepend(
        tr("wait %1 to %2 ms").arg(binLowerMs(bin), 0, 'g', 3).arg(binLowerMs(bin + 1), 0, 'g', 3));
    return lines.join(QLatin1Char('\n'));
}

void WaitHistogramPlot::appendData(const loaderlab::TraceLog &log, std::size_t from, std::size_t)
{
    const std::size_t to = log.size();
    if (from >= to)
        return;
    for (std::size_t i = from; i < to; ++i) {
        const auto bin = static_cast<std::size_t>(binOf(log[i].waitNs()));
        if (bin >= m_counts.size())
            m_counts.resize(bin + 1, 0);
        ++m_counts[bin];
    }
    m_total += static_cast<std::int64_t>(to - from);
    setShares(m_bars, m_counts, m_total);
}

void WaitHistogramPlot::clearData()
{
    m_counts.clear();
    m_total = 0;
    m_bars->data()->clear();
}

void WaitHistogramPlot::setOverlayData(const std::vector<PlotOverlay> &overlays)
{
    for (QCPGraph *graph : m_overlayGraphs)
        removeGraph(graph);
    m_overlayGraphs.clear();
    m_overlayBins.clear();
    for (const PlotOverlay &overlay : overlays) {
        const loaderlab::TraceLog &log = *overlay.trace;
        std::vector<std::int64_t> counts;
        std::size_t held = 0; // the batches its log still holds
        {
            const auto hold = log.hold();
            const std::size_t size = log.size();
            held = size - log.firstKept();
            for (std::size_t i = log.firstKept(); i < size; ++i) {
                const auto bin = static_cast<std::size_t>(binOf(log[i].waitNs()));
                if (bin >= counts.size())
                    counts.resize(bin + 1, 0);
                ++counts[bin];
            }
        }
        const auto [first, last] = usedBins(counts);
        // An outline over every bin from the first to the last, zeros included, and a
        // zero on either side so it closes on the axis.
        QVector<QCPGraphData> data;
        for (int bin = first - 1; bin <= last + 1 && last >= 0; ++bin) {
            const bool inside = bin >= 0 && bin < static_cast<int>(counts.size());
            const double share =
                inside ? 100.0 * static_cast<double>(counts[bin]) / static_cast<double>(held) : 0.0;
            data.push_back(QCPGraphData(bin, share));
        }
        QCPGraph *graph = addGraph(xAxis, yAxis);
        graph->setName(overlay.name);
        graph->setPen(QPen(overlay.colour, 2));
        graph->setLineStyle(QCPGraph::lsStepCenter);
        graph->setLayer(QStringLiteral("main"));
        graph->data()->set(data, true);
        m_overlayGraphs.push_back(graph);
        m_overlayBins.emplace_back(first, last);
    }
    xAxis->setRange(followRange(newestKey()));
    fitValueAxis();
}

void WaitHistogramPlot::showLiveSeries(bool visible)
{
    m_bars->setVisible(visible);
}

void WaitHistogramPlot::setShares(QCPBars *bars, const std::vector<std::int64_t> &counts,
                                  std::int64_t total)
{
    QVector<QCPBarsData> data;
    data.reserve(static_cast<qsizetype>(counts.size()));
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (counts[i] > 0)
            data.push_back(
                QCPBarsData(static_cast<double>(i),
                            100.0 * static_cast<double>(counts[i]) / static_cast<double>(total)));
    }
    bars->data()->set(data, true);
}

void WaitHistogramPlot::updateTicks(int step)
{
    // Bar i is centred on key i, so decade k's edge sits at key 10k - 0.5.
    m_tickStep = step;
    m_ticker->clear();
    for (int decade = 0; decade * kBinsPerDecade < kMaxBins; ++decade) {
        const double key = decade * kBinsPerDecade - 0.5;
        QString label;
        if (decade % step != 0)
            label.clear(); // a tick without a label: the neighbours' would touch it
        else if (decade < 3)
            label = tr("%1 µs").arg(std::pow(10.0, decade), 0, 'f', 0);
        else if (decade < 6)
            label = tr("%1 ms").arg(std::pow(10.0, decade - 3), 0, 'f', 0);
        else
            label = tr("%1 s").arg(std::pow(10.0, decade - 6), 0, 'f', 0);
        m_ticker->addTick(key, label);
    }
}

double WaitHistogramPlot::markerKey(const loaderlab::TraceMarker &) const
{
    // Off every axis: LivePlot hides a marker line and label outside the axis rect.
    return std::numeric_limits<double>::quiet_NaN();
}

QCPRange WaitHistogramPlot::followRange(double) const
{
    auto [first, last] = usedBins(m_counts);
    for (const auto &[overlayFirst, overlayLast] : m_overlayBins) {
        if (overlayLast < 0)
            continue;
        first = last >= 0 ? std::min(first, overlayFirst) : overlayFirst;
        last = std::max(last, overlayLast);
    }
    if (last < 0)
        return {-0.5, 3.0 * kBinsPerDecade - 0.5};
    // At least one decade wide, whole decades, so the labels stay readable.
    const int lowDecade = first / kBinsPerDecade;
    const int highDecade = std::max(last / kBinsPerDecade + 1, lowDecade + 1);
    return {lowDecade * kBinsPerDecade - 0.5, highDecade * kBinsPerDecade - 0.5};
}

double WaitHistogramPlot::newestKey() const
{
    return static_cast<double>(usedBins(m_counts).second);
}

} // namespace loaderlab
