// The sweep's line plots on sweeps of known figures: speedup and efficiency along the
// swept number that is there (devices, else workers, else the first axis of numbers)
// whatever axes come before it; a sweep with no number to divide along says so on the
// plot instead of leaving it blank.

#include "widgets/experiments/sweep_line_plots.h"

#include "tests/support/test_main.h"

#include <QFontMetricsF>
#include <QtTest>

using namespace loaderlab;

namespace {

// A cell of the given axis values that ran once at `samplesPerS`.
SweepCellStats cellOf(std::int64_t grid, std::vector<nlohmann::json> values, double samplesPerS)
{
    SweepCellStats c;
    c.grid = grid;
    c.values = std::move(values);
    c.runs = 1;
    c.throughputMean = c.throughputMin = c.throughputMax = samplesPerS;
    c.endToEndMean = c.endToEndMin = c.endToEndMax = 1000.0 / samplesPerS;
    return c;
}

SweepDefinition definitionOf(std::vector<SweepAxis> axes)
{
    SweepDefinition d;
    d.axes = std::move(axes);
    return d;
}

SweepAnalysis handMadeAnalysis(const SweepDefinition &d, std::vector<SweepCellStats> cells)
{
    SweepAnalysis a;
    for (const SweepAxis &axis : d.axes)
        a.keys.push_back(axis.key);
    a.cells = std::move(cells);
    return a;
}

} // namespace

class TestSweepLinePlots : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void speedupAlongWorkersAfterAnEngineAxis();
    void anEngineAloneSaysWhyThePlotIsEmpty();
    void efficiencyPointsAreNotSpeedupPoints();
    void narrowPlotsKeepTheirTitlesAndLegendsWhole();
};

void TestSweepLinePlots::speedupAlongWorkersAfterAnEngineAxis()
{
    // The engine comes first: the speedup is still along the workers, one line per
    // engine (loaderlab 100 -> 180, pytorch 80 -> 120 samples/s).
    const SweepDefinition d = definitionOf(
        {{"engine", {"loaderlab", "pytorch"}}, {"loader.num_workers", {1, 2}}});
    const SweepAnalysis a = handMadeAnalysis(
        d, {cellOf(0, {"loaderlab", 1}, 100.0), cellOf(1, {"loaderlab", 2}, 180.0),
            cellOf(2, {"pytorch", 1}, 80.0), cellOf(3, {"pytorch", 2}, 120.0)});
    SweepLinePlots plots;
    plots.plotSweep(d, a, {});
    QCustomPlot *plot = plots.scalingPlot();
    QVERIFY2(plots.scalingNote().isEmpty(), qPrintable(plots.scalingNote()));
    QCOMPARE(plot->graphCount(), 4); // speedup and efficiency per engine
    QCOMPARE(plot->yAxis->graphs().size(), 2);
    std::map<QString, double> atTwo;
    for (QCPGraph *g : plot->yAxis->graphs()) {
        QCOMPARE(g->dataCount(), 2);
        QCOMPARE(g->data()->at(0)->key, 1.0);
        QCOMPARE(g->data()->at(0)->value, 1.0);
        atTwo[g->name()] = g->data()->at(1)->value;
    }
    QVERIFY2(atTwo.size() == 2, "one line per engine");
    QCOMPARE(atTwo.begin()->second, 1.8);  // "engine loaderlab"
    QCOMPARE(atTwo.rbegin()->second, 1.5); // "engine pytorch"
    QVERIFY(plot->xAxis->label().contains(QStringLiteral("orker")));
    for (QCPGraph *g : plot->yAxis2->graphs())
        QCOMPARE(g->data()->at(1)->value,
                 100.0 * atTwo[g->name().section(QStringLiteral(", efficiency"), 0, 0)] / 2.0);
}

