#include "widgets/plots/worker_timeline_plot.h"

#include "widgets/plots/plot_units.h"
#include "widgets/plots/timeline_plottable.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace loaderlab {

namespace {

using plotunits::kNsPerS;
constexpr double kFollowLanesSeconds = 5.0;

// An empty plottable that only exists to give the legend a coloured square.
QCPBars *addLegendSwatch(QCustomPlot *plot, const QString &name, const QColor &color)
{
    auto *swatch = new QCPBars(plot->xAxis, plot->yAxis);
    swatch->setName(name);
    swatch->setPen(Qt::NoPen);
    swatch->setBrush(color);
    swatch->setSelectable(QCP::stNone);
    return swatch;
}

} // namespace

WorkerTimelinePlot::WorkerTimelinePlot(QWidget *parent)
    : LivePlot(parent)
{
    xAxis->setLabel(tr("time (s)"));
    m_laneTicker.reset(new QCPAxisTickerText);
    yAxis->setTicker(m_laneTicker);
    yAxis->grid()->setVisible(false);
    yAxis->setSubTicks(false);
    axisRect()->setRangeDrag(Qt::Horizontal);

    m_timeline = new TimelinePlottable(xAxis, yAxis);
    m_timeline->setObjectName(QStringLiteral("timelineLanes"));
    addLegendSwatch(this, tr("consumer waiting (lower half)"), TimelinePlottable::waitColor());
    addLegendSwatch(this, tr("consumer computing (upper half)"), TimelinePlottable::computeColor());
    m_syncSwatch = addLegendSwatch(this, tr("waiting for the slowest rank (lower half)"),
                                   TimelinePlottable::syncColor());
    m_exchangeSwatch = addLegendSwatch(this, tr("gradient exchange (upper half)"),
                                       TimelinePlottable::exchangeColor());

    // The legend goes below the plot: inside it would cover a lane.
    legend->setVisible(true);
    legend->setFont(QFont(font().family(), 8));
    // Three entries a row: with a data-parallel run's two more, a row of five would
    // make the window wider than a laptop's screen.
    legend->setWrap(3);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setBorderPen(Qt::NoPen);
    axisRect()->insetLayout()->take(legend);
    plotLayout()->addElement(1, 0, legend);
    plotLayout()->setRowStretchFactor(1, 0.001);

    m_hint = new QCPItemText(this);
    m_hint->setObjectName(QStringLiteral("timelineHint"));
    m_hint->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_hint->position->setCoords(0.5, 0.5);
    m_hint->setText(tr("A lane per worker appears here when a run starts: every batch is a box "
                       "in the lane\nof the worker that loads it, and the consumer's lane shows "
                       "when it waits and when it computes."));
    m_hint->setColor(QColor(90, 90, 90));
    m_hint->setFont(QFont(font().family(), 9));

    connect(xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this] {
        if (showOverlaysInTime())
            updateLanes();
    });
    connect(this, &QCustomPlot::beforeReplot, this, &WorkerTimelinePlot::labelLanes);
    updateLanes();
}

void WorkerTimelinePlot::appendData(const loaderlab::TraceLog &log, std::size_t, std::size_t)
{
    // clearData() gave the plottable this log; it keeps its own read position.
    Q_UNUSED(log)
    m_timeline->sync();
}

namespace {

// The data-parallel ranks of a run (RunConfig::devices), from its first config.
int ranksOf(const loaderlab::TraceLog *log)
{
    return log ? log->ranks() : 1;
}

// The most workers any config version of `log` had (0: the consumer loaded every
// batch), else `fallback`. The log decides: the window passes at least one worker,
// which would give a run without workers an empty "worker 0" lane instead of its
// "consumer (loads)" lane.
int workersOf(const loaderlab::TraceLog *log, int fallback)
{
    const std::vector<int> workers = log ? log->workersByVersion() : std::vector<int>{};
    return workers.empty() ? fallback : *std::max_element(workers.begin(), workers.end());
}

// "worker 1", or "rank 2 worker 1" in a data-parallel run.
QString workerLaneName(int rank, int ranks, int worker)
{
    const QString name = worker < 0 ? WorkerTimelinePlot::tr("consumer (loads)")
                                    : WorkerTimelinePlot::tr("worker %1").arg(worker);
    return ranks > 1 ? WorkerTimelinePlot::tr("rank %1 %2").arg(rank).arg(name) : name;
}

// Ticks for a timeline's loader lanes from `offset` up.
void addLoaderTicks(std::vector<WorkerTimelinePlot::LaneTick> &ticks,
                    const TimelinePlottable &timeline, double offset)
{
    const int workers = timeline.workerLanes();
    const int ranks = timeline.ranks();
    for (int r = 0; r < ranks; ++r) {
        if (workers == 0)
            ticks.push_back({offset + r, workerLaneName(r, ranks, -1), false});
        for (int w = 0; w < workers; ++w)
            ticks.push_back({offset + r * workers + w, workerLaneName(r, ranks, w), false});
    }
}

} // namespace

