// WhatIfPanel's figures: the predicted samples/s, input-bound share, first batch,
// wait p95, wait period and the slowest rank's wait, and how an outcome fills them.

#include "core/stats/straggler.h"
#include "widgets/common/figure_text.h"
#include "widgets/common/form_helpers.h"
#include "widgets/what_if/what_if_panel.h"
#include "widgets/what_if/what_if_plot.h"

#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>

namespace loaderlab {

using figuretext::number;

QWidget *WhatIfPanel::buildFigures()
{
    // Two figures a row: the five are in view at once in a short side column.
    auto *group = new QGroupBox(tr("Predicted"));
    auto *grid = new QGridLayout(group);
    grid->setVerticalSpacing(2);
    int slot = 0;
    const auto add = [&](const QString &title, const char *name, const QString &toolTip) {
        auto *label = formhelpers::named(new QLabel, name, toolTip);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        // A long figure ("0.12 ms a step (1.36x)") wraps rather than widen the column
        // past a laptop screen's side panel.
        label->setWordWrap(true);
        auto *caption = new QLabel(title);
        caption->setWordWrap(true);
        caption->setToolTip(toolTip);
        const int row = slot / 2;
        const int column = slot % 2 * 2;
        grid->addWidget(caption, row, column);
        grid->addWidget(label, row, column + 1);
        ++slot;
        return label;
    };
    m_samplesPerSec = add(tr("Samples/s"), "whatIfSamplesPerSec",
                          tr("Predicted throughput after warm-up, all devices together."));
    m_inputBound = add(tr("Input-bound"), "whatIfInputBound",
                       tr("Share of the run the step spends waiting for data."));
    m_firstBatch = add(tr("First batch"), "whatIfFirstBatch",
                       tr("From the start to the first delivered batch, worker start-up "
                          "included."));
    m_waitP95 = add(tr("Wait p95"), "whatIfWaitP95",
                    tr("95th percentile of how long the step waits for its batch."));
    m_waitPeriod = add(tr("Wait period"), "whatIfWaitPeriod",
                       tr("Every how many batches a long wait comes back (the workers' round); "
                          "none when the waits are flat."));
    m_stragglers = add(tr("Slowest rank"), "whatIfStragglers",
                       tr("With several devices every step waits for the slowest rank's data: "
                          "the expected largest of that many of the run's own waits, taken as "
                          "independent draws, and how many times one rank's mean wait it is."));
    m_samplesPerSec->setStyleSheet(QStringLiteral("font-weight: bold"));
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);
    return group;
}

void WhatIfPanel::showOutcome(const WhatIfOutcome &outcome)
{
    if (!m_calibration)
        return;
    const Prediction &p = outcome.prediction;
    m_samplesPerSec->setText(number(p.samplesPerSecond));
    m_firstBatch->setText(tr("%1 ms").arg(number(p.firstBatchSeconds * 1e3)));
    m_waitP95->setText(tr("%1 ms").arg(number(p.waitP95Seconds * 1e3, 2)));
    m_inputBound->setText(tr("%1 %").arg(number(p.inputBoundShare * 100.0, 0)));
    m_waitPeriod->setText(
        p.dominantWaitPeriod > 1 ? tr("every %1 batches").arg(p.dominantWaitPeriod) : tr("none"));
    const Calibration &cal = m_calibration->calibration;
    const int devices = inputs().devices * inputs().nodes; // the ranks the step waits for
    if (devices > 1 && !cal.stepWaitSeconds.empty()) {
        const StragglerFigure f = stragglerAmplification(cal.stepWaitSeconds, {devices}).front();
        m_stragglers->setText(tr("%1 ms a step (%2x)")
                                  .arg(number(f.slowestWait * 1e3, 2))
                                  .arg(number(f.amplification, 2)));
    } else {
        m_stragglers->setText(QStringLiteral("–"));
    }
    m_plot->plot(outcome, cal.config.loader.numWorkers, m_calibration->measuredSamplesPerSecond);
    if (m_status->property("error").toBool())
        showMessage(m_calibrationStatus, false);
}

void WhatIfPanel::clearFigures(bool calibration)
{
    for (QLabel *label :
         {m_samplesPerSec, m_firstBatch, m_waitP95, m_inputBound, m_waitPeriod, m_stragglers})
        label->setText(QStringLiteral("–"));
    m_plot->clear();
    if (calibration)
        m_selfError->clear();
}

} // namespace loaderlab
