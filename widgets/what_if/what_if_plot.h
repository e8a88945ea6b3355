#pragma once

// WhatIfPlot: the What if panel's plot (what_if_panel.h): predicted samples/s over the
// worker counts 0 .. 2 x cores of the chosen setting, the chosen worker count ringed,
// and the calibrated run's own measurement beside them, so predicted and measured
// read on one scale.

#include "widgets/plots/qcustomplot_include.h"
#include "widgets/what_if/what_if_prediction.h"

namespace loaderlab {

class WhatIfPlot : public QCustomPlot
{
    Q_OBJECT

public:
    explicit WhatIfPlot(QWidget *parent = nullptr);

    // `measuredWorkers`/`measured`: the calibrated run's worker count and samples/s.
    void plot(const loaderlab::WhatIfOutcome &outcome, int measuredWorkers, double measured);
    void clear();

private:
    QCPGraph *m_predicted = nullptr;
    QCPGraph *m_measured = nullptr;
    QCPGraph *m_chosen = nullptr;
};

} // namespace loaderlab
