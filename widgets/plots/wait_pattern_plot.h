#pragma once

// WaitPatternPlot: the waits folded by their position in the round of W batches
// (W workers x ranks; see widgets/plots/wait_fold.h, which also puts the slowest position
// of each epoch first). After a few hundred batches the wait plot's period-W spikes
// are a dense comb whose alternation shows only zoomed in; here they stand as one
// tall position. Each position shows the last rounds' waits as faint dots (oldest
// left, newest right within the position), their median as a bold line and their
// 90th percentile dashed; a shown run drawn over the live one adds its median per
// position in its colour. The fold keeps only the last 200 rounds, and a new config
// version (workers changed live) starts it afresh.

#include "widgets/plots/live_plot.h"
#include "widgets/plots/wait_fold.h"

#include <vector>

namespace loaderlab {

class WaitPatternPlot : public LivePlot
{
    Q_OBJECT

public:
    explicit WaitPatternPlot(QWidget *parent = nullptr);

    // One median graph per overlay, in the overlay's order and colour.
    const std::vector<QCPGraph *> &overlayGraphs() const { return m_overlayGraphs; }
    // The position under the mouse: its median, p90 and rounds in each shown run, and
    // the worker that loaded its newest batch.
    QString hoverText(const QPointF &pos) const override;

protected:
    void appendData(const loaderlab::TraceLog &log, std::size_t from,
                    std::size_t spanFrom) override;
    void clearData() override;
    void setOverlayData(const std::vector<PlotOverlay> &overlays) override;
    void showLiveSeries(bool visible) override;
    // Markers (a time or a batch) have no place on a fold: they are not drawn.
    double markerKey(const loaderlab::TraceMarker &marker) const override;
    // The whole round, always: following shows every position.
    QCPRange followRange(double newestKey) const override;
    double newestKey() const override;
    // Up to the tallest median or p90 with room, not to a single start-up wait that
    // would flatten the pattern (the dots above are cut; dragging shows them).
    void fitValueAxis() override;

private:
    // Redraws the live run's dots, median and p90 from its fold.
    void showLiveFold();
    void updateLabels();
    // The most positions of the shown runs' folds.
    int shownRound() const;

    WaitFold m_live;
    std::vector<WaitFold> m_overlayFolds;
    std::vector<QCPGraph *> m_overlayGraphs;
    QCPGraph *m_dots = nullptr;
    QCPGraph *m_median = nullptr;
    QCPGraph *m_p90 = nullptr;
    QCPItemText *m_hint = nullptr;
};

} // namespace loaderlab
