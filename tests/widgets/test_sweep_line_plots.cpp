// The sweep's line plots on sweeps of known figures: speedup and efficiency along the
// swept number that is there (devices, else workers, else the first axis of numbers)
// whatever axes come before it; a sweep with no number to divide along says so on the
// plot instead of leaving it blank.

#include "widgets/experiments/sweep_line_plots.h"

#include "tests/support/test_main.h"

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

SweepAnalysis analysisOf(const SweepDefinition &d, std::vector<SweepCellStats> cells)
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
};

void TestSweepLinePlots::speedupAlongWorkersAfterAnEngineAxis()
{
    // The engine comes first: the speedup is still along the workers, one line per
    // engine (loaderlab 100 -> 180, pytorch 80 -> 120 samples/s).
    const SweepDefinition d = definitionOf({{"engine", {"loaderlab", "pytorch"}},
                                            {"loader.num_workers", {1, 2}}});
    const SweepAnalysis a = analysisOf(d, {cellOf(0, {"loaderlab", 1}, 100.0),
                                           cellOf(1, {"loaderlab", 2}, 180.0),
                                           cellOf(2, {"pytorch", 1}, 80.0),
                                           cellOf(3, {"pytorch", 2}, 120.0)});
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
    QCOMPARE(atTwo.begin()->second, 1.8);    // "engine loaderlab"
    QCOMPARE(atTwo.rbegin()->second, 1.5);   // "engine pytorch"
    QVERIFY(plot->xAxis->label().contains(QStringLiteral("orker")));
    for (QCPGraph *g : plot->yAxis2->graphs())
        QCOMPARE(g->data()->at(1)->value, 100.0 * atTwo[g->name().section(QStringLiteral(", efficiency"), 0, 0)] / 2.0);
}

void TestSweepLinePlots::anEngineAloneSaysWhyThePlotIsEmpty()
{
    const SweepDefinition d = definitionOf({{"engine", {"loaderlab", "pytorch"}}});
    const SweepAnalysis a =
        analysisOf(d, {cellOf(0, {"loaderlab"}, 100.0), cellOf(1, {"pytorch"}, 80.0)});
    SweepLinePlots plots;
    plots.plotSweep(d, a, {});
    QCOMPARE(plots.scalingPlot()->graphCount(), 0);
    const QString note = plots.scalingNote();
    QVERIFY2(note.contains(QStringLiteral("No speedup")), qPrintable(note));
    QVERIFY2(note.contains(QStringLiteral("engine"), Qt::CaseInsensitive), qPrintable(note));

    // A sweep of numbers again: the note goes.
    const SweepDefinition w = definitionOf({{"loader.num_workers", {1, 2}}});
    plots.plotSweep(w, analysisOf(w, {cellOf(0, {1}, 100.0), cellOf(1, {2}, 190.0)}), {});
    QVERIFY2(plots.scalingNote().isEmpty(), qPrintable(plots.scalingNote()));
    QCOMPARE(plots.scalingPlot()->graphCount(), 2);
}

void TestSweepLinePlots::efficiencyPointsAreNotSpeedupPoints()
{
    // 1 and 2 workers at 1.9x: speedup 1.9 and efficiency 95 % can meet on the
    // plot; their points differ (discs against squares) so the lines stay told apart.
    const SweepDefinition w = definitionOf({{"loader.num_workers", {1, 2}}});
    SweepLinePlots plots;
    plots.plotSweep(w, analysisOf(w, {cellOf(0, {1}, 100.0), cellOf(1, {2}, 190.0)}), {});
    QCustomPlot *plot = plots.scalingPlot();
    QCOMPARE(plot->yAxis->graphs().size(), 1);
    QCOMPARE(plot->yAxis2->graphs().size(), 1);
    const QCPScatterStyle solid = plot->yAxis->graphs().front()->scatterStyle();
    const QCPScatterStyle dashed = plot->yAxis2->graphs().front()->scatterStyle();
    QVERIFY(solid.shape() != dashed.shape());
    QCOMPARE(plot->yAxis2->graphs().front()->pen().style(), Qt::DashLine);
}

LOADERLAB_TEST_MAIN(TestSweepLinePlots)
#include "test_sweep_line_plots.moc"
