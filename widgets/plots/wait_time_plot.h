#pragma once

// WaitTimePlot: how long the consumer waited for each batch, the point of the whole
// tool. Per batch it shows the wait, its rolling mean and the compute time, so an
// input-bound run (waits above compute) and a compute-bound one read at a glance;
// the first batch (worker start-up) is drawn apart because it is not steady state.

#include "widgets/plots/decimated_series.h"
#include "widgets/plots/live_plot.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace loaderlab {

class WaitTimePlot : public LivePlot
{
    Q_OBJECT

public:
    explicit WaitTimePlot(QWidget *parent = nullptr);

    // One wait graph per overlay, in the overlay's order and colour.
    const std::vector<QCPGraph *> &overlayGraphs() const { return m_overlayGraphs; }
    // Batches averaged by the rolling mean: 4 rounds of max(W, 1) batches.
    int meanWindow() const { return m_window; }
    // The batch under the mouse: its wait, step, worker and config version in each
    // shown run.
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

private:
    // After each layout (replot or export): gives each graph the level of detail
    // its view needs.
    void chooseDetail();
    // The first batch's label at its diamond, or at the top left with its wait when
    // the diamond is out of view.
    void placeFirstLabel();

    std::vector<QCPGraph *> m_overlayGraphs;
    std::vector<std::unique_ptr<DecimatedSeries>> m_overlaySeries;
    QCPGraph *m_compute = nullptr;
    QCPGraph *m_wait = nullptr;
    QCPGraph *m_mean = nullptr;
    QCPGraph *m_first = nullptr;
    QCPItemText *m_firstLabel = nullptr;
    // What the plot will show, until a run or an opened run gives it data.
    QCPItemText *m_hint = nullptr;
    void updateHint();
    DecimatedSeries m_computeSeries;
    DecimatedSeries m_waitSeries;
    DecimatedSeries m_meanSeries;

    // Rolling mean over the last m_window waits: a ring of waits in ns and their sum,
    // kept as integers so a million additions and removals never drift.
    int m_window = 4;
    std::vector<std::int64_t> m_ring;
    std::size_t m_ringCount = 0;
    std::int64_t m_ringSum = 0;
    double m_newest = 0.0;
};

} // namespace loaderlab
