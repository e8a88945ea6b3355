// The worker timeline's lanes are those of the runs shown: none before a run (a hint
// instead), a lane per worker and no "consumer (loads)" lane while there are workers,
// that lane alone for a run without workers (also when the window passes it one
// worker), and none for an unticked run. The batch colours stay clear of the
// consumer lane's waiting and computing colours.

#include "widgets/plots/timeline_plottable.h"
#include "widgets/plots/worker_timeline_plot.h"

#include "tests/support/test_main.h"
#include "tests/support/trace_time.h"
#include "tests/support/widget_child.h"

#include <QFontMetricsF>
#include <QtTest>

#include <array>
#include <cmath>
#include <memory>

using namespace loaderlab;

namespace {

using loaderlab::test::kMs;

// `count` batches of `workers` workers (a config version saying so when `versioned`),
// `stepMs` apart, each loaded in the 8 ms before its delivery.
std::shared_ptr<TraceLog> lanesLog(std::int64_t count, int workers, bool versioned = true,
                                   std::int64_t stepMs = 10)
{
    auto log = std::make_shared<TraceLog>();
    if (versioned) {
        RunConfig config;
        config.loader.numWorkers = workers;
        log->addConfigVersion({0, 0, 0, config});
    }
    for (std::int64_t i = 0; i < count; ++i) {
        TraceRecord r;
        r.index = i;
        r.worker = workers > 0 ? static_cast<std::int32_t>(i % workers) : kConsumerThread;
        r.requestNs = stepMs * kMs * i + kMs;
        r.deliveryNs = r.requestNs + 2 * kMs;
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.deliveryNs + 3 * kMs;
        WorkerSpan span{i, r.worker, 0, r.deliveryNs - 8 * kMs, r.deliveryNs};
        log->appendSpan(span);
        log->append(r);
    }
    return log;
}

// The lane names on the timeline's value axis, bottom up.
QStringList laneNames(const WorkerTimelinePlot &plot)
{
    auto *ticker = dynamic_cast<QCPAxisTickerText *>(plot.yAxis->ticker().data());
    return ticker ? QStringList(ticker->ticks().values()) : QStringList{QStringLiteral("?")};
}

// `count` batches of `workers` workers `stepMs` apart: a run of count x stepMs.
std::shared_ptr<TraceLog> longLog(std::int64_t count, int workers, std::int64_t stepMs)
{
    return lanesLog(count, workers, true, stepMs);
}

// CIE76 colour difference (sRGB, D65): about 2 is just noticeable; 40 is plainly
// another colour.
double colourDifference(const QColor &a, const QColor &b)
{
    const auto lab = [](const QColor &c) {
        const auto linear = [](double u) {
            return u > 0.04045 ? std::pow((u + 0.055) / 1.055, 2.4) : u / 12.92;
        };
        const double r = linear(c.redF()), g = linear(c.greenF()), bl = linear(c.blueF());
        const double x = (0.4124 * r + 0.3576 * g + 0.1805 * bl) / 0.95047;
        const double y = 0.2126 * r + 0.7152 * g + 0.0722 * bl;
        const double z = (0.0193 * r + 0.1192 * g + 0.9505 * bl) / 1.08883;
        const auto f = [](double t) {
            return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0;
        };
        return std::array<double, 3>{116.0 * f(y) - 16.0, 500.0 * (f(x) - f(y)),
                                     200.0 * (f(y) - f(z))};
    };
    const auto p = lab(a);
    const auto q = lab(b);
    return std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

} // namespace

class TestTimelineLanes : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void noRunNoLanes();
    void workersHaveNoConsumerLoadsLane();
    void noWorkersHasTheConsumerLoadsLane();
    void uncheckedRunsLeaveNoLanes();
    void batchColoursAreNotTheConsumersColours();
    void laneLabelsNeverTouch();
    void endedRunsGiveTheirLanesToTheLiveOne();
    void markerLabelsSitAboveTheConsumerLane();
};

void TestTimelineLanes::noRunNoLanes()
{
    // First start, and after Reset: no run, no lanes, and the hint says what will come.
    WorkerTimelinePlot plot;
    QCOMPARE(laneNames(plot), QStringList());
    QVERIFY(childNamed<QCPItemText>(&plot, "timelineHint")->visible());
    plot.setTrace(lanesLog(4, 2), 2);
    plot.refresh();
    QVERIFY(!childNamed<QCPItemText>(&plot, "timelineHint")->visible());
    plot.setTrace(nullptr, 1);
    QCOMPARE(laneNames(plot), QStringList());
    QVERIFY(childNamed<QCPItemText>(&plot, "timelineHint")->visible());
}

