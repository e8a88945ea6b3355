#pragma once

// WaitHistogramPlot: the distribution of the consumer's waits. Waits span many
// decades (a few microseconds when prefetch keeps up, seconds for the first batch),
// so bins are log-spaced, 10 per decade from 1 us up, and fixed: counts are kept
// incrementally and nothing is ever rebinned. Bars show the share of batches (%)
// so a finished reference run and the growing current run compare directly.
//
// Markers (reconfigurations) have no place on a wait axis: this plot moves the
// base class's marker items onto a hidden layer, and markerKey() is meaningless.

#include "widgets/live_plot.h"

#include <cstdint>
#include <vector>

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
    QCPBars *bars() const { return m_bars; }
    QCPBars *referenceBars() const { return m_referenceBars; }

protected:
    void appendData(const loaderlab::TraceLog &log, std::size_t from,
                    std::size_t spanFrom) override;
    void clearData() override;
    void setReferenceData(const loaderlab::TraceLog *reference) override;
    double markerKey(const loaderlab::TraceMarker &marker) const override;
    QCPRange followRange(double newestKey) const override;
    double newestKey() const override;

private:
    static void setShares(QCPBars *bars, const std::vector<std::int64_t> &counts,
                          std::int64_t total);
    void updateTicks();

    QCPBars *m_referenceBars = nullptr;
    QCPBars *m_bars = nullptr;
    QSharedPointer<QCPAxisTickerText> m_ticker;
    std::vector<std::int64_t> m_counts;
    std::int64_t m_total = 0;
    std::vector<std::int64_t> m_referenceCounts;
};
