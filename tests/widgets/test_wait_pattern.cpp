// The wait pattern plot folds a run's waits by position in the round of W batches:
// a known period-W pattern gives its median per position; each epoch (positions
// counted from its first batch) is turned so that its slowest position comes first,
// where one stands out, and a flat run is left as it is; a new config version starts
// the fold afresh with its own W; W = 0 is one position; only the last rounds are
// held however long the run; overlays add their median. Batch axes (this plot's and
// the wait plot's) tick on whole numbers.

#include "widgets/plots/wait_pattern_plot.h"
#include "widgets/plots/wait_time_plot.h"

#include "tests/support/graph_points.h"
#include "tests/support/test_main.h"
#include "tests/support/trace_time.h"
#include "tests/support/widget_child.h"

#include <QtTest>

#include <cmath>
#include <memory>
#include <vector>

using namespace loaderlab;

namespace {

using loaderlab::test::kMs;

// A run of W workers (config version 0), on `ranks` ranks.
std::shared_ptr<TraceLog> patternLog(int workers, int ranks = 1)
{
    auto log = std::make_shared<TraceLog>();
    RunConfig config;
    config.loader.numWorkers = workers;
    config.devices = ranks;
    log->addConfigVersion({0, 0, 0, config});
    return log;
}

// A live change to `workers` from the next batch on.
void reconfigure(TraceLog &log, std::int32_t version, int workers)
{
    RunConfig config;
    config.loader.numWorkers = workers;
    log.addConfigVersion({version, static_cast<std::int64_t>(log.size()), 0, config});
}

// Appends `count` batches of `version`, batch k waiting waitOf(k) ns, worker k % W.
template <class WaitOf>
void append(TraceLog &log, std::int64_t count, int workers, std::int32_t version, WaitOf waitOf,
            std::int64_t batchesPerEpoch = 1'000'000)
{
    std::int64_t t = log.size() > 0 ? log[log.size() - 1].computeEndNs : 0;
    for (std::int64_t n = 0; n < count; ++n) {
        TraceRecord r;
        r.index = static_cast<std::int64_t>(log.size());
        r.epoch = static_cast<std::int32_t>(r.index / batchesPerEpoch);
        r.configVersion = version;
        r.worker = workers > 0 ? static_cast<std::int32_t>(r.index % workers) : kConsumerThread;
        r.requestNs = t + kMs;
        r.deliveryNs = r.requestNs + waitOf(r.index);
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.deliveryNs + 2 * kMs;
        t = r.computeEndNs;
        log.append(r);
    }
}

void showPattern(LivePlot &plot, const std::shared_ptr<TraceLog> &log, int workers)
{
    plot.resize(600, 400);
    plot.setTrace(log, workers);
    plot.refresh();
    plot.replot();
}

QString hoverAt(const LivePlot &plot, double key)
{
    return plot.hoverText(
        {plot.xAxis->coordToPixel(key), plot.yAxis->coordToPixel(plot.yAxis->range().center())});
}

// The tick labels `axis` shows after a replot at its current range.
QStringList tickLabels(QCustomPlot &plot, QCPAxis *axis)
{
    plot.replot();
    const QVector<QString> labels = axis->tickVectorLabels();
    return QStringList(labels.begin(), labels.end());
}

} // namespace

class TestWaitPattern : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void foldsAPeriodicPattern();
    void eachEpochPutsItsSlowestPositionFirst();
    void aFlatRunKeepsItsPositions();
    void aNewConfigVersionStartsAfresh();
    void keepsOnlyTheLastRounds();
    void noWorkersIsOnePosition();
    void readsOnlyWhatARetainingLogHolds();
    void overlaysAddTheirMedian();
    void batchAxesTickOnWholeNumbers();
};

