#include "widgets/live_plot.h"

#include "widgets/marker_text.h"
#include "widgets/plot_export.h"

#include <algorithm>

namespace loaderlab {

LivePlot::LivePlot(QWidget *parent)
    : QCustomPlot(parent)
{
    // Dense series: no antialiasing, adaptive sampling stays on (QCPGraph default).
    setNotAntialiasedElements(QCP::aeAll);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    axisRect()->setRangeZoom(Qt::Horizontal);
    setNoAntialiasingOnDrag(true);
    setPlottingHint(QCP::phFastPolylines, true);
}

void LivePlot::setTrace(std::shared_ptr<const loaderlab::TraceLog> log, int workers)
{
    m_trace = std::move(log);
    m_numWorkers = workers;
    m_recordsSeen = 0;
    m_spansSeen = 0;
    m_markersShown = 0;
    for (auto *item : m_markerItems)
        removeItem(item);
    m_markerItems.clear();
    clearData();
    setFollowing(true);
    replot(QCustomPlot::rpQueuedReplot);
}

void LivePlot::setOverlays(std::vector<PlotOverlay> overlays)
{
    m_overlays = std::move(overlays);
    setOverlayData(m_overlays);
    replot(QCustomPlot::rpQueuedReplot);
}

void LivePlot::setLiveVisible(bool visible)
{
    m_liveVisible = visible;
    showLiveSeries(visible);
    replot(QCustomPlot::rpQueuedReplot);
}

void LivePlot::refresh()
{
    if (!m_trace)
        return;
    const std::size_t records = m_trace->size();
    const std::size_t spans = m_trace->spanCount();
    const bool grew = records != m_recordsSeen || spans != m_spansSeen;
    if (grew) {
        appendData(*m_trace, m_recordsSeen, m_spansSeen);
        m_recordsSeen = records;
        m_spansSeen = spans;
    }
    updateMarkers();
    if (grew && m_following) {
        xAxis->setRange(followRange(newestKey()));
        fitValueAxis();
    }
    if (grew)
        replot(QCustomPlot::rpQueuedReplot);
}

void LivePlot::setFollowing(bool follow)
{
    if (m_following == follow)
        return;
    m_following = follow;
    if (follow && m_trace) {
        xAxis->setRange(followRange(newestKey()));
        fitValueAxis();
        replot(QCustomPlot::rpQueuedReplot);
    }
    Q_EMIT followingChanged(follow);
}

void LivePlot::showWholeRun()
{
    setFollowing(false);
    xAxis->rescale();
    fitValueAxis();
    replot(QCustomPlot::rpQueuedReplot);
}

QCPRange LivePlot::followRange(double newest) const
{
    return {0.0, std::max(newest, 1.0) * 1.02};
}

void LivePlot::fitValueAxis()
{
    bool found = false;
    QCPRange range;
    for (int i = 0; i < plottableCount(); ++i) {
        if (!plottable(i)->visible())
            continue;
        const QCPRange r = plottable(i)->getValueRange(found, QCP::sdBoth, xAxis->range());
        if (found)
            range.expand(r);
    }
    yAxis->setRange(0.0, std::max(range.upper * 1.1, 1e-3));
}

void LivePlot::wheelEvent(QWheelEvent *event)
{
    setFollowing(false);
    QCustomPlot::wheelEvent(event);
}

void LivePlot::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton)
        setFollowing(false);
    QCustomPlot::mousePressEvent(event);
}

void LivePlot::updateMarkers()
{
    if (m_trace->markerCount() == m_markersShown)
        return;
    for (const auto &marker : m_trace->markers(m_markersShown)) {
        ++m_markersShown;
        const double key = markerKey(marker);
        auto *line = new QCPItemStraightLine(this);
        line->point1->setCoords(key, 0);
        line->point2->setCoords(key, 1);
        line->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashLine));
        auto *label = new QCPItemText(this);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(key, 0.02);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setText(markertext::marker(marker));
        label->setFont(QFont(font().family(), 8));
        label->setColor(QColor(80, 80, 80));
        label->setPadding(QMargins(3, 0, 0, 0));
        m_markerItems.push_back(line);
        m_markerItems.push_back(label);
    }
}

bool LivePlot::exportTo(const QString &path, int width, int height, QString *error)
{
    return exportPlot(this, path, width, height, error);
}

} // namespace loaderlab