void TestSweepLinePlots::anEngineAloneSaysWhyThePlotIsEmpty()
{
    const SweepDefinition d = definitionOf({{"engine", {"loaderlab", "pytorch"}}});
    const SweepAnalysis a = handMadeAnalysis(
        d, {cellOf(0, {"loaderlab"}, 100.0), cellOf(1, {"pytorch"}, 80.0)});
    SweepLinePlots plots;
    plots.plotSweep(d, a, {});
    QCOMPARE(plots.scalingPlot()->graphCount(), 0);
    const QString note = plots.scalingNote();
    QVERIFY2(note.contains(QStringLiteral("No speedup")), qPrintable(note));
    QVERIFY2(note.contains(QStringLiteral("engine"), Qt::CaseInsensitive), qPrintable(note));

    // A sweep of numbers again: the note goes.
    const SweepDefinition w = definitionOf({{"loader.num_workers", {1, 2}}});
    plots.plotSweep(w, handMadeAnalysis(w, {cellOf(0, {1}, 100.0), cellOf(1, {2}, 190.0)}), {});
    QVERIFY2(plots.scalingNote().isEmpty(), qPrintable(plots.scalingNote()));
    QCOMPARE(plots.scalingPlot()->graphCount(), 2);
}

void TestSweepLinePlots::efficiencyPointsAreNotSpeedupPoints()
{
    // 1 and 2 workers at 1.9x: speedup 1.9 and efficiency 95 % can meet on the
    // plot; their points differ (discs against squares) so the lines stay told apart.
    const SweepDefinition w = definitionOf({{"loader.num_workers", {1, 2}}});
    SweepLinePlots plots;
    plots.plotSweep(w, handMadeAnalysis(w, {cellOf(0, {1}, 100.0), cellOf(1, {2}, 190.0)}), {});
    QCustomPlot *plot = plots.scalingPlot();
    QCOMPARE(plot->yAxis->graphs().size(), 1);
    QCOMPARE(plot->yAxis2->graphs().size(), 1);
    const QCPScatterStyle solid = plot->yAxis->graphs().front()->scatterStyle();
    const QCPScatterStyle dashed = plot->yAxis2->graphs().front()->scatterStyle();
    QVERIFY(solid.shape() != dashed.shape());
    QCOMPARE(plot->yAxis2->graphs().front()->pen().style(), Qt::DashLine);
}

void TestSweepLinePlots::narrowPlotsKeepTheirTitlesAndLegendsWhole()
{
    // Three plots in 450 px (the Experiments tab at 1280 x 800): every legend entry
    // and every line of a title within its plot.
    const SweepDefinition d = definitionOf(
        {{"loader.num_workers", {1, 2, 4}}, {"loader.batch_size", {32, 128}}});
    std::vector<SweepCellStats> cells;
    std::int64_t grid = 0;
    for (const int workers : {1, 2, 4})
        for (const int batch : {32, 128})
            cells.push_back(cellOf(grid++, {workers, batch}, 100.0 * workers + batch));
    SweepLinePlots plots;
    plots.resize(450, 260);
    plots.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plots));
    plots.plotSweep(d, handMadeAnalysis(d, cells), {});
    for (QCustomPlot *plot : {plots.endToEndPlot(), plots.stepPlot(), plots.scalingPlot()}) {
        plot->replot();
        for (int i = 0; i < plot->legend->itemCount(); ++i) {
            // Its whole text: as wide as it needs, inside the plot.
            const QRect entry = plot->legend->item(i)->outerRect();
            const int needs = plot->legend->item(i)->minimumOuterSizeHint().width();
            QVERIFY2(entry.left() >= 0 && entry.right() <= plot->width() && entry.width() >= needs,
                     qPrintable(QStringLiteral("%1: legend entry %2 at %3..%4 (needs %5) in %6 px")
                                    .arg(plot->objectName())
                                    .arg(i)
                                    .arg(entry.left())
                                    .arg(entry.right())
                                    .arg(needs)
                                    .arg(plot->width())));
        }
        auto *title = qobject_cast<QCPTextElement *>(plot->plotLayout()->element(0, 0));
        QVERIFY(title);
        const QFontMetricsF metrics(title->font(), plot);
        for (const QString &line : title->text().split(QLatin1Char('\n')))
            QVERIFY2(metrics.horizontalAdvance(line) <= plot->width(),
                     qPrintable(QStringLiteral("%1: '%2'").arg(plot->objectName(), line)));
    }
}

LOADERLAB_TEST_MAIN(TestSweepLinePlots)
#include "test_sweep_line_plots.moc"
