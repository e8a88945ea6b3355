#pragma once

// StatsPanel: the figures a run is judged by (docs/metrics.md), shown as text next to
// the plots, with the input-bound share coloured by its band and the matching advice.
// Other runs' figures sit side by side in the run list's table (widgets/session/run_list_view.h).

#include "core/stats/run_summary.h"

#include <QColor>
#include <QWidget>

class QFormLayout;
class QLabel;

namespace loaderlab {

class StatsPanel : public QWidget
{
    Q_OBJECT

public:
    explicit StatsPanel(QWidget *parent = nullptr);

    // `oneRank`: a run of one rank to give a data-parallel run's scaling efficiency
    // against (a kept run, named `oneRankName`); none: no such row.
    void showSummary(const loaderlab::RunSummary &summary,
                     const loaderlab::RunSummary *oneRank = nullptr,
                     const QString &oneRankName = {});
    // Back to "no run yet".
    void clear();

    // Text colour of each input-bound band: green, amber, red; none (an invalid colour)
    // without a verdict (no samples, no model step).
    static QColor bandColour(loaderlab::InputBoundBand band);
    static QString bandText(loaderlab::InputBoundBand band);
    static QString adviceText(const loaderlab::RunSummary &summary);

private:
    // A value label in a new form row.
    QLabel *addRow(const QString &title, const char *objectName, const QString &toolTip);

    QLabel *m_samplesPerSecLabel = nullptr;
    QLabel *m_firstBatchLabel = nullptr;
    QLabel *m_waitPercentilesLabel = nullptr;
    QLabel *m_computeLabel = nullptr;
    QLabel *m_inputBoundLabel = nullptr;
    QLabel *m_adviceLabel = nullptr;
    QLabel *m_ranksLabel = nullptr;     // data-parallel runs only
    QLabel *m_timeSplitLabel = nullptr; // data-parallel runs only
    QLabel *m_scalingLabel = nullptr;   // data-parallel runs beside a kept one-rank run
    QLabel *m_replayLabel = nullptr;    // runs that replay their kept batches
    QLabel *m_peakMemoryLabel = nullptr;
    QLabel *m_countsLabel = nullptr;
    QLabel *m_skippedLabel = nullptr;
    QFormLayout *m_form = nullptr;
};

} // namespace loaderlab
