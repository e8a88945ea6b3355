#include "widgets/plots/live_plot.h"

#include "widgets/common/marker_text.h"
#include "widgets/plots/plot_export.h"

#include <QFontMetricsF>
#include <QToolTip>

#include <algorithm>
#include <cmath>

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
    setMouseTracking(true); // the hover readout
    connect(this, &QCustomPlot::afterLayout, this, &LivePlot::layOutMarkerLabels);
}

void LivePlot::setTrace(std::shared_ptr<const loaderlab::TraceLog> log, int workers)
{
    m_trace = std::move(log);
    m_numWorkers = workers;
    m_recordsSeen = 0;
    m_spansSeen = 0;
    m_markersShown = 0;
    m_markerNumber = 0;
    for (const MarkerLabel &m : m_markerLabels) {
        removeItem(m.line);
        removeItem(m.label);
    }
    m_markerLabels.clear();
    clearData();
    setFollowing(true);
    replot(QCustomPlot::rpQueuedReplot);
}

void LivePlot::setOverlays(std::vector<PlotOverlay> overlays)
{
    m_overlays = std::move(overlays);
    setOverlayData(m_overlays);
    fitShownRuns();
}

void LivePlot::setLiveVisible(bool visible)
{
    if (m_liveVisible == visible)
        return;
    m_liveVisible = visible;
    showLiveSeries(visible);
    // An unticked run's series leave the legend too (an export would name them).
    if (!visible) {
        for (int i = 0; i < plottableCount(); ++i) {
            QCPAbstractPlottable *p = plottable(i);
            if (!p->visible() && legend->hasItemWithPlottable(p)) {
                p->removeFromLegend();
                m_hiddenFromLegend.push_back(p);
            }
        }
    } else {
        for (const QPointer<QCPAbstractPlottable> &p : m_hiddenFromLegend) {
            if (p)
                p->addToLegend();
        }
        m_hiddenFromLegend.clear();
    }
    fitShownRuns();
}

void LivePlot::fitShownRuns()
{
    // The axes follow what is shown: the newest batches of the live run while it is
    // followed and shown, else every shown run whole.
    if (m_following && m_liveVisible && m_trace) {
        xAxis->setRange(followRange(newestKey()));
        fitValueAxis();
    } else {
        xAxis->rescale(true); // the visible series only
        fitValueAxis();
    }
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
        // Batches the run has freed meanwhile (its log keeps the last N) are skipped.
        const auto hold = m_trace->hold();
        appendData(*m_trace, std::max(m_recordsSeen, m_trace->firstKept()),
                   std::max(m_spansSeen, m_trace->firstSpanKept()));
        m_recordsSeen = records;
        m_spansSeen = spans;
    }
    updateMarkers();
    if (grew && m_following && m_liveVisible) { // a hidden live run is not followed
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
    if (follow && m_trace)
        fitShownRuns();
    Q_EMIT followingChanged(follow);
}

