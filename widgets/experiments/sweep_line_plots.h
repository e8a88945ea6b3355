#pragma once

// SweepLinePlots: a sweep's results as the research notes plot them, one line per
// combination of the other axes' values:
//   - end-to-end time along the workers axis (one line per batch size in a workers x
//     batch sweep);
//   - the model step per sample along the batch-size axis: the summary's mean step
//     per batch (compute_mean_ms) divided by the mean samples per batch, so the
//     amortisation of a step over a larger batch shows;
//   - speedup (solid, left axis) and efficiency (dashed, right axis, open squares) along
//     the devices when they are swept, else the workers, else the first axis of
//     numbers, from scalingAlong(); a sweep of an engine or dataset alone has none, and
//     the plot says so in its middle (scalingNote()).
// Without a workers (batch-size) axis, the first axis takes its place; values that are
// not numbers (a dataset kind) are spaced evenly and named on the axis.

#include "core/sweep/sweep_analysis.h"

#include "widgets/plots/qcustomplot_include.h"

#include <QWidget>

#include <map>
#include <vector>

namespace loaderlab {

class SweepLinePlots : public QWidget
{
    Q_OBJECT

public:
    explicit SweepLinePlots(QWidget *parent = nullptr);

    void plotSweep(const loaderlab::SweepDefinition &definition,
                   const loaderlab::SweepAnalysis &analysis,
                   const std::map<std::int64_t, loaderlab::SweepRecord> &records);

    QCustomPlot *endToEndPlot() const { return m_endToEnd; }
    QCustomPlot *stepPlot() const { return m_step; }
    QCustomPlot *scalingPlot() const { return m_scaling; }
    // Why the scaling plot has no line, as one line of text; empty when it has one.
    QString scalingNote() const;

protected:
    // Fits each plot's legend to its width when it is resized.
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void showScalingNote(const loaderlab::SweepDefinition &definition, int scalingAxis);

    QCustomPlot *m_endToEnd = nullptr;
    QCustomPlot *m_step = nullptr;
    QCustomPlot *m_scaling = nullptr;
    QCPItemText *m_scalingNote = nullptr;
};

} // namespace loaderlab
