#pragma once

// WorkerTimelinePlot: what every worker and the consumer were doing over time, one
// lane each, so idle workers, stalls and the consumer's waits line up visually.
// The boxes come from a TimelinePlottable that draws straight from the TraceLog.
// Overlaid runs get lanes of their own above the live run's, in their colour.
//
// Lanes are those of the runs shown: none before a run starts (a hint says what will
// come) and none for an unticked run, so no empty lane is left. A run's loader lanes
// are its workers; only a run without workers (W = 0, the consumer loads every batch
// itself) has a "consumer (loads)" lane instead. While the live run shows, a kept run
// with nothing in the time shown (it ended earlier) gives up its lanes, so following a
// live run beside ended ones keeps its lanes tall. Lane labels never touch: where lanes
// are thinner than a line of text, the runs' names stay and workers' labels thin out.

#include "widgets/plots/live_plot.h"

#include <vector>

namespace loaderlab {

class TimelinePlottable;

class WorkerTimelinePlot : public LivePlot
{
    Q_OBJECT

public:
    explicit WorkerTimelinePlot(QWidget *parent = nullptr);

    // Shows `workers` worker lanes if that is more than now (after a reconfiguration).
    void setWorkerLanes(int workers);

    // One per overlay, in the overlay's order.
    const std::vector<TimelinePlottable *> &overlayTimelines() const { return m_overlayTimelines; }
    // The lane labels drawn at the last replot, bottom up within each kind (the runs'
    // consumer lanes, then workers'); labels that would touch another are left out.
    QStringList laneLabels() const;
    // The name of the lane at `key` ("rank 1 worker 1"), drawn or not; empty for none.
    QString laneName(double key) const;

    struct LaneTick
    {
        double key = 0.0;
        QString label;
        bool named = false; // a run's first consumer lane: its name, labelled first
    };

    // The box under the mouse: the batch it belongs to, its worker, its time and the
    // stages its samples marked; on the consumer lane the batch's wait or step.
    QString hoverText(const QPointF &pos) const override;

protected:
    void appendData(const loaderlab::TraceLog &log, std::size_t from,
                    std::size_t spanFrom) override;
    void clearData() override;
    void setOverlayData(const std::vector<PlotOverlay> &overlays) override;
    void showLiveSeries(bool visible) override;
    double markerKey(const loaderlab::TraceMarker &marker) const override;
    QCPRange followRange(double newestKey) const override;
    double newestKey() const override;
    // Lanes are fixed; only time zooms.
    void fitValueAxis() override;

private:
    void updateLanes();
    // Hides the overlays with nothing in the time shown while the live run shows (their
    // lanes go; a hidden overlay has none), shows the others; true when one changed.
    bool showOverlaysInTime();
    // Picks the lane labels that fit, before a replot.
    void labelLanes();
    // Top of the highest lane, overlays included; -1 when no lane is shown.
    double topLane() const;
    // The live run has lanes: it has a trace and is ticked in the run list.
    bool liveLanesShown() const;

    TimelinePlottable *m_timeline = nullptr;
    // The legend's squares of data-parallel steps, shown while a shown run has ranks.
    QCPBars *m_syncSwatch = nullptr;
    QCPBars *m_exchangeSwatch = nullptr;
    std::vector<TimelinePlottable *> m_overlayTimelines;
    std::vector<LaneTick> m_laneTicks;
    double m_labelledLanes = -1.0; // pixels a lane at the last labelling
    QSharedPointer<QCPAxisTickerText> m_laneTicker;
    // What the plot will show, while no run has lanes here.
    QCPItemText *m_hint = nullptr;
};

} // namespace loaderlab
