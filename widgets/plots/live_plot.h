#pragma once

// LivePlot: the base of every time-based plot. Plots read the run's TraceLog
// directly (it is append-only and safe to read while the run goes on) and append
// only what is new on each refresh, so a refresh costs what arrived since the last
// one. The base handles following the newest data, zoom/pan by the user (which
// stops following), reconfiguration markers, finished runs drawn over the live one
// for comparison (overlays, each in its colour) and export.

#include "core/trace/trace_log.h"

#include "widgets/plots/qcustomplot_include.h"

#include <QColor>
#include <QFont>
#include <QPointer>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace loaderlab {

// A finished run drawn over the live one: its trace, worker count, colour and name.
struct PlotOverlay
{
    std::shared_ptr<const loaderlab::TraceLog> trace;
    int workers = 0;
    QColor colour;
    QString name;
};

class LivePlot : public QCustomPlot
{
    Q_OBJECT

public:
    explicit LivePlot(QWidget *parent = nullptr);

    // Forgets all data; the next refresh starts from the beginning of `log`.
    void setTrace(std::shared_ptr<const loaderlab::TraceLog> log, int numWorkers);
    // Runs drawn with the live one for comparison, in their colours; empty removes them.
    void setOverlays(std::vector<PlotOverlay> overlays);
    const std::vector<PlotOverlay> &overlays() const { return m_overlays; }
    // Shows or hides the live run's own series (its checkbox in the run list).
    void setLiveVisible(bool visible);
    bool liveVisible() const { return m_liveVisible; }

    // Called by the window's refresh timer (~30 Hz): appends new data, updates the
    // markers, follows the newest data if following, and queues one replot.
    void refresh();

    bool following() const { return m_following; }
    void setFollowing(bool follow);
    // Stops following and shows every shown run whole (View → Fit all, key A; a
    // finished run looked at whole). Hidden runs take no room on the axes.
    void showWholeRun();

    // Stops following and puts `marker` (of the live run or a shown run) in the middle
    // of the key axis at the current zoom; plots without a time or batch axis stay.
    void centreOn(const loaderlab::TraceMarker &marker);

    // The hover readout: what the plot shows under `pos` (widget pixels), as the
    // tooltip that follows the mouse; empty where nothing is.
    virtual QString hoverText(const QPointF &pos) const;

    // Writes the plot as PNG, SVG or PDF (chosen by the suffix) atomically.
    // Returns false and sets `error` (naming the file) on failure.
    bool exportTo(const QString &path, int width, int height, QString *error);

Q_SIGNALS:
    void followingChanged(bool following);

protected:
    // Appends records [from, log.size()) and spans [spanFrom, log.spanCount()).
    virtual void appendData(const loaderlab::TraceLog &log, std::size_t from,
                            std::size_t spanFrom) = 0;
    virtual void clearData() = 0;
    // Draws the overlays (called once whenever they change).
    virtual void setOverlayData(const std::vector<PlotOverlay> &overlays) = 0;
    // Shows or hides the series of the live run.
    virtual void showLiveSeries(bool visible) = 0;
    // Where a marker sits on this plot's key axis (batch index or seconds).
    virtual double markerKey(const loaderlab::TraceMarker &marker) const = 0;
    // The key range shown while following, given the newest key.
    virtual QCPRange followRange(double newestKey) const;
    // The newest key on this plot.
    virtual double newestKey() const = 0;
    // Rescales the value axis to the data in view; default: rescale to all data.
    virtual void fitValueAxis();

    int numWorkers() const { return m_numWorkers; }
    // The live run has markers (epochs, events) with labels along the plot's top, in
    // this font (events upright, epochs italic).
    bool hasMarkerLabels() const { return m_liveVisible && !m_markerLabels.empty(); }
    QFont markerLabelFont() const { return QFont(font().family(), 8); }
    const loaderlab::TraceLog *trace() const { return m_trace.get(); }

    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;

    // Moves the legend out of the data, into a row above the axes, up to `perRow`
    // entries side by side: a legend inside would hide the newest batches or the
    // tallest bar. It never makes the plot wider than its place in the window.
    void placeLegendAbove(int perRow);

    // The record of batch `index` in `log` (the first rank's), if the log holds it.
    static std::optional<loaderlab::TraceRecord> recordOfBatch(const loaderlab::TraceLog &log,
                                                               std::int64_t index);
    // "worker 2", or "the consumer" for batches the consumer loaded itself.
    static QString workerName(std::int32_t worker);

private:
    void updateMarkers();
    // After each layout: marker labels that would overlap the one before collapse to
    // their short label ("#4", the events list's number; "e12" for epoch 12), or hide;
    // lines closer than 2 px to the one before hide. The hover readout names every
    // marker (markerTextNear).
    void layOutMarkerLabels();
    QString markerTextNear(double pixelX) const;
    // Fits the axes to the shown runs: the follow range while the live run is
    // followed and shown, else every shown series whole.
    void fitShownRuns();

    std::shared_ptr<const loaderlab::TraceLog> m_trace;
    std::vector<PlotOverlay> m_overlays;
    int m_numWorkers = 0;
    bool m_liveVisible = true;
    // The live run's legend entries taken out while it is unticked, to put back.
    std::vector<QPointer<QCPAbstractPlottable>> m_hiddenFromLegend;
    std::size_t m_recordsSeen = 0;
    std::size_t m_spansSeen = 0;
    std::size_t m_markersShown = 0;
    int m_markerNumber = 0; // the newest numbered marker's number (markertext::numbered)
    // Marker items a plot keeps (the newest); each is a line and a label.
    static constexpr std::size_t kMaxMarkerItems = 1000;
    struct MarkerLabel
    {
        QCPItemStraightLine *line;
        QCPItemText *label;
        QString text;
        QString number; // what the label shows where its text has no room
        QString hover;  // what the hover readout says
        double key;
        double textWidth;
        double numberWidth;
    };
    std::vector<MarkerLabel> m_markerLabels; // in the order the markers came
    bool m_following = true;
};

} // namespace loaderlab
