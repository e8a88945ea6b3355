#pragma once

// ThroughputPlot: samples/s over time. A single batch's rate is meaningless with W
// workers (one slow batch, then W-1 that were already waiting), so the rate is taken
// over rounds of max(W, 1) consecutive batches, as in RunSummary's median (W batches of
// every rank in a data-parallel run: W x ranks in the log): samples in the round /
// time from the round's first request to the next round's first request.
// A round is plotted once the next round's first batch is in the log, at the time
// the round's last batch finished computing. All rounds count (no warm-up cut), so
// the median line can differ slightly from the summary's.

#include "core/stats/quantile_sketch.h"

#include "widgets/plots/decimated_series.h"
#include "widgets/plots/live_plot.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace loaderlab {

class ThroughputPlot : public LivePlot
{
    Q_OBJECT

public:
    explicit ThroughputPlot(QWidget *parent = nullptr);

    // One rate graph per overlay, in the overlay's order and colour.
    const std::vector<QCPGraph *> &overlayGraphs() const { return m_overlayGraphs; }
    // Median over all rounds so far (0 when none).
    double median() const { return m_median.quantile(50.0); }
    // The round nearest the mouse on each shown series: its time and samples/s.
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
    static constexpr std::size_t kExactRounds = 4096;
    // Appends every complete round starting at record *roundStart to `out`.
    static void collectRounds(const loaderlab::TraceLog &log, int fallbackWorkers,
                              std::size_t *roundStart, QVector<QCPGraphData> *out);
    void updateMedianLine();
    // After each layout (replot or export): gives each graph the level of detail
    // its view needs.
    void chooseDetail();

    std::vector<QCPGraph *> m_overlayGraphs;
    std::vector<std::unique_ptr<DecimatedSeries>> m_overlaySeries;
    std::vector<QCPItemStraightLine *> m_overlayMedianLines;
    QCPGraph *m_rate = nullptr;
    QCPItemStraightLine *m_medianLine = nullptr;
    QCPItemText *m_medianLabel = nullptr;
    DecimatedSeries m_rateSeries;
    // Exact up to 4,096 rounds (read at every refresh that adds one), then within 0.5 %
    // in bounded memory, as the summary's.
    loaderlab::QuantileSketch m_median{kExactRounds};
    std::size_t m_roundStart = 0; // first record of the round not yet plotted
    double m_newest = 0.0;
};

} // namespace loaderlab