void TestTimelineLanes::workersHaveNoConsumerLoadsLane()
{
    WorkerTimelinePlot plot;
    plot.setTrace(lanesLog(10, 2), 2);
    plot.refresh();
    QCOMPARE(laneNames(plot), (QStringList{QStringLiteral("worker 0"), QStringLiteral("worker 1"),
                                           QStringLiteral("consumer")}));
    QVERIFY(plot.yAxis->range().contains(-0.4) && plot.yAxis->range().contains(2.4));
}

void TestTimelineLanes::noWorkersHasTheConsumerLoadsLane()
{
    // The window passes at least one worker; the run's config says 0: the consumer's
    // own loading gets its lane, with its boxes, and no empty "worker 0" lane shows.
    WorkerTimelinePlot plot;
    plot.setTrace(lanesLog(6, 0), 1);
    plot.refresh();
    QCOMPARE(laneNames(plot),
             (QStringList{QStringLiteral("consumer (loads)"), QStringLiteral("consumer")}));
    auto *lanes = childNamed<TimelinePlottable>(&plot, "timelineLanes");
    QCOMPARE(lanes->workerLanes(), 0);
    QCOMPARE(lanes->laneOf(kConsumerThread), 0);
    // A log without config versions (an old CSV) keeps the count it is given.
    plot.setTrace(lanesLog(6, 2, false), 2);
    plot.refresh();
    QCOMPARE(laneNames(plot).size(), 3);
    QVERIFY(!laneNames(plot).contains(QStringLiteral("consumer (loads)")));
}

void TestTimelineLanes::uncheckedRunsLeaveNoLanes()
{
    WorkerTimelinePlot plot;
    plot.setTrace(lanesLog(10, 2), 2);
    plot.refresh();
    plot.setOverlays({{lanesLog(10, 3), 3, QColor(230, 159, 0), QStringLiteral("kept")}});
    QCOMPARE(laneNames(plot).size(), 3 + 4);
    QCOMPARE(plot.overlayTimelines()[0]->laneOffset(), 3.5);

    // The live run unticked: the kept run's lanes move down to the bottom.
    plot.setLiveVisible(false);
    QCOMPARE(laneNames(plot), (QStringList{QStringLiteral("worker 0"), QStringLiteral("worker 1"),
                                           QStringLiteral("worker 2"), QStringLiteral("kept")}));
    QCOMPARE(plot.overlayTimelines()[0]->laneOffset(), 0.0);
    QVERIFY(plot.yAxis->range().upper < 4.0);
    QVERIFY(!childNamed<QCPItemText>(&plot, "timelineHint")->visible());
    // The kept run unticked too (the window passes only the ticked ones): nothing.
    plot.setOverlays({});
    QCOMPARE(laneNames(plot), QStringList());
    plot.setLiveVisible(true);
    QCOMPARE(laneNames(plot).size(), 3);
}

void TestTimelineLanes::batchColoursAreNotTheConsumersColours()
{
    const QColor wait = TimelinePlottable::waitColor();
    const QColor compute = TimelinePlottable::computeColor();
    QVERIFY(colourDifference(wait, compute) > 40.0);
    for (std::int64_t batch = 0; batch < 64; ++batch) {
        const QColor colour = TimelinePlottable::batchColor(batch);
        const QString name = QStringLiteral("batch %1: %2").arg(batch).arg(colour.name());
        QVERIFY2(colourDifference(colour, wait) >= 40.0, qPrintable(name));
        QVERIFY2(colourDifference(colour, compute) >= 40.0, qPrintable(name));
        // Batches side by side (W workers load W in a row) and every second one (the
        // next box of a lane with 2 workers) are told apart.
        QVERIFY2(colourDifference(colour, TimelinePlottable::batchColor(batch + 1)) >= 30.0,
                 qPrintable(name));
        QVERIFY2(colourDifference(colour, TimelinePlottable::batchColor(batch + 2)) >= 30.0,
                 qPrintable(name));
    }
}