void TestWaitPattern::foldsAPeriodicPattern()
{
    // W = 3: every third batch waits 30 ms, the others 1 ms; 20 rounds.
    auto log = patternLog(3);
    const auto waitOf = [](std::int64_t k) { return k % 3 == 0 ? 30 * kMs : kMs; };
    append(*log, 30, 3, 0, waitOf);
    WaitPatternPlot plot;
    showPattern(plot, log, 3);
    QCOMPARE(keys(childNamed<QCPGraph>(&plot, "patternMedian")), (std::vector<double>{0, 1, 2}));
    QCOMPARE(values(childNamed<QCPGraph>(&plot, "patternMedian")), (std::vector<double>{30, 1, 1}));
    QCOMPARE(values(childNamed<QCPGraph>(&plot, "patternP90")), (std::vector<double>{30, 1, 1}));
    // Incrementally: 30 more batches, a dot each, in its position's slot.
    append(*log, 30, 3, 0, waitOf);
    plot.refresh();
    const QCPGraph *dots = childNamed<QCPGraph>(&plot, "patternDots");
    QCOMPARE(dots->dataCount(), 60);
    for (auto it = dots->data()->constBegin(); it != dots->data()->constEnd(); ++it) {
        const long position = std::lround(it->key);
        QVERIFY(std::abs(it->key - static_cast<double>(position)) < 0.5);
        QCOMPARE(it->value, position == 0 ? 30.0 : 1.0);
    }
    // The whole round in view, and the hover names the position's figures and worker.
    QCOMPARE(plot.xAxis->range().lower, -0.5);
    QCOMPARE(plot.xAxis->range().upper, 2.5);
    const QString hover = hoverAt(plot, 0.0);
    QVERIFY2(hover.contains(QStringLiteral("position 0 of 3: median 30.00 ms, p90 30.00 ms over "
                                           "the last 20 rounds")),
             qPrintable(hover));
    QVERIFY2(hover.contains(QStringLiteral("worker 0")), qPrintable(hover));
    QVERIFY(hoverAt(plot, 2.0).contains(QStringLiteral("median 1.00 ms")));
    QVERIFY(hoverAt(plot, 5.0).isEmpty());
}

void TestWaitPattern::eachEpochPutsItsSlowestPositionFirst()
{
    // Epochs of 10 batches, W = 3, each epoch handing its first batch to worker 0
    // again; epoch e's spike is on its batches e mod 3, e mod 3 + 3, ... (as on the
    // default dataset, where it is on the first position in some epochs and on the
    // second in others). A plain fold would showPattern every position spiky in a third of
    // the rounds, median 1 ms; aligned, the spike is position 0.
    auto log = patternLog(3);
    append(
        *log, 200, 3, 0,
        [](std::int64_t k) { return (k % 10) % 3 == (k / 10) % 3 ? 30 * kMs : kMs; }, 10);
    WaitPatternPlot plot;
    showPattern(plot, log, 3);
    QCOMPARE(values(childNamed<QCPGraph>(&plot, "patternMedian")), (std::vector<double>{30, 1, 1}));
    // The epoch's short last round (batch 9) is counted as from its first batch.
    QCOMPARE(childNamed<QCPGraph>(&plot, "patternDots")->dataCount(), 200);
}

