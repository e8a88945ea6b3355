#pragma once

// WorkerTimelinePlot: what every worker and the consumer were doing over time, one
// lane each, so idle workers, stalls and the consumer's waits line up visually.
// The boxes come from a TimelinePlottable that draws straight from the TraceLog.

#include "widgets/live_plot.h"

class TimelinePlottable;

class WorkerTimelinePlot : public LivePlot
{
    Q_OBJECT

public:
    explicit WorkerTimelinePlot(QWidget *parent = nullptr);

    // Shows `workers` worker lanes if that is more than now (after a reconfiguration).
    void setWorkerLanes(int workers);

    TimelinePlottable *timeline() const { return m_timeline; }

protected:
    void appendData(const loaderlab::TraceLog &log, std::size_t from,
                    std::size_t spanFrom) override;
    void clearData() override;
    double markerKey(const loaderlab::TraceMarker &marker) const override;
    QCPRange followRange(double newestKey) const override;
    double newestKey() const override;
    // Lanes are fixed; only time zooms.
    void fitValueAxis() override;

private:
    void updateLanes();

    TimelinePlottable *m_timeline = nullptr;
    QSharedPointer<QCPAxisTickerText> m_laneTicker;
};