void WorkerTimelinePlot::clearData()
{
    m_timeline->setTrace(trace(), workersOf(trace(), numWorkers()), ranksOf(trace()));
    updateLanes();
}

void WorkerTimelinePlot::setWorkerLanes(int workers)
{
    // Lanes only grow: a run reconfigured to more workers re-indexes its trace once.
    if (!trace() || workers <= m_timeline->workerLanes())
        return;
    m_timeline->setTrace(trace(), workers, ranksOf(trace()));
    {
        const auto hold = trace()->hold();
        m_timeline->sync();
    }
    updateLanes();
    replot(QCustomPlot::rpQueuedReplot);
}

void WorkerTimelinePlot::updateLanes()
{
    // Overlays stack above the live run's lanes (which may have grown), or from the
    // bottom when the live run has none (no run yet, or unticked). An overlay with
    // nothing in the time shown (a kept run that ended before it) has none.
    const bool live = liveLanesShown();
    double base = live ? m_timeline->topLane() + 1.5 : 0.0;
    for (TimelinePlottable *overlay : m_overlayTimelines) {
        if (!overlay->visible())
            continue;
        overlay->setLaneOffset(base);
        base += overlay->topLane() + 1.5;
    }
    m_laneTicks.clear();
    bool ranks = false;
    if (live) {
        addLoaderTicks(m_laneTicks, *m_timeline, 0.0);
        const int n = m_timeline->ranks();
        for (int r = 0; r < n; ++r)
            m_laneTicks.push_back({static_cast<double>(m_timeline->consumerLane(r)),
                                   n > 1 ? tr("rank %1 consumer").arg(r) : tr("consumer"), r == 0});
        ranks = n > 1;
    }
    for (std::size_t i = 0; i < m_overlayTimelines.size(); ++i) {
        const TimelinePlottable *overlay = m_overlayTimelines[i];
        if (!overlay->visible())
            continue;
        const double offset = overlay->laneOffset();
        addLoaderTicks(m_laneTicks, *overlay, offset);
        const int n = overlay->ranks();
        for (int r = 0; r < n; ++r)
            m_laneTicks.push_back({offset + overlay->consumerLane(r),
                                   r == 0 ? overlays()[i].name : tr("rank %1").arg(r), r == 0});
        ranks = ranks || n > 1;
    }
    // The squares of synchronised steps only where a shown run has ranks.
    for (QCPBars *swatch : {m_syncSwatch, m_exchangeSwatch}) {
        if (ranks)
            swatch->addToLegend();
        else
            swatch->removeFromLegend();
    }
    m_hint->setVisible(!trace() && m_overlayTimelines.empty());
    // Every label until the next replot leaves out those that do not fit.
    m_laneTicker->clear();
    for (const LaneTick &tick : m_laneTicks)
        m_laneTicker->addTick(tick.key, tick.label);
    m_labelledLanes = -1.0;
    fitValueAxis();
}

bool WorkerTimelinePlot::showOverlaysInTime()
{
    // While the live run's lanes show, overlays with nothing in the time shown give
    // their lanes to it (5 s of a live run beside two ended ones: 8 px lanes).
    const double from = xAxis->range().lower;
    const bool live = liveLanesShown();
    bool changed = false;
    for (TimelinePlottable *overlay : m_overlayTimelines) {
        const bool inView = !live || overlay->newestSeconds() >= from;
        changed = changed || inView != overlay->visible();
        overlay->setVisible(inView);
    }
    return changed;
}

void WorkerTimelinePlot::labelLanes()
{
    // A label a line of text apart from the next, at the lanes' height: the run's own
    // names (its consumer lane) first, then as many workers' as fit between them.
    const double pixelsPerLane = axisRect()->height() / std::max(yAxis->range().size(), 1e-9);
    if (pixelsPerLane == m_labelledLanes)
        return;
    m_labelledLanes = pixelsPerLane;
    const double gap = QFontMetricsF(yAxis->tickLabelFont(), this).height();
    std::vector<double> placed;
    const auto fits = [&](double key) {
        return std::all_of(placed.begin(), placed.end(), [&](double other) {
            return std::abs(other - key) * pixelsPerLane >= gap;
        });
    };
    m_laneTicker->clear();
    for (const bool named : {true, false}) {
        for (const LaneTick &tick : m_laneTicks) {
            if (tick.named != named)
                continue;
            const bool shown = fits(tick.key);
            if (shown)
                placed.push_back(tick.key);
            m_laneTicker->addTick(tick.key, shown ? tick.label : QString());
        }
    }
}

QString WorkerTimelinePlot::laneName(double key) const
{
    for (const LaneTick &tick : m_laneTicks) {
        if (tick.key == key)
            return tick.label;
    }
    return {};
}

QStringList WorkerTimelinePlot::laneLabels() const
{
    QStringList labels;
    for (auto it = m_laneTicker->ticks().cbegin(); it != m_laneTicker->ticks().cend(); ++it) {
        if (!it.value().isEmpty())
            labels << it.value();
    }
    return labels;
}

bool WorkerTimelinePlot::liveLanesShown() const
{
    return trace() != nullptr && liveVisible();
}