void TestWaitPattern::aFlatRunKeepsItsPositions()
{
    // No position stands out (10, 10.25, 10.5 ms): nothing is turned, so no spike
    // appears at position 0 that the run does not have, and the positions stay those
    // counted from each epoch's first batch (epochs of 10 batches: batch mod 3 would
    // mix them).
    auto log = patternLog(3);
    append(
        *log, 240, 3, 0, [](std::int64_t k) { return 10 * kMs + (k % 10) % 3 * 250'000; }, 10);
    WaitPatternPlot plot;
    showPattern(plot, log, 3);
    QCOMPARE(values(childNamed<QCPGraph>(&plot, "patternMedian")),
             (std::vector<double>{10, 10.25, 10.5}));
}

void TestWaitPattern::aNewConfigVersionStartsAfresh()
{
    auto log = patternLog(3);
    append(*log, 30, 3, 0, [](std::int64_t k) { return k % 3 == 0 ? 30 * kMs : kMs; });
    WaitPatternPlot plot;
    showPattern(plot, log, 3);
    QCOMPARE(childNamed<QCPGraph>(&plot, "patternMedian")->dataCount(), 3);
    // Workers 3 -> 2 from batch 30 on: now every second batch (from 30) waits 20 ms.
    reconfigure(*log, 1, 2);
    append(*log, 40, 2, 1, [](std::int64_t k) { return (k - 30) % 2 == 0 ? 20 * kMs : kMs; });
    plot.refresh();
    QCOMPARE(values(childNamed<QCPGraph>(&plot, "patternMedian")), (std::vector<double>{20, 1}));
    QCOMPARE(childNamed<QCPGraph>(&plot, "patternDots")->dataCount(), 40); // version 1's only
    QCOMPARE(plot.xAxis->range().upper, 1.5);
    QVERIFY(hoverAt(plot, 1.0).contains(QStringLiteral("config version 1")));
}

void TestWaitPattern::keepsOnlyTheLastRounds()
{
    // 1,000 rounds of 2 workers; batch k waits k microseconds: the held ones are the
    // newest 200 rounds, whatever the run's length.
    auto log = patternLog(2);
    const auto waitOf = [](std::int64_t k) { return k * 1000; };
    WaitPatternPlot plot;
    showPattern(plot, log, 2);
    for (int part = 0; part < 10; ++part) {
        append(*log, 200, 2, 0, waitOf);
        plot.refresh();
    }
    const QCPGraph *dots = childNamed<QCPGraph>(&plot, "patternDots");
    QCOMPARE(dots->dataCount(), 2 * WaitFold::kRounds);
    bool found = false;
    QCOMPARE(dots->getValueRange(found).lower, 1600 * 1e-3);
    QCOMPARE(dots->getValueRange(found).upper, 1999 * 1e-3);
    QVERIFY2(hoverAt(plot, 1.0).contains(QStringLiteral("over the last 200 rounds")),
             qPrintable(hoverAt(plot, 1.0)));
    // The median of position 0: batches 1600, 1602, ..., 1998.
    QCOMPARE(values(childNamed<QCPGraph>(&plot, "patternMedian")).front(), 1.799);

    // A round of 500 positions keeps fewer rounds: WaitFold::kMaxWaits in all.
    auto wide = patternLog(250, 2);
    append(*wide, 50'000, 250, 0, waitOf);
    showPattern(plot, wide, 250);
    QCOMPARE(static_cast<std::size_t>(dots->dataCount()), WaitFold::kMaxWaits);
    QCOMPARE(plot.xAxis->range().upper, 499.5);
}

void TestWaitPattern::noWorkersIsOnePosition()
{
    // W = 0 (the consumer loads every batch); the window passes at least one worker.
    auto log = patternLog(0);
    append(*log, 25, 0, 0, [](std::int64_t k) { return (k % 5 + 1) * kMs; });
    WaitPatternPlot plot;
    showPattern(plot, log, 1);
    QCOMPARE(keys(childNamed<QCPGraph>(&plot, "patternMedian")), (std::vector<double>{0}));
    QCOMPARE(values(childNamed<QCPGraph>(&plot, "patternMedian")), (std::vector<double>{3}));
    QCOMPARE(childNamed<QCPGraph>(&plot, "patternDots")->dataCount(), 25);
    QVERIFY2(hoverAt(plot, 0.0).contains(QStringLiteral("the consumer")),
             qPrintable(hoverAt(plot, 0.0)));
}

void TestWaitPattern::readsOnlyWhatARetainingLogHolds()
{
    // A live run's log keeps its last batches only (RunSession's --keep-batches): the
    // fold, live or drawn over, reads only what the log still holds.
    auto log = std::make_shared<TraceLog>(10'000);
    RunConfig config;
    config.loader.numWorkers = 2;
    log->addConfigVersion({0, 0, 0, config});
    const auto waitOf = [](std::int64_t k) { return k % 2 == 1 ? 7 * kMs : kMs; };
    WaitPatternPlot plot;
    showPattern(plot, log, 2);
    append(*log, 30'000, 2, 0, waitOf); // more than the log holds, before a refresh
    plot.refresh();
    append(*log, 50'000, 2, 0, waitOf);
    plot.refresh();
    QVERIFY(log->firstKept() > 0);
    QCOMPARE(values(childNamed<QCPGraph>(&plot, "patternMedian")), (std::vector<double>{7, 1}));
    QCOMPARE(childNamed<QCPGraph>(&plot, "patternDots")->dataCount(), 2 * WaitFold::kRounds);

    WaitPatternPlot over;
    over.setOverlays({{log, 2, QColor(204, 121, 167), QStringLiteral("kept")}});
    QCOMPARE(values(over.overlayGraphs()[0]), (std::vector<double>{7, 1}));
}

void TestWaitPattern::overlaysAddTheirMedian()
{
    // An opened run of 4 workers whose pattern changed: its last version's last 200
    // rounds are folded (read from its tail, not its whole log).
    auto opened = patternLog(2);
    append(*opened, 600, 2, 0, [](std::int64_t) { return 50 * kMs; });
    reconfigure(*opened, 1, 4);
    append(*opened, 4000, 4, 1, [](std::int64_t k) { return (k - 600) % 4 == 1 ? 9 * kMs : kMs; });
    WaitPatternPlot plot;
    plot.resize(600, 400);
    plot.setOverlays({{opened, 4, QColor(204, 121, 167), QStringLiteral("opened")}});
    QCOMPARE(plot.overlayGraphs().size(), std::size_t(1));
    QCOMPARE(values(plot.overlayGraphs()[0]), (std::vector<double>{9, 1, 1, 1}));
    QCOMPARE(plot.overlayGraphs()[0]->pen().color(), QColor(204, 121, 167));
    QVERIFY(!childNamed<QCPItemText>(&plot, "patternHint")->visible());
    plot.showWholeRun();
    plot.replot();
    QVERIFY2(hoverAt(plot, 0.0).startsWith(QStringLiteral("opened: position 0 of 4: median 9.00 "
                                                          "ms, p90 9.00 ms over the last 200 "
                                                          "rounds")),
             qPrintable(hoverAt(plot, 0.0)));
    plot.setOverlays({});
    QVERIFY(childNamed<QCPItemText>(&plot, "patternHint")->visible());
}

void TestWaitPattern::batchAxesTickOnWholeNumbers()
{
    // 12 batches in view: QCustomPlot's own ticker steps by 2.5 there (0, 2.5, 5, 7.5).
    const auto whole = [](const QStringList &labels) {
        for (const QString &label : labels) {
            bool ok = false;
            label.toLongLong(&ok);
            if (!ok)
                return false;
        }
        return !labels.isEmpty();
    };
    auto log = patternLog(2);
    append(*log, 40, 2, 0, [](std::int64_t k) { return k % 2 ? kMs : 5 * kMs; });
    WaitTimePlot waits;
    showPattern(waits, log, 2);
    waits.setFollowing(false);
    for (const QCPRange &range : {QCPRange(-0.5, 11.5), QCPRange(3, 5), QCPRange(0, 35)}) {
        waits.xAxis->setRange(range);
        const QStringList labels = tickLabels(waits, waits.xAxis);
        QVERIFY2(whole(labels), qPrintable(labels.join(QLatin1Char(' '))));
    }
    // Sub-ticks on whole batches only.
    for (const QCPRange &range : {QCPRange(0, 6), QCPRange(0, 12), QCPRange(0, 60)}) {
        QVector<double> ticks;
        QVector<double> subTicks;
        waits.xAxis->ticker()->generate(range, QLocale::c(), QLatin1Char('g'), 6, ticks, &subTicks,
                                        nullptr);
        for (const double tick : ticks + subTicks)
            QCOMPARE(tick, std::round(tick));
    }

    auto wide = patternLog(12);
    append(*wide, 120, 12, 0, [](std::int64_t k) { return (k % 12 + 1) * kMs; });
    WaitPatternPlot pattern;
    showPattern(pattern, wide, 12);
    QCOMPARE(pattern.xAxis->range().upper, 11.5);
    const QStringList labels = tickLabels(pattern, pattern.xAxis);
    QVERIFY2(whole(labels), qPrintable(labels.join(QLatin1Char(' '))));
}

LOADERLAB_TEST_MAIN(TestWaitPattern)
#include "test_wait_pattern.moc"
