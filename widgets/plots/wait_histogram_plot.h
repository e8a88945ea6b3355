#pragma once

// WaitHistogramPlot: the distribution of the consumer's waits. Waits span many
// decades (a few microseconds when prefetch keeps up, seconds for the first batch),
// so bins are log-spaced, 10 per decade from 1 us up, and fixed: counts are kept
// incrementally and nothing is ever rebinned. Bars show the share of batches (%)
// so finished runs (overlays, drawn as outlines in their colours) and the growing
// live run compare directly.
//
// Markers (reconfigurations) have no place on a wait axis: this plot moves the
// base class's marker items onto a hidden layer, and markerKey() is meaningless.

#include "widgets/plots/live_plot.h"

#include <cstdint>
#include <vector>

namespace loaderlab {

class WaitHistogramPlot : public LivePlot
{
    Q_OBJECT

public:
    static constexpr int kBinsPerDecade = 10;
    static constexpr int kMaxBins = 13 * kBinsPerDecade; // 1 us .. 10^7 s

    explicit WaitHistogramPlot(QWidget *parent = nullptr);

    // Bin of a wait: 0 for waits up to 1 us, then 10 per decade.
    static int binOf(std::int64_t waitNs);
    // Lower edge of bin `bin`, in ms.
    static double binLowerMs(int bin);

    std::int64_t totalCount() const { return m_total; }
    const std::vector<std::int64_t> &counts() const { return m_counts; }
    // One outline (a step graph of the shares) per overlay, in its order and colour.
    const std::vector<QCPGraph *> &overlayGraphs() const { return m_overlayGraphs; }
    // The bin under the mouse: its wait range and each shown run's share of batches.
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
    static void setShares(QCPBars *bars, const std::vector<std::int64_t> &counts,
                          std::int64_t total);
    // A label every `step` decades (every decade keeps its tick).
    void updateTicks(int step);
    // After each layout: the smallest step at which the decade labels do not touch.
    void chooseTickStep();

    std::vector<QCPGraph *> m_overlayGraphs;
    QCPBars *m_bars = nullptr;
    QSharedPointer<QCPAxisTickerText> m_ticker;
    int m_tickStep = 0;
    std::vector<std::int64_t> m_counts;
    std::int64_t m_total = 0;
    // The overlays' first and last non-empty bins, for the key range.
    std::vector<std::pair<int, int>> m_overlayBins;
};

} // namespace loaderlab
