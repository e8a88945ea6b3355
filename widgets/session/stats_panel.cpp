#include "widgets/session/stats_panel.h"
#include "widgets/common/figure_text.h"

#include "core/stats/rank_time_split.h"
#include "core/stats/scaling_efficiency.h"

#include <QFormLayout>
#include <QLabel>

namespace loaderlab {

namespace {

const QString kNone = QStringLiteral("–");

using figuretext::number;

QString percent(double share)
{
    return number(share * 100.0) + QStringLiteral(" %");
}

QString colourStyle(const QColor &colour)
{
    return QStringLiteral("color: %1; font-weight: bold;").arg(colour.name());
}

} // namespace

StatsPanel::StatsPanel(QWidget *parent)
    : QWidget(parent)
{
    m_form = new QFormLayout(this);
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_samplesPerSecLabel = addRow(
        tr("Samples/s"), "samplesPerSecLabel",
        tr("Throughput after warm-up: mean over the run and median over rounds of "
           "one batch per worker."));
    m_computeLabel = addRow(tr("Per batch"), "computeLabel",
                            tr("Mean time the model step took per batch, next to the mean "
                               "time it waited for the batch: a step much longer than the "
                               "wait means the run is compute-bound, a wait comparable to "
                               "the step means it is input-bound. A model's host-to-device "
                               "copy is shown apart."));
    m_computeLabel->setWordWrap(true);
    m_firstBatchLabel = addRow(tr("First batch"), "firstBatchLabel",
                               tr("From start to the first delivered batch, worker start-up "
                                  "included."));
    m_waitPercentilesLabel = addRow(tr("Wait"), "waitPercentilesLabel",
                                    tr("How long the model waited for each batch after "
                                       "asking for it (percentiles after warm-up)."));
    m_waitPercentilesLabel->setWordWrap(true); // the longest line: let a narrow panel wrap it
    m_inputBoundLabel = addRow(tr("Input-bound"), "inputBoundLabel",
                               tr("Share of the run the model spent waiting for data: "
                                  "under 5 % fine, 5-20 % moderate, 20 % or more high."));
    m_ranksLabel = addRow(tr("Per device"), "ranksLabel",
                          tr("A data-parallel run: each rank's samples/s and input-bound share "
                             "(samples/s above is their total)."));
    m_ranksLabel->setWordWrap(true);
    m_form->setRowVisible(m_ranksLabel, false);
    m_timeSplitLabel = addRow(tr("Rank time"), "timeSplitLabel",
                              tr("Where the ranks' time went (their mean): the step, waiting for "
                                 "data, waiting for the slowest rank, and the gradient exchange; "
                                 "and the rank whose data loading was the most exposed, which "
                                 "every other rank waits for."));
    m_timeSplitLabel->setWordWrap(true);
    m_form->setRowVisible(m_timeSplitLabel, false);
    m_scalingLabel = addRow(tr("Scaling"), "scalingLabel",
                            tr("Against the newest kept run of one rank: the speedup, the "
                               "efficiency (speedup over the ranks), and the points below "
                               "linear that data, a slower step, the slowest rank, the exchange "
                               "and the rest each cost."));
    m_scalingLabel->setWordWrap(true);
    m_form->setRowVisible(m_scalingLabel, false);
    m_replayLabel = addRow(tr("Loading free"), "replayLabel",
                           tr("A run that replays its kept batches (Run > Start with loading "
                              "made free): the rate once loading costs nothing, beside the "
                              "rate while the loader fed the step, and the share of the job's "
                              "time that loading costs."));
    m_replayLabel->setWordWrap(true);
    m_form->setRowVisible(m_replayLabel, false);
    m_adviceLabel = new QLabel;
    m_adviceLabel->setObjectName(QStringLiteral("adviceLabel"));
    m_adviceLabel->setWordWrap(true);
    m_form->addRow(m_adviceLabel);
    m_peakMemoryLabel = addRow(tr("Peak memory"), "peakMemoryLabel",
                               tr("Highest memory use of a model step so far: the CUDA "
                                  "allocator's peak on a GPU, the process's peak resident "
                                  "set around the step on the CPU."));
    m_countsLabel = addRow(tr("Delivered"), "countsLabel",
                           tr("Batches and samples delivered to the model."));
    m_skippedLabel = addRow(tr("Skipped"), "skippedLabel",
                            tr("Samples left out because they could not be read or decoded."));
    clear();
}

QLabel *StatsPanel::addRow(const QString &title, const char *objectName, const QString &toolTip)
{
    auto *label = new QLabel;
    label->setObjectName(QString::fromLatin1(objectName));
    label->setToolTip(toolTip);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_form->addRow(title, label);
    return label;
}

void StatsPanel::showSummary(const loaderlab::RunSummary &summary,
                             const loaderlab::RunSummary *oneRank, const QString &oneRankName)
{
    m_samplesPerSecLabel->setText(
        tr("%1 mean, %2 median")
            .arg(number(summary.samplesPerSecMean), number(summary.samplesPerSecMedian)));
    m_firstBatchLabel->setText(tr("%1 ms").arg(number(summary.firstBatchLatencyMs)));
    m_waitPercentilesLabel->setText(
        tr("p50 %1, p95 %2, p99 %3, max %4 ms")
            .arg(number(summary.waitP50Ms, 2), number(summary.waitP95Ms, 2),
                 number(summary.waitP99Ms, 2), number(summary.waitMaxMs, 2)));
    QString perBatch = tr("step %1 ms, wait %2 ms (mean)")
                           .arg(number(summary.computeMeanMs, 2), number(summary.waitMeanMs, 2));
    if (summary.copyMeanMs > 0.0)
        perBatch += tr("; copy to device %1 ms").arg(number(summary.copyMeanMs, 2));
    m_computeLabel->setText(perBatch);
    m_peakMemoryLabel->setText(summary.peakMemoryBytes > 0 ? tr("%1 MiB").arg(
                                   number(static_cast<double>(summary.peakMemoryBytes) / 1048576.0))
                                                           : kNone);

    // A band is taken from the share itself so the colour, the text and the advice
    // always agree; no verdict (no samples, no model step) stays, uncoloured.
    loaderlab::RunSummary banded = summary;
    if (loaderlab::isShareBand(summary.band))
        banded.band = loaderlab::bandForShare(summary.inputBoundShare);
    m_inputBoundLabel->setText(
        tr("%1 (%2)").arg(percent(summary.inputBoundShare), bandText(banded.band)));
    const QColor colour = bandColour(banded.band);
    m_inputBoundLabel->setStyleSheet(colour.isValid() ? colourStyle(colour) : QString());
    m_adviceLabel->setText(adviceText(banded));
    QStringList ranks;
    for (const loaderlab::RankSummary &r : summary.ranks)
        ranks << tr("%1: %2/s, %3")
                     .arg(r.rank)
                     .arg(number(r.samplesPerSecMean), percent(r.inputBoundShare));
    m_ranksLabel->setText(ranks.join(QStringLiteral("; ")));
    m_form->setRowVisible(m_ranksLabel, !ranks.isEmpty());
    const loaderlab::RankTimeSplit split = loaderlab::rankTimeSplit(summary);
    if (split.known)
        m_timeSplitLabel->setText(tr("step %1, data %2, slowest rank %3, exchange %4; most "
                                     "exposed data loading: rank %5, %6 ms a step")
                                      .arg(percent(split.step), percent(split.data),
                                           percent(split.straggler), percent(split.exchange))
                                      .arg(split.worstDataRank)
                                      .arg(number(split.worstDataWaitMs)));
    m_form->setRowVisible(m_timeSplitLabel, split.known);
    const loaderlab::ScalingEfficiency scaling = oneRank != nullptr
                                                     ? loaderlab::scalingEfficiency(*oneRank,
                                                                                    summary)
                                                     : loaderlab::ScalingEfficiency{};
    if (scaling.known)
        m_scalingLabel->setText(
            tr("%1x with %2 ranks against \"%3\", efficiency %4; below linear: data %5, "
               "step %6, slowest rank %7, exchange %8, other %9 points")
                .arg(number(scaling.speedup, 2))
                .arg(scaling.ranks)
                .arg(oneRankName, percent(scaling.efficiency), number(scaling.dataLoss * 100.0),
                     number(scaling.stepLoss * 100.0), number(scaling.imbalanceLoss * 100.0),
                     number(scaling.communicationLoss * 100.0), number(scaling.otherLoss * 100.0)));
    m_form->setRowVisible(m_scalingLabel, scaling.known);
    const loaderlab::ReplaySummary &replay = summary.replay;
    if (replay.known())
        m_replayLabel->setText(
            tr("%1/s from batch %2, against %3/s while loading: loading "
               "costs %4 of the job's time")
                .arg(number(replay.replaySamplesPerSec))
                .arg(replay.firstBatch)
                .arg(number(replay.loadedSamplesPerSec), percent(replay.loadingShare)));
    else if (replay.firstBatch >= 0)
        m_replayLabel->setText(tr("replaying from batch %1; no rate while loading yet (keep "
                                  "more batches than the warm-up)")
                                   .arg(replay.firstBatch));
    m_form->setRowVisible(m_replayLabel, replay.firstBatch >= 0);

    m_countsLabel->setText(tr("%1 batches, %2 samples").arg(summary.batches).arg(summary.samples));
    m_skippedLabel->setText(QString::number(summary.skippedSamples));
    // Amber: skipped samples deserve a look even when the run went well.
    const QColor skippedColour = bandColour(loaderlab::InputBoundBand::Moderately);
    m_skippedLabel->setStyleSheet(summary.skippedSamples > 0 ? colourStyle(skippedColour)
                                                             : QString());
}

void StatsPanel::clear()
{
    for (QLabel *label :
         {m_samplesPerSecLabel, m_firstBatchLabel, m_waitPercentilesLabel, m_computeLabel,
          m_inputBoundLabel, m_peakMemoryLabel, m_countsLabel, m_skippedLabel, m_ranksLabel,
          m_timeSplitLabel, m_scalingLabel, m_replayLabel}) {
        label->setText(kNone);
        label->setStyleSheet(QString());
    }
    m_adviceLabel->clear();
    m_form->setRowVisible(m_ranksLabel, false);
    m_form->setRowVisible(m_timeSplitLabel, false);
    m_form->setRowVisible(m_scalingLabel, false);
    m_form->setRowVisible(m_replayLabel, false);
}

QColor StatsPanel::bandColour(loaderlab::InputBoundBand band)
{
    switch (band) {
    case loaderlab::InputBoundBand::NotInputBound:
        return QColor(0x2e, 0x7d, 0x32); // green
    case loaderlab::InputBoundBand::Moderately:
        return QColor(0xc7, 0x7c, 0x02); // amber, dark enough to read on white
    case loaderlab::InputBoundBand::Highly:
        return QColor(0xc6, 0x28, 0x28); // red
    case loaderlab::InputBoundBand::NoSamples:
    case loaderlab::InputBoundBand::NoStep:
        return {};
    }
    return {};
}

QString StatsPanel::adviceText(const loaderlab::RunSummary &summary)
{
    // The same advice as loaderlab::adviceFor, in the user's language.
    const QString share = QString::number(summary.inputBoundShare * 100.0, 'f', 0);
    switch (summary.band) {
    case loaderlab::InputBoundBand::NotInputBound:
        return tr("input-bound %1 %: the loader keeps up; the model step is the limit").arg(share);
    case loaderlab::InputBoundBand::Moderately:
        return tr("input-bound %1 %: a few more workers or a larger prefetch may help").arg(share);
    case loaderlab::InputBoundBand::Highly:
        return tr("input-bound %1 %: add workers or preprocess offline").arg(share);
    case loaderlab::InputBoundBand::NoSamples:
        if (summary.skippedSamples > 0)
            return tr("no sample was delivered (%1 skipped), so there is no input-bound verdict")
                .arg(summary.skippedSamples);
        return tr("no sample was delivered, so there is no input-bound verdict");
    case loaderlab::InputBoundBand::NoStep:
        return tr("no model step: the consumer waits for every batch by construction, so "
                  "samples/s is the loader's own rate; set a step (a simulated step or a model) "
                  "to see whether loading keeps up");
    }
    return {};
}

QString StatsPanel::bandText(loaderlab::InputBoundBand band)
{
    switch (band) {
    case loaderlab::InputBoundBand::NotInputBound:
        return tr("not input-bound");
    case loaderlab::InputBoundBand::Moderately:
        return tr("moderately input-bound");
    case loaderlab::InputBoundBand::Highly:
        return tr("highly input-bound");
    case loaderlab::InputBoundBand::NoSamples:
        return tr("no samples");
    case loaderlab::InputBoundBand::NoStep:
        return tr("no model step");
    }
    return {};
}

} // namespace loaderlab
