#include "widgets/what_if/what_if_plot.h"

#include "widgets/plots/integer_axis_ticker.h"

#include <algorithm>

namespace loaderlab {

namespace {

const QColor kPredicted(31, 119, 180);
const QColor kMeasured(214, 39, 40);

QCPGraph *namedGraph(QCustomPlot *plot, const char *name, const QString &label)
{
    QCPGraph *graph = plot->addGraph();
    graph->setObjectName(QString::fromLatin1(name));
    graph->setName(label);
    return graph;
}

} // namespace

WhatIfPlot::WhatIfPlot(QWidget *parent)
    : QCustomPlot(parent)
{
    xAxis->setLabel(tr("Workers"));
    yAxis->setLabel(tr("Samples/s"));
    xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new IntegerAxisTicker));
    for (QCPAxis *axis : {xAxis, yAxis}) {
        QFont font = axis->labelFont();
        font.setPointSizeF(font.pointSizeF() * 0.9);
        axis->setLabelFont(font);
    }

    m_predicted = namedGraph(this, "whatIfPredictedGraph", tr("predicted"));
    m_predicted->setPen(QPen(kPredicted, 2));
    m_predicted->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
    m_chosen = namedGraph(this, "whatIfChosenGraph", tr("chosen"));
    m_chosen->setLineStyle(QCPGraph::lsNone);
    m_chosen->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(kPredicted, 2), Qt::NoBrush, 12));
    m_measured = namedGraph(this, "whatIfMeasuredGraph", tr("measured (this run)"));
    m_measured->setLineStyle(QCPGraph::lsNone);
    m_measured->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(kMeasured, 1.5), kMeasured, 10));

    // The legend in a row below the plot: inside, it would cover the curve's top.
    legend->setVisible(true);
    legend->setFont(QFont(font().family(), 8));
    legend->setBorderPen(Qt::NoPen);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setWrap(3);
    legend->setIconSize(16, 12);
    axisRect()->insetLayout()->take(legend);
    plotLayout()->addElement(1, 0, legend);
    plotLayout()->setRowStretchFactor(1, 0.001);
    setMinimumSize(200, 170);
    clear();
}

void WhatIfPlot::clear()
{
    for (QCPGraph *graph : {m_predicted, m_measured, m_chosen})
        graph->data()->clear();
    xAxis->setRange(-0.5, 4.5);
    yAxis->setRange(0, 1);
    replot(rpQueuedReplot);
}

void WhatIfPlot::plot(const WhatIfOutcome &outcome, int measuredWorkers, double measured)
{
    QVector<double> x, y;
    double top = measured;
    for (const WhatIfCurvePoint &p : outcome.curve) {
        x << p.workers;
        y << p.samplesPerSecond;
        top = std::max(top, p.samplesPerSecond);
    }
    m_predicted->setData(x, y, true);
    m_chosen->setData({static_cast<double>(outcome.setting.workers)},
                      {outcome.prediction.samplesPerSecond}, true);
    top = std::max(top, outcome.prediction.samplesPerSecond);
    if (measured > 0.0)
        m_measured->setData({static_cast<double>(measuredWorkers)}, {measured}, true);
    else
        m_measured->data()->clear();
    const int last = std::max(
        {2 * std::max(1, outcome.setting.cores), outcome.setting.workers, measuredWorkers});
    xAxis->setRange(-0.5, last + 0.5);
    yAxis->setRange(0, top > 0.0 ? top * 1.12 : 1.0);
    replot(rpQueuedReplot);
}

} // namespace loaderlab