void LivePlot::showWholeRun()
{
    setFollowing(false);
    fitShownRuns();
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

void LivePlot::mouseMoveEvent(QMouseEvent *event)
{
    QCustomPlot::mouseMoveEvent(event);
    if (event->buttons() != Qt::NoButton)
        return; // dragging
    QString text = markerTextNear(event->position().x());
    const QString data = hoverText(event->position());
    if (!data.isEmpty())
        text = text.isEmpty() ? data : text + QLatin1Char('\n') + data;
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void LivePlot::layOutMarkerLabels()
{
    // Left to right, each label gets its text where it ends before the next marker,
    // else its number (the text on hover); a marker whose place the label before
    // covers gets no label. No label starts before the one shown before has ended.
    constexpr double kGapPx = 4.0;
    if (!m_liveVisible) { // the markers are the live run's: hidden with it
        for (const MarkerLabel &m : m_markerLabels) {
            m.line->setVisible(false);
            m.label->setVisible(false);
        }
        return;
    }
    const QRect rect = axisRect()->rect();
    std::vector<double> xs(m_markerLabels.size());
    for (std::size_t i = 0; i < m_markerLabels.size(); ++i)
        xs[i] = xAxis->coordToPixel(m_markerLabels[i].key);
    double labelsEnd = -1e300; // right edge of the last label shown
    double lastLine = -1e300;
    double next = 1e300; // x of the next marker inside the axes
    std::vector<double> nextInside(xs.size(), 1e300);
    for (std::size_t i = xs.size(); i-- > 0;) {
        nextInside[i] = next;
        if (xs[i] >= rect.left() && xs[i] <= rect.right())
            next = xs[i];
    }
    for (std::size_t i = 0; i < m_markerLabels.size(); ++i) {
        const MarkerLabel &m = m_markerLabels[i];
        const double x = xs[i];
        const bool inside = x >= rect.left() && x <= rect.right();
        const bool lineShown = inside && x - lastLine >= 2.0;
        m.line->setVisible(lineShown);
        if (lineShown)
            lastLine = x;
        if (!inside || x < labelsEnd + kGapPx) {
            m.label->setVisible(false);
            continue;
        }
        const double room = std::min(nextInside[i] - kGapPx, static_cast<double>(rect.right()));
        if (x + m.textWidth <= room) {
            m.label->setText(m.text);
            labelsEnd = x + m.textWidth;
        } else {
            m.label->setText(m.number); // it may cover the next markers' places
            labelsEnd = x + m.numberWidth;
        }
        m.label->setVisible(true);
    }
}

QString LivePlot::markerTextNear(double pixelX) const
{
    QStringList texts;
    for (std::size_t i = 0; i < m_markerLabels.size() && texts.size() < 8 && m_liveVisible; ++i)
        if (std::abs(xAxis->coordToPixel(m_markerLabels[i].key) - pixelX) <= 3.0)
            texts << m_markerLabels[i].hover;
    return texts.join(QLatin1Char('\n'));
}

void LivePlot::placeLegendAbove(int perRow)
{
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, legend); // takes it out of the axis rect's insets
    plotLayout()->setRowStretchFactor(0, 0.001);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setWrap(perRow);
    // A set minimum width replaces the entries' sum as the legend's minimum, so the
    // plot's minimum size (and the window's) does not grow with long names.
    legend->setMinimumSize(60, 0);
    legend->setBorderPen(Qt::NoPen);
    legend->setMargins(QMargins(4, 2, 4, 0));
}

QString LivePlot::hoverText(const QPointF &) const
{
    return {};
}

std::optional<loaderlab::TraceRecord> LivePlot::recordOfBatch(const loaderlab::TraceLog &log,
                                                              std::int64_t index)
{
    // Batch numbers rise through the log (the ranks of a data-parallel run in turn).
    const auto hold = log.hold();
    std::size_t low = log.firstKept();
    std::size_t high = log.size();
    while (low < high) {
        const std::size_t mid = low + (high - low) / 2;
        if (log[mid].index < index)
            low = mid + 1;
        else
            high = mid;
    }
    if (low < log.size() && log[low].index == index)
        return log[low];
    return std::nullopt;
}

QString LivePlot::workerName(std::int32_t worker)
{
    return worker == loaderlab::kConsumerThread ? tr("the consumer") : tr("worker %1").arg(worker);
}

void LivePlot::updateMarkers()
{
    if (m_trace->markerCount() == m_markersShown)
        return;
    for (const auto &marker : m_trace->markers(m_markersShown, &m_markersShown)) {
        const double key = markerKey(marker);
        // Epochs are drawn lighter and dotted, so their lines and labels never read
        // as the numbered events (setting changes, pauses, autotuner moves).
        const bool event = markertext::numbered(marker);
        auto *line = new QCPItemStraightLine(this);
        line->point1->setCoords(key, 0);
        line->point2->setCoords(key, 1);
        line->setPen(event ? QPen(QColor(110, 110, 110), 1, Qt::DashLine)
                           : QPen(QColor(175, 175, 175), 1, Qt::DotLine));
        line->setObjectName(QStringLiteral("markerLine"));
        auto *label = new QCPItemText(this);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(key, 0.02);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setText(markertext::marker(marker));
        QFont labelFont = markerLabelFont();
        labelFont.setItalic(!event);
        label->setFont(labelFont);
        label->setColor(event ? QColor(60, 60, 60) : QColor(125, 125, 125));
        label->setPadding(QMargins(3, 0, 0, 0));
        label->setObjectName(QStringLiteral("markerLabel"));
        // Its widths with the text and as a short label, measured once (the layout
        // runs on every replot).
        const QFontMetricsF metrics(label->font());
        const double padding = label->padding().left() + label->padding().right();
        if (event)
            ++m_markerNumber;
        const QString number = markertext::shortLabel(marker, m_markerNumber);
        m_markerLabels.push_back({line, label, label->text(), number,
                                  markertext::numberedText(marker, m_markerNumber), key,
                                  metrics.horizontalAdvance(label->text()) + padding,
                                  metrics.horizontalAdvance(number) + padding});
    }
    // A run of tiny epochs marks every few batches: the oldest markers' items go, so
    // the plot's memory stays bounded (the run's log keeps its own markers).
    if (m_markerLabels.size() > kMaxMarkerItems) {
        const auto gone = static_cast<std::ptrdiff_t>(m_markerLabels.size()
                                                      - kMaxMarkerItems * 9 / 10);
        for (auto it = m_markerLabels.begin(); it != m_markerLabels.begin() + gone; ++it) {
            removeItem(it->line);
            removeItem(it->label);
        }
        m_markerLabels.erase(m_markerLabels.begin(), m_markerLabels.begin() + gone);
    }
}

void LivePlot::centreOn(const loaderlab::TraceMarker &marker)
{
    const double key = markerKey(marker);
    if (!std::isfinite(key))
        return; // a plot without a batch or time axis (the histogram, the pattern)
    setFollowing(false);
    const double half = xAxis->range().size() / 2.0;
    xAxis->setRange(key - half, key + half);
    fitValueAxis();
    replot(QCustomPlot::rpQueuedReplot);
}

bool LivePlot::exportTo(const QString &path, int width, int height, QString *error)
{
    return exportPlot(this, path, width, height, error);
}

} // namespace loaderlab