QString WorkerTimelinePlot::hoverText(const QPointF &pos) const
{
    if (!axisRect()->rect().contains(pos.toPoint()))
        return {};
    const double seconds = xAxis->pixelToCoord(pos.x());
    const double lane = yAxis->pixelToCoord(pos.y());
    std::vector<std::pair<const TimelinePlottable *, QString>> shown;
    if (liveVisible())
        shown.emplace_back(m_timeline, QString());
    for (std::size_t i = 0; i < m_overlayTimelines.size(); ++i)
        shown.emplace_back(m_overlayTimelines[i], overlays()[i].name + QStringLiteral(": "));
    for (const auto &[timeline, prefix] : shown) {
        if (!timeline->visible())
            continue;
        const TimelineHit hit = timeline->hitAt(seconds, lane);
        if (!hit.found)
            continue;
        const double ms = static_cast<double>(hit.endNs - hit.startNs) / 1e6;
        const QString from = QString::number(static_cast<double>(hit.startNs) / 1e9, 'f', 3);
        const QString to = QString::number(static_cast<double>(hit.endNs) / 1e9, 'f', 3);
        const QString rank = timeline->ranks() > 1 ? tr("rank %1, ").arg(hit.rank) : QString();
        QString text;
        if (hit.consumer)
            text = rank
                   + (hit.synchronising
                          ? (hit.computing ? tr("batch %1: gradient exchange %2 ms (%3 to %4 s)")
                                           : tr("batch %1: waiting for the slowest rank %2 ms "
                                                "(%3 to %4 s)"))
                          : (hit.computing ? tr("batch %1: step %2 ms (%3 to %4 s)")
                                           : tr("batch %1: waiting %2 ms (%3 to %4 s)")))
                         .arg(hit.batch)
                         .arg(ms, 0, 'f', 2)
                         .arg(from, to);
        else
            text = tr("batch %1 on %2: loading %3 ms (%4 to %5 s)")
                       .arg(hit.batch)
                       .arg(rank + workerName(hit.worker))
                       .arg(ms, 0, 'f', 2)
                       .arg(from, to);
        if (hit.record && !hit.consumer
            && hit.record->readNs + hit.record->decodeNs + hit.record->transformNs > 0)
            text += QLatin1Char('\n')
                    + tr("read %1 ms, decode %2 ms, transform %3 ms (its samples together)")
                          .arg(static_cast<double>(hit.record->readNs) / 1e6, 0, 'f', 2)
                          .arg(static_cast<double>(hit.record->decodeNs) / 1e6, 0, 'f', 2)
                          .arg(static_cast<double>(hit.record->transformNs) / 1e6, 0, 'f', 2);
        return prefix + text;
    }
    return {};
}

double WorkerTimelinePlot::topLane() const
{
    for (auto it = m_overlayTimelines.rbegin(); it != m_overlayTimelines.rend(); ++it) {
        if ((*it)->visible())
            return (*it)->laneOffset() + (*it)->topLane();
    }
    return liveLanesShown() ? m_timeline->topLane() : -1.0;
}

void WorkerTimelinePlot::fitValueAxis()
{
    // With markers, a row of room above the top lane (the consumer's) for their
    // labels, which would otherwise cover its boxes.
    const double top = std::max(topLane(), 0.0) + 0.6;
    const double lanes = top + 0.6;
    const double height = axisRect()->height();
    const double labelRow = QFontMetricsF(markerLabelFont(), this).height() + 2.0;
    const double room = hasMarkerLabels() && height > 3 * labelRow
                            ? labelRow * lanes / (height - labelRow)
                            : 0.0;
    yAxis->setRange(-0.6, top + room);
}

void WorkerTimelinePlot::setOverlayData(const std::vector<PlotOverlay> &overlays)
{
    for (TimelinePlottable *overlay : m_overlayTimelines)
        removePlottable(overlay);
    m_overlayTimelines.clear();
    for (const PlotOverlay &overlay : overlays) {
        auto *timeline = new TimelinePlottable(xAxis, yAxis);
        timeline->setName(overlay.name);
        timeline->setTint(overlay.colour);
        timeline->setTrace(overlay.trace.get(), overlay.workers, ranksOf(overlay.trace.get()));
        {
            const auto hold = overlay.trace->hold();
            timeline->sync();
        }
        m_overlayTimelines.push_back(timeline);
    }
    showOverlaysInTime();
    updateLanes();
}

void WorkerTimelinePlot::showLiveSeries(bool visible)
{
    m_timeline->setVisible(visible);
    updateLanes(); // an unticked run leaves no empty lanes
}

double WorkerTimelinePlot::markerKey(const loaderlab::TraceMarker &marker) const
{
    return static_cast<double>(marker.timeNs) / kNsPerS;
}

QCPRange WorkerTimelinePlot::followRange(double newest) const
{
    return {std::max(0.0, newest - kFollowLanesSeconds), newest + kFollowLanesSeconds * 0.02};
}

double WorkerTimelinePlot::newestKey() const
{
    return m_timeline->newestSeconds();
}

} // namespace loaderlab