void TestTimelineLanes::laneLabelsNeverTouch()
{
    // Three runs of 4 workers (15 lanes and two gaps) at 1280 x 800's timeline height:
    // every run's name shows, and no two labels are closer than a line of text.
    WorkerTimelinePlot plot;
    plot.resize(600, 190);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setTrace(longLog(40, 4, 10), 4);
    plot.refresh();
    plot.setOverlays({{longLog(40, 4, 10), 4, QColor(230, 159, 0), QStringLiteral("kept one")},
                      {longLog(40, 4, 10), 4, QColor(0, 158, 115), QStringLiteral("kept two")}});
    plot.replot();
    plot.replot(); // the labels fit the layout of the replot before
    const QStringList shown = plot.laneLabels();
    for (const char *name : {"consumer", "kept one", "kept two"})
        QVERIFY2(shown.contains(QLatin1String(name)), qPrintable(shown.join(QLatin1Char('|'))));
    QVERIFY2(shown.size() < 15, "some worker labels are left out at this height");
    const double gap = QFontMetricsF(plot.yAxis->tickLabelFont(), &plot).height();
    auto *ticker = dynamic_cast<QCPAxisTickerText *>(plot.yAxis->ticker().data());
    QVector<double> keys;
    for (auto it = ticker->ticks().cbegin(); it != ticker->ticks().cend(); ++it) {
        if (!it.value().isEmpty())
            keys << plot.yAxis->coordToPixel(it.key());
    }
    for (qsizetype i = 1; i < keys.size(); ++i)
        QVERIFY2(std::abs(keys[i] - keys[i - 1]) >= gap - 0.01,
                 qPrintable(QStringLiteral("%1 px apart, a line is %2")
                                .arg(std::abs(keys[i] - keys[i - 1]))
                                .arg(gap)));

    // Tall enough: every lane has its label again.
    plot.resize(600, 700);
    plot.replot();
    plot.replot();
    QCOMPARE(plot.laneLabels().size(), 15);
}

void TestTimelineLanes::endedRunsGiveTheirLanesToTheLiveOne()
{
    // A kept run of 0.4 s beside a live run of 12 s that the plot follows (its last
    // 5 s): the kept run has nothing in view and no lanes; the live run's lanes fill
    // the plot. Fit all shows both again.
    WorkerTimelinePlot plot;
    plot.resize(600, 190);
    plot.setTrace(longLog(1200, 2, 10), 2);
    plot.refresh();
    plot.setOverlays({{longLog(40, 3, 10), 3, QColor(230, 159, 0), QStringLiteral("kept")}});
    QVERIFY(plot.following());
    QVERIFY(plot.xAxis->range().lower > 0.4);
    QVERIFY(!plot.overlayTimelines()[0]->visible());
    QCOMPARE(laneNames(plot), (QStringList{QStringLiteral("worker 0"), QStringLiteral("worker 1"),
                                           QStringLiteral("consumer")}));
    QVERIFY(plot.yAxis->range().upper < 3.0);

    plot.showWholeRun();
    QVERIFY(plot.overlayTimelines()[0]->visible());
    QCOMPARE(laneNames(plot).size(), 3 + 4);
    QVERIFY(plot.yAxis->range().upper > 6.0);
}

void TestTimelineLanes::markerLabelsSitAboveTheConsumerLane()
{
    // An epoch's label along the plot's top is drawn above the consumer lane's boxes
    // (the top lane), not over them.
    WorkerTimelinePlot plot;
    plot.resize(600, 190);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    auto log = longLog(40, 2, 10);
    log->addMarker({20, 20 * 10 * kMs, MarkerKind::Epoch, 0, {}, "1"});
    plot.setTrace(log, 2);
    plot.setFollowing(false);
    plot.refresh();
    plot.showWholeRun();
    plot.replot();
    plot.replot();
    auto *lanes = childNamed<TimelinePlottable>(&plot, "timelineLanes");
    const double boxTop = plot.yAxis->coordToPixel(lanes->consumerLane() + 0.4);
    int labels = 0;
    for (QCPItemText *label : plot.findChildren<QCPItemText *>(QStringLiteral("markerLabel"))) {
        if (!label->visible())
            continue;
        ++labels;
        QVERIFY2(
            label->bottom->pixelPosition().y() <= boxTop + 0.5,
            qPrintable(QStringLiteral("label '%1' ends at %2 px, the consumer lane starts at %3")
                           .arg(label->text())
                           .arg(label->bottom->pixelPosition().y())
                           .arg(boxTop)));
    }
    QCOMPARE(labels, 1);
}

LOADERLAB_TEST_MAIN(TestTimelineLanes)
#include "test_timeline_lanes.moc"
