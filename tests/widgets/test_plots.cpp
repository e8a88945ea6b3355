// Live plots: every plot turns a hand-built TraceLog into exactly the points, bins,
// boxes and markers it should, incrementally, and exports atomically; the export
// dialog writes every format or stops at the first failure.

#include "widgets/plots/decimated_series.h"
#include "widgets/plots/plot_export.h"
#include "widgets/plots/throughput_plot.h"
#include "widgets/plots/timeline_plottable.h"
#include "widgets/plots/wait_histogram_plot.h"
#include "widgets/plots/wait_time_plot.h"
#include "widgets/plots/worker_timeline_plot.h"

#include "tests/support/graph_points.h"
#include "tests/support/modal_answer.h"
#include "tests/support/test_main.h"
#include "tests/support/trace_time.h"
#include "tests/support/widget_child.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QLineEdit>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

using namespace loaderlab;

namespace {

using loaderlab::test::kMs;
constexpr std::int64_t kComputeNs = 5 * kMs;
constexpr std::int64_t kLoadNs = 12 * kMs;

// Wait of batch i: a long first batch, then alternating short and long.
std::int64_t waitOf(std::int64_t i)
{
    if (i == 0)
        return 30 * kMs;
    if (i == 54'321)
        return 99 * kMs; // one spike in a long run
    return i % 2 ? 1'500'000 : 4'250'000;
}

std::int32_t samplesOf(std::int64_t i)
{
    return i % 3 == 2 ? 20 : 32;
}

// Appends batches [log.size(), count) of a sequential consumer with W workers:
// request(i + 1) = computeEnd(i); worker i % W builds batch i in a span ending at its
// delivery.
void appendPlotBatches(TraceLog &log, std::int64_t count, int workers)
{
    std::int64_t request = kMs;
    if (log.size() > 0)
        request = log[log.size() - 1].computeEndNs;
    for (auto i = static_cast<std::int64_t>(log.size()); i < count; ++i) {
        TraceRecord r;
        r.index = i;
        r.worker = workers > 0 ? static_cast<std::int32_t>(i % workers) : kConsumerThread;
        r.samples = samplesOf(i);
        r.requestNs = request;
        r.deliveryNs = request + waitOf(i);
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.deliveryNs + kComputeNs;
        WorkerSpan span;
        span.batch = i;
        span.worker = r.worker;
        span.endNs = r.deliveryNs;
        span.startNs = std::max<std::int64_t>(0, r.deliveryNs - kLoadNs);
        log.appendSpan(span);
        log.append(r);
        request = r.computeEndNs;
    }
}

std::shared_ptr<TraceLog> makeLog(std::int64_t count, int workers)
{
    auto log = std::make_shared<TraceLog>();
    appendPlotBatches(*log, count, workers);
    return log;
}

// Round rates exactly as defined in run_summary.h, over complete rounds only.
std::vector<double> roundRates(const TraceLog &log, std::size_t round)
{
    std::vector<double> rates;
    for (std::size_t start = 0; start + round < log.size(); start += round) {
        double samples = 0;
        for (std::size_t k = start; k < start + round; ++k)
            samples += log[k].samples;
        const double seconds =
            static_cast<double>(log[start + round].requestNs - log[start].requestNs) / 1e9;
        rates.push_back(samples / seconds);
    }
    return rates;
}

// Marker lines the base class drew at `key`.
int markerLinesAt(QCustomPlot &plot, double key)
{
    int found = 0;
    for (int i = 0; i < plot.itemCount(); ++i) {
        auto *line = qobject_cast<QCPItemStraightLine *>(plot.item(i));
        if (line && qFuzzyCompare(line->point1->key(), key)
            && qFuzzyCompare(line->point2->key(), key))
            ++found;
    }
    return found;
}

bool hasText(QCustomPlot &plot, const QString &text)
{
    for (int i = 0; i < plot.itemCount(); ++i) {
        auto *label = qobject_cast<QCPItemText *>(plot.item(i));
        if (label && label->text() == text)
            return true;
    }
    return false;
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

bool isWhite(QRgb pixel)
{
    return qRed(pixel) > 245 && qGreen(pixel) > 245 && qBlue(pixel) > 245;
}

} // namespace

class TestPlots : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void waitGraphHasOnePointPerBatch();
    void rollingMeanMatchesIndependentMean();
    void firstBatchIsDrawnApart();
    void incrementalRefreshAddsOnlyNewPoints();
    void followingShowsTheLast200Batches();
    void zoomedOutGraphsKeepSpikes();
    void decimationIsIncremental();
    void newTraceClearsData();
    void overlaysDrawnInTheirColours();
    void markersSitAtTheirKeys();
    void throughputIsRateOverRounds();
    void throughputCarriesPartialRounds();
    void histogramBinsAreLogSpaced();
    void histogramCountsEveryBatch();
    void timelineKeyRangeCoversSpans();
    void timelineDrawsBatchColours();
    void timelineGivesEachRankItsConsumerLane();
    void timelineDrawsZoomedOut();
    void timelineWithoutWorkers();
    void exportWritesEachFormat();
    void exportFailureKeepsGoodFile();
    void exportDialogWritesEachFormatOrStopsAtAFailure();
};

void TestPlots::waitGraphHasOnePointPerBatch()
{
    WaitTimePlot plot;
    plot.setTrace(makeLog(10, 2), 2);
    plot.refresh();
    QCOMPARE(childNamed<QCPGraph>(&plot, "waitGraph")->dataCount(), 10);
    QCOMPARE(childNamed<QCPGraph>(&plot, "computeGraph")->dataCount(), 10);
    const std::vector<double> waits = values(childNamed<QCPGraph>(&plot, "waitGraph"));
    const std::vector<double> batch = keys(childNamed<QCPGraph>(&plot, "waitGraph"));
    for (std::int64_t i = 0; i < 10; ++i) {
        const auto at = static_cast<std::size_t>(i);
        QCOMPARE(batch[at], static_cast<double>(i));
        QCOMPARE(waits[at], static_cast<double>(waitOf(i)) / 1e6);
        QCOMPARE(values(childNamed<QCPGraph>(&plot, "computeGraph"))[at], 5.0);
    }
}

void TestPlots::rollingMeanMatchesIndependentMean()
{
    WaitTimePlot plot;
    plot.setTrace(makeLog(20, 2), 2);
    plot.refresh();
    QCOMPARE(plot.meanWindow(), 8);
    const std::vector<double> means = values(childNamed<QCPGraph>(&plot, "meanGraph"));
    QCOMPARE(means.size(), std::size_t(20));
    auto meanOf = [](std::int64_t from, std::int64_t to) {
        double sum = 0;
        for (std::int64_t i = from; i <= to; ++i)
            sum += static_cast<double>(waitOf(i)) / 1e6;
        return sum / static_cast<double>(to - from + 1);
    };
    // A partial window averages what there is; a full one the last 8 waits.
    QVERIFY(qFuzzyCompare(means[3], meanOf(0, 3)));
    QVERIFY(qFuzzyCompare(means[7], meanOf(0, 7)));
    QVERIFY(qFuzzyCompare(means[8], meanOf(1, 8)));
    QVERIFY(qFuzzyCompare(means[19], meanOf(12, 19)));
}

void TestPlots::firstBatchIsDrawnApart()
{
    WaitTimePlot plot;
    plot.setTrace(makeLog(6, 2), 2);
    plot.refresh();
    QCOMPARE(childNamed<QCPGraph>(&plot, "firstBatchGraph")->dataCount(), 1);
    QCOMPARE(childNamed<QCPGraph>(&plot, "firstBatchGraph")->data()->constBegin()->key, 0.0);
    QCOMPARE(childNamed<QCPGraph>(&plot, "firstBatchGraph")->data()->constBegin()->value, 30.0);
    QCOMPARE(childNamed<QCPGraph>(&plot, "firstBatchGraph")->scatterStyle().shape(),
             QCPScatterStyle::ssDiamond);
    QVERIFY(hasText(plot, QStringLiteral("first batch")));
}

void TestPlots::incrementalRefreshAddsOnlyNewPoints()
{
    auto log = makeLog(10, 2);
    WaitTimePlot plot;
    plot.setTrace(log, 2);
    plot.refresh();
    plot.refresh(); // nothing new: nothing added
    QCOMPARE(childNamed<QCPGraph>(&plot, "waitGraph")->dataCount(), 10);
    appendPlotBatches(*log, 15, 2);
    plot.refresh();
    QCOMPARE(childNamed<QCPGraph>(&plot, "waitGraph")->dataCount(), 15);
    QCOMPARE(childNamed<QCPGraph>(&plot, "meanGraph")->dataCount(), 15);
    QCOMPARE(childNamed<QCPGraph>(&plot, "firstBatchGraph")->dataCount(), 1);
    const std::vector<double> batch = keys(childNamed<QCPGraph>(&plot, "waitGraph"));
    for (std::size_t i = 0; i < batch.size(); ++i)
        QCOMPARE(batch[i], static_cast<double>(i));
    // The rolling mean carried its ring across the refresh.
    double sum = 0;
    for (std::int64_t i = 7; i <= 14; ++i)
        sum += static_cast<double>(waitOf(i)) / 1e6;
    QVERIFY(qFuzzyCompare(values(childNamed<QCPGraph>(&plot, "meanGraph"))[14], sum / 8));
}

void TestPlots::followingShowsTheLast200Batches()
{
    WaitTimePlot plot;
    plot.setTrace(makeLog(300, 2), 2);
    plot.refresh();
    QVERIFY(plot.following());
    QCOMPARE(plot.xAxis->range().lower, 99 - 0.5);
    QCOMPARE(plot.xAxis->range().upper, 299 + 0.5);
    // Only the visible waits set the value axis: the 30 ms first batch is out of view.
    QVERIFY(plot.yAxis->range().upper < 10.0);
    QVERIFY(plot.yAxis->range().upper >= 5.0);
    // The first batch, out of view, is still named with its wait, at the top left.
    plot.resize(600, 300);
    plot.replot();
    QVERIFY(hasText(plot, QStringLiteral("◀ first batch: 30.0 ms")));
    // The whole run in view: the label is back at its diamond.
    plot.showWholeRun();
    plot.replot();
    QVERIFY(hasText(plot, QStringLiteral("first batch")));
}

void TestPlots::zoomedOutGraphsKeepSpikes()
{
    auto log = makeLog(100'000, 2);
    WaitTimePlot waits;
    ThroughputPlot throughput;
    for (LivePlot *plot : std::vector<LivePlot *>{&waits, &throughput}) {
        plot->resize(600, 300);
        plot->setTrace(log, 2);
        plot->refresh();
        plot->setFollowing(false);
    }
    waits.xAxis->setRange(-0.5, 99'999.5);
    waits.replot();
    // Far fewer points than batches, but the extremes are all still there.
    const std::vector<double> drawn = values(childNamed<QCPGraph>(&waits, "waitGraph"));
    QVERIFY(drawn.size() < 10'000);
    QVERIFY(!drawn.empty());
    QCOMPARE(*std::max_element(drawn.begin(), drawn.end()), 99.0);
    QCOMPARE(*std::min_element(drawn.begin(), drawn.end()), 1.5);
    QVERIFY(std::find(drawn.begin(), drawn.end(), 30.0) != drawn.end());
    QVERIFY(childNamed<QCPGraph>(&waits, "meanGraph")->dataCount() < 10'000);
    // Zoomed in again: every batch.
    waits.xAxis->setRange(54'300, 54'350);
    waits.replot();
    QCOMPARE(childNamed<QCPGraph>(&waits, "waitGraph")->dataCount(), 100'000);
    QCOMPARE(childNamed<QCPGraph>(&waits, "meanGraph")->dataCount(), 100'000);

    const std::vector<double> rates = roundRates(*log, 2);
    bool found = false;
    throughput.xAxis->setRange(childNamed<QCPGraph>(&throughput, "rateGraph")->getKeyRange(found));
    throughput.replot();
    const std::vector<double> drawnRates = values(childNamed<QCPGraph>(&throughput, "rateGraph"));
    QVERIFY(drawnRates.size() < rates.size() / 4);
    QCOMPARE(*std::max_element(drawnRates.begin(), drawnRates.end()),
             *std::max_element(rates.begin(), rates.end()));
    QCOMPARE(*std::min_element(drawnRates.begin(), drawnRates.end()),
             *std::min_element(rates.begin(), rates.end()));
}

void TestPlots::decimationIsIncremental()
{
    // The same points appended at once and in uneven pieces give the same levels.
    QVector<QCPGraphData> points;
    std::uint32_t state = 12345;
    for (int i = 0; i < 10'000; ++i) {
        state = state * 1664525u + 1013904223u;
        points.push_back(QCPGraphData(i, static_cast<double>(state >> 8)));
    }
    DecimatedSeries whole;
    whole.append(points);
    DecimatedSeries pieces;
    const std::vector<int> sizes{1, 3, 7, 100, 1, 4093, 16, 2, 5000};
    int at = 0;
    for (std::size_t k = 0; at < points.size(); ++k) {
        const int n = std::min(sizes[k % sizes.size()], static_cast<int>(points.size()) - at);
        pieces.append(points.mid(at, n));
        at += n;
    }
    const double maxValue =
        std::max_element(points.begin(), points.end(), [](const auto &a, const auto &b) {
            return a.value < b.value;
        })->value;
    for (int level = 0; level < whole.levelCount(); ++level) {
        const auto a = whole.level(level);
        const auto b = pieces.level(level);
        QCOMPARE(a->size(), b->size());
        double levelMax = 0;
        for (int i = 0; i < a->size(); ++i) {
            QCOMPARE((a->constBegin() + i)->key, (b->constBegin() + i)->key);
            QCOMPARE((a->constBegin() + i)->value, (b->constBegin() + i)->value);
            levelMax = std::max(levelMax, (a->constBegin() + i)->value);
        }
        QCOMPARE(levelMax, maxValue);
    }
    // Level 1 keeps 2 of every 4 points (min and max of each bucket).
    QCOMPARE(whole.level(1)->size(), 5'000);
    // A zoomed-out view picks a coarse level; a narrow one every point.
    QCOMPARE(whole.forView(QCPRange(0, 10'000), 100), whole.level(3)); // 20000 / 64 <= 400
    QCOMPARE(whole.forView(QCPRange(0, 100), 100), whole.full());
}

void TestPlots::newTraceClearsData()
{
    WaitTimePlot waits;
    ThroughputPlot throughput;
    WaitHistogramPlot histogram;
    WorkerTimelinePlot timeline;
    const std::vector<LivePlot *> plots{&waits, &throughput, &histogram, &timeline};
    for (LivePlot *plot : plots) {
        plot->setTrace(makeLog(30, 2), 2);
        plot->refresh();
    }
    QCOMPARE(childNamed<QCPGraph>(&waits, "waitGraph")->dataCount(), 30);
    QVERIFY(childNamed<QCPGraph>(&throughput, "rateGraph")->dataCount() > 0);
    QCOMPARE(histogram.totalCount(), std::int64_t(30));
    QCOMPARE(childNamed<TimelinePlottable>(&timeline, "timelineLanes")->syncedRecords(),
             std::size_t(30));

    auto next = makeLog(4, 1);
    for (LivePlot *plot : plots)
        plot->setTrace(next, 1);
    QCOMPARE(childNamed<QCPGraph>(&waits, "waitGraph")->dataCount(), 0);
    QCOMPARE(childNamed<QCPGraph>(&waits, "firstBatchGraph")->dataCount(), 0);
    QCOMPARE(childNamed<QCPGraph>(&throughput, "rateGraph")->dataCount(), 0);
    QCOMPARE(throughput.median(), 0.0);
    QCOMPARE(histogram.totalCount(), std::int64_t(0));
    QCOMPARE(childNamed<QCPBars>(&histogram, "histogramBars")->dataCount(), 0);
    QCOMPARE(childNamed<TimelinePlottable>(&timeline, "timelineLanes")->syncedRecords(),
             std::size_t(0));
    bool found = true;
    childNamed<TimelinePlottable>(&timeline, "timelineLanes")->getKeyRange(found);
    QVERIFY(!found);

    for (LivePlot *plot : plots)
        plot->refresh();
    QCOMPARE(childNamed<QCPGraph>(&waits, "waitGraph")->dataCount(), 4);
    QCOMPARE(waits.meanWindow(), 4);
    QCOMPARE(childNamed<QCPGraph>(&throughput, "rateGraph")->dataCount(),
             3); // rounds of 1, the last one open
    QCOMPARE(histogram.totalCount(), std::int64_t(4));
    QCOMPARE(childNamed<TimelinePlottable>(&timeline, "timelineLanes")->syncedSpans(),
             std::size_t(4));
}

void TestPlots::overlaysDrawnInTheirColours()
{
    const QColor orange(230, 159, 0);
    const QColor purple(204, 121, 167);
    const std::vector<PlotOverlay> two{{makeLog(12, 2), 2, orange, QStringLiteral("run A")},
                                       {makeLog(7, 3), 3, purple, QStringLiteral("run B")}};

    WaitTimePlot waits;
    waits.setTrace(makeLog(5, 2), 2);
    const int ownGraphs = waits.graphCount();
    waits.setOverlays(two);
    QCOMPARE(waits.graphCount(), ownGraphs + 2);
    QCOMPARE(waits.overlayGraphs().size(), std::size_t(2));
    QCOMPARE(waits.overlayGraphs()[0]->dataCount(), 12);
    QCOMPARE(waits.overlayGraphs()[1]->dataCount(), 7);
    QCOMPARE(values(waits.overlayGraphs()[0])[3], 1.5);
    QCOMPARE(waits.overlayGraphs()[0]->pen().color(), orange);
    QCOMPARE(waits.overlayGraphs()[1]->pen().color(), purple);
    QVERIFY(waits.legend->hasItemWithPlottable(waits.overlayGraphs()[1]));
    waits.refresh(); // the live run's refreshes leave the overlays alone
    QCOMPARE(waits.overlayGraphs()[0]->dataCount(), 12);
    waits.setOverlays({two[1]});
    QCOMPARE(waits.graphCount(), ownGraphs + 1);
    QCOMPARE(waits.overlayGraphs()[0]->pen().color(), purple);
    waits.setOverlays({});
    QCOMPARE(waits.graphCount(), ownGraphs);

    // The live run's checkbox hides its series, not the overlays'.
    waits.setOverlays(two);
    waits.setLiveVisible(false);
    QVERIFY(!childNamed<QCPGraph>(&waits, "waitGraph")->visible());
    QVERIFY(!childNamed<QCPGraph>(&waits, "meanGraph")->visible());
    QVERIFY(waits.overlayGraphs()[0]->visible());
    // ... and takes them out of the legend (an export would name them), and back.
    QVERIFY(!waits.legend->hasItemWithPlottable(childNamed<QCPGraph>(&waits, "waitGraph")));
    QVERIFY(!waits.legend->hasItemWithPlottable(childNamed<QCPGraph>(&waits, "meanGraph")));
    QVERIFY(waits.legend->hasItemWithPlottable(waits.overlayGraphs()[0]));
    waits.setLiveVisible(true);
    QVERIFY(childNamed<QCPGraph>(&waits, "waitGraph")->visible());
    QVERIFY(waits.legend->hasItemWithPlottable(childNamed<QCPGraph>(&waits, "waitGraph")));

    WaitHistogramPlot histogram;
    histogram.setTrace(makeLog(5, 2), 2);
    histogram.setOverlays(two);
    QCOMPARE(histogram.overlayGraphs().size(), std::size_t(2));
    for (const QCPGraph *graph : histogram.overlayGraphs()) {
        double share = 0;
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
            share += it->value;
        QVERIFY(qFuzzyCompare(share, 100.0));
    }
    QCOMPARE(histogram.overlayGraphs()[1]->pen().color(), purple);
    histogram.setLiveVisible(false);
    QVERIFY(!childNamed<QCPBars>(&histogram, "histogramBars")->visible());

    ThroughputPlot throughput;
    throughput.setTrace(makeLog(5, 2), 2);
    throughput.setOverlays(two);
    QCOMPARE(throughput.overlayGraphs().size(), std::size_t(2));
    // 12 batches in rounds of 2 workers: 5 closed rounds (the first starts the clock).
    QVERIFY(throughput.overlayGraphs()[0]->dataCount() > 0);
    QCOMPARE(throughput.overlayGraphs()[0]->pen().color(), orange);
    throughput.setOverlays({});
    QVERIFY(throughput.overlayGraphs().empty());

    WorkerTimelinePlot timeline;
    timeline.setTrace(makeLog(5, 2), 2);
    timeline.refresh();
    timeline.setOverlays(two);
    QCOMPARE(timeline.overlayTimelines().size(), std::size_t(2));
    // Stacked above the live run's 2 worker lanes and consumer lane, each its own.
    const TimelinePlottable *a = timeline.overlayTimelines()[0];
    const TimelinePlottable *b = timeline.overlayTimelines()[1];
    QVERIFY(a->laneOffset()
            > childNamed<TimelinePlottable>(&timeline, "timelineLanes")->consumerLane());
    QVERIFY(b->laneOffset() > a->laneOffset() + a->consumerLane());
    QCOMPARE(b->tint(), purple);
    QCOMPARE(a->syncedSpans(), std::size_t(12));
    QVERIFY(timeline.yAxis->range().upper > b->laneOffset() + b->consumerLane());
    timeline.setOverlays({});
    QVERIFY(timeline.overlayTimelines().empty());
    QCOMPARE(timeline.yAxis->range().upper,
             childNamed<TimelinePlottable>(&timeline, "timelineLanes")->consumerLane() + 0.6);
}

void TestPlots::markersSitAtTheirKeys()
{
    auto log = makeLog(10, 2);
    const QString text = QStringLiteral("workers 2 -> 4");
    log->addMarker({4, 123'456'789, MarkerKind::Note, 0, {}, text.toStdString()});
    WaitTimePlot waits;
    ThroughputPlot throughput;
    WorkerTimelinePlot timeline;
    for (LivePlot *plot : std::vector<LivePlot *>{&waits, &throughput, &timeline}) {
        plot->setTrace(log, 2);
        plot->refresh();
        QVERIFY(hasText(*plot, text));
    }
    QCOMPARE(markerLinesAt(waits, 4.0), 1);
    QCOMPARE(markerLinesAt(throughput, 0.123456789), 1);
    QCOMPARE(markerLinesAt(timeline, 0.123456789), 1);

    // A second marker adds one line; the first is not drawn twice.
    log->addMarker({7, 200'000'000, MarkerKind::Pause, 0, {}, {}});
    waits.refresh();
    QCOMPARE(markerLinesAt(waits, 4.0), 1);
    QCOMPARE(markerLinesAt(waits, 7.0), 1);

    // The histogram has no time axis: its markers exist but are never drawn.
    WaitHistogramPlot histogram;
    histogram.setTrace(log, 2);
    histogram.refresh();
    for (int i = 0; i < histogram.itemCount(); ++i)
        QVERIFY(!histogram.item(i)->layer()->visible());
}

void TestPlots::throughputIsRateOverRounds()
{
    auto log = makeLog(10, 2);
    ThroughputPlot plot;
    plot.setTrace(log, 2);
    plot.refresh();
    // Rounds of 2 start at 0, 2, 4, 6; the round at 8 waits for batch 10's request.
    const std::vector<double> expected = roundRates(*log, 2);
    QCOMPARE(expected.size(), std::size_t(4));
    const std::vector<double> rates = values(childNamed<QCPGraph>(&plot, "rateGraph"));
    const std::vector<double> times = keys(childNamed<QCPGraph>(&plot, "rateGraph"));
    QCOMPARE(rates.size(), expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) {
        QVERIFY(qFuzzyCompare(rates[k], expected[k]));
        QCOMPARE(times[k], static_cast<double>((*log)[2 * k + 1].computeEndNs) / 1e9);
    }
    // Batches 0+1 by hand: 64 samples in (30 + 5 + 1.5 + 5) ms.
    QVERIFY(qFuzzyCompare(rates[0], 64.0 / 0.0415));
    std::vector<double> sorted = expected;
    std::sort(sorted.begin(), sorted.end());
    QVERIFY(qFuzzyCompare(plot.median(), (sorted[1] + sorted[2]) / 2));
}

void TestPlots::throughputCarriesPartialRounds()
{
    auto log = makeLog(9, 2);
    ThroughputPlot plot;
    plot.setTrace(log, 2);
    plot.refresh();
    QCOMPARE(childNamed<QCPGraph>(&plot, "rateGraph")->dataCount(), 4);
    // Batch 9 ends the round that starts at 8, but its rate needs batch 10's request.
    appendPlotBatches(*log, 10, 2);
    plot.refresh();
    QCOMPARE(childNamed<QCPGraph>(&plot, "rateGraph")->dataCount(), 4);
    appendPlotBatches(*log, 15, 2);
    plot.refresh();
    const std::vector<double> expected = roundRates(*log, 2);
    QCOMPARE(expected.size(), std::size_t(7));
    const std::vector<double> rates = values(childNamed<QCPGraph>(&plot, "rateGraph"));
    QCOMPARE(rates.size(), expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k)
        QVERIFY(qFuzzyCompare(rates[k], expected[k]));
    std::vector<double> sorted = expected;
    std::nth_element(sorted.begin(), sorted.begin() + 3, sorted.end());
    QVERIFY(qFuzzyCompare(plot.median(), sorted[3]));
}

void TestPlots::histogramBinsAreLogSpaced()
{
    QCOMPARE(WaitHistogramPlot::binOf(0), 0);
    QCOMPARE(WaitHistogramPlot::binOf(1'000), 0);      // 1 us
    QCOMPARE(WaitHistogramPlot::binOf(999'999), 29);   // just under 1 ms
    QCOMPARE(WaitHistogramPlot::binOf(1'000'000), 30); // 1 ms starts a decade
    QCOMPARE(WaitHistogramPlot::binOf(1'500'000), 31); // 10^3.176 us
    QCOMPARE(WaitHistogramPlot::binOf(10'000'000), 40);
    QCOMPARE(WaitHistogramPlot::binOf(-5), 0);
    QCOMPARE(WaitHistogramPlot::binOf(std::int64_t(1) << 62), WaitHistogramPlot::kMaxBins - 1);
    QVERIFY(qFuzzyCompare(WaitHistogramPlot::binLowerMs(30), 1.0));
}

void TestPlots::histogramCountsEveryBatch()
{
    auto log = makeLog(21, 2);
    WaitHistogramPlot plot;
    plot.setTrace(log, 2);
    plot.refresh();
    QCOMPARE(plot.totalCount(), std::int64_t(21));
    // 1 first batch at 30 ms, 10 odd batches at 1.5 ms, 10 even at 4.25 ms.
    const auto &counts = plot.counts();
    QCOMPARE(counts[static_cast<std::size_t>(WaitHistogramPlot::binOf(30 * kMs))], std::int64_t(1));
    QCOMPARE(counts[static_cast<std::size_t>(WaitHistogramPlot::binOf(1'500'000))],
             std::int64_t(10));
    QCOMPARE(counts[static_cast<std::size_t>(WaitHistogramPlot::binOf(4'250'000))],
             std::int64_t(10));
    QCOMPARE(childNamed<QCPBars>(&plot, "histogramBars")->dataCount(), 3);
    double share = 0;
    for (auto it = childNamed<QCPBars>(&plot, "histogramBars")->data()->constBegin();
         it != childNamed<QCPBars>(&plot, "histogramBars")->data()->constEnd(); ++it)
        share += it->value;
    QVERIFY(qFuzzyCompare(share, 100.0));

    appendPlotBatches(*log, 31, 2);
    plot.refresh();
    QCOMPARE(plot.totalCount(), std::int64_t(31));
    QCOMPARE(counts[static_cast<std::size_t>(WaitHistogramPlot::binOf(1'500'000))],
             std::int64_t(15));
    // The visible range covers every used bin, in whole decades.
    QVERIFY(plot.xAxis->range().contains(WaitHistogramPlot::binOf(1'500'000)));
    QVERIFY(plot.xAxis->range().contains(WaitHistogramPlot::binOf(30 * kMs)));
}

void TestPlots::timelineKeyRangeCoversSpans()
{
    auto log = makeLog(40, 4);
    WorkerTimelinePlot plot;
    plot.setTrace(log, 4);
    plot.refresh();
    std::int64_t first = INT64_MAX;
    std::int64_t last = 0;
    for (const WorkerSpan &span : log->spans()) {
        first = std::min(first, span.startNs);
        last = std::max(last, span.endNs);
    }
    // Everything drawn counts: the consumer's first request precedes any span here.
    for (const TraceRecord &r : log->records()) {
        first = std::min(first, r.requestNs);
        last = std::max(last, r.computeEndNs);
    }
    QCOMPARE(first, kMs);
    bool found = false;
    const QCPRange range =
        childNamed<TimelinePlottable>(&plot, "timelineLanes")->getKeyRange(found);
    QVERIFY(found);
    QCOMPARE(range.lower, static_cast<double>(first) / 1e9);
    QCOMPARE(range.upper, static_cast<double>(last) / 1e9);
    QCOMPARE(childNamed<TimelinePlottable>(&plot, "timelineLanes")->loaderLanes(), 4);
    QCOMPARE(childNamed<TimelinePlottable>(&plot, "timelineLanes")->consumerLane(), 4);
    // Following: the last 5 seconds (here: everything) up to the newest time.
    QVERIFY(plot.xAxis->range().upper >= range.upper);
    QVERIFY(plot.xAxis->range().lower <= range.lower);
    QVERIFY(plot.yAxis->range().contains(-0.4) && plot.yAxis->range().contains(4.4));
}

void TestPlots::timelineGivesEachRankItsConsumerLane()
{
    // Two ranks, one worker each; every step: wait 0-2 ms, step 2-10 ms, then the wait
    // for the slowest rank (rank 0: 10-11 ms, rank 1: 10-14 ms) and the exchange to 20 ms,
    // steps 20 ms apart.
    auto log = std::make_shared<TraceLog>();
    RunConfig config;
    config.devices = 2;
    config.loader.numWorkers = 1;
    log->addConfigVersion({0, 0, 0, config});
    for (std::int64_t step = 0; step < 6; ++step) {
        for (std::int32_t rank = 0; rank < 2; ++rank) {
            const std::int64_t t = step * 20 * kMs;
            TraceRecord r;
            r.index = 2 * step + rank;
            r.rank = rank;
            r.worker = 0;
            r.samples = 4;
            r.loadStartNs = t;
            r.loadEndNs = t + 2 * kMs;
            r.requestNs = t;
            r.deliveryNs = t + 2 * kMs;
            r.computeStartNs = t + 2 * kMs;
            r.computeEndNs = t + 10 * kMs;
            r.syncStartNs = r.computeEndNs;
            r.syncEndNs = t + (rank == 0 ? 11 : 14) * kMs;
            r.exchangeEndNs = t + 20 * kMs;
            log->appendSpan({r.index, 0, rank, r.loadStartNs, r.loadEndNs});
            log->append(r);
        }
    }
    WorkerTimelinePlot plot;
    plot.resize(900, 500);
    plot.setTrace(log, 1);
    plot.refresh();
    plot.setFollowing(false);
    auto *lanes = childNamed<TimelinePlottable>(&plot, "timelineLanes");
    QCOMPARE(lanes->loaderLanes(), 2);
    QCOMPARE(lanes->consumerLane(0), 2);
    QCOMPARE(lanes->consumerLane(1), 3);
    QCOMPARE(lanes->topLane(), 3);
    QVERIFY(plot.yAxis->range().contains(3.4));
    // Rank 1's lane, step 2: its wait for the slowest rank below, its exchange above.
    const double sync = (40.0 + 12.0) / 1e3;
    const double exchange = (40.0 + 17.0) / 1e3;
    TimelineHit hit = lanes->hitAt(sync, 2.8);
    QVERIFY(hit.found && hit.consumer && hit.synchronising && !hit.computing);
    QCOMPARE(hit.rank, 1);
    QCOMPARE(hit.batch, std::int64_t{5});
    QCOMPARE(hit.startNs, 50 * kMs);
    QCOMPARE(hit.endNs, 54 * kMs);
    hit = lanes->hitAt(exchange, 3.2);
    QVERIFY(hit.found && hit.synchronising && hit.computing);
    QCOMPARE(hit.startNs, 54 * kMs);
    // Rank 0's lane at that time: its own exchange (from 11 ms), its own step earlier.
    hit = lanes->hitAt(sync, 2.2);
    QVERIFY(hit.found && hit.synchronising && hit.computing);
    QCOMPARE(hit.rank, 0);
    QCOMPARE(hit.startNs, 51 * kMs);
    hit = lanes->hitAt(0.045, 2.2);
    QVERIFY(hit.found && !hit.synchronising && hit.computing);
    // Drawn in their colours, and named by the hover and the legend.
    plot.xAxis->grid()->setVisible(false);
    plot.xAxis->setRange(0.040, 0.060);
    plot.replot();
    const QImage image = plot.toPixmap().toImage();
    const auto pixel = [&](double seconds, double lane) {
        return QColor(image.pixel(static_cast<int>(plot.xAxis->coordToPixel(seconds)),
                                  static_cast<int>(plot.yAxis->coordToPixel(lane))));
    };
    QCOMPARE(pixel(sync, 2.8), TimelinePlottable::syncColor());
    QCOMPARE(pixel(exchange, 3.2), TimelinePlottable::exchangeColor());
    QCOMPARE(pixel(0.045, 3.2), TimelinePlottable::computeColor());
    const QPointF at(plot.xAxis->coordToPixel(exchange), plot.yAxis->coordToPixel(3.2));
    QVERIFY2(plot.hoverText(at).startsWith(QStringLiteral("rank 1, batch 5: gradient exchange")),
             qPrintable(plot.hoverText(at)));
    QStringList names;
    for (int i = 0; i < plot.legend->itemCount(); ++i)
        if (auto *item = qobject_cast<QCPPlottableLegendItem *>(plot.legend->item(i)))
            names << item->plottable()->name();
    QVERIFY2(names.contains(QStringLiteral("gradient exchange (upper half)")),
             qPrintable(names.join(QLatin1Char('|'))));
    // One rank: no lanes nor squares of synchronised steps.
    plot.setTrace(makeLog(10, 2), 2);
    plot.refresh();
    QCOMPARE(childNamed<TimelinePlottable>(&plot, "timelineLanes")->topLane(), 2);
    names.clear();
    for (int i = 0; i < plot.legend->itemCount(); ++i)
        if (auto *item = qobject_cast<QCPPlottableLegendItem *>(plot.legend->item(i)))
            names << item->plottable()->name();
    QVERIFY(!names.contains(QStringLiteral("gradient exchange (upper half)")));
}

void TestPlots::timelineDrawsBatchColours()
{
    auto log = makeLog(12, 2);
    WorkerTimelinePlot plot;
    plot.resize(800, 400);
    plot.setTrace(log, 2);
    plot.refresh();
    plot.setFollowing(false);
    plot.xAxis->grid()->setVisible(false);
    // Zoom onto batch 5 (worker 1): its 12 ms span fills most of the view.
    const WorkerSpan span = log->spans(5, 6).front();
    plot.xAxis->setRange(static_cast<double>(span.startNs - kMs) / 1e9,
                         static_cast<double>(span.endNs + kMs) / 1e9);
    plot.replot();
    const QImage image = plot.toPixmap().toImage();
    const double middle = static_cast<double>(span.startNs + span.endNs) / 2e9;
    const int x = static_cast<int>(plot.xAxis->coordToPixel(middle));
    // Off-centre in the lane so the batch number written in the box is not hit.
    const int y = static_cast<int>(plot.yAxis->coordToPixel(1.3));
    QCOMPARE(QColor(image.pixel(x, y)), TimelinePlottable::batchColor(5));
    QVERIFY(TimelinePlottable::batchColor(5) != TimelinePlottable::batchColor(6));
    // Worker 0 was idle at that time: its lane stays background.
    QVERIFY(isWhite(image.pixel(x, static_cast<int>(plot.yAxis->coordToPixel(0.3)))));
}

void TestPlots::timelineDrawsZoomedOut()
{
    // 40,000 batches on 400 px: far more than a batch per pixel, drawn from the index.
    auto log = makeLog(40'000, 2);
    WorkerTimelinePlot plot;
    plot.resize(400, 300);
    plot.setTrace(log, 2);
    plot.refresh();
    plot.setFollowing(false);
    bool found = false;
    plot.xAxis->setRange(childNamed<TimelinePlottable>(&plot, "timelineLanes")->getKeyRange(found));
    plot.replot();
    const QImage image = plot.toPixmap().toImage();
    const int x = static_cast<int>(plot.xAxis->coordToPixel(plot.xAxis->range().center()));
    for (double lane : {0.0, 1.0, 1.8, 2.2}) {
        const int y = static_cast<int>(plot.yAxis->coordToPixel(lane));
        QVERIFY2(!isWhite(image.pixel(x, y)), qPrintable(QString::number(lane)));
    }
    // Every lane is busy all the time at this scale: no pixel column may be left
    // blank between the per-pixel rects.
    const int left = static_cast<int>(plot.xAxis->coordToPixel(plot.xAxis->range().lower)) + 2;
    const int right = static_cast<int>(plot.xAxis->coordToPixel(plot.xAxis->range().upper)) - 2;
    QVERIFY(right - left > 200);
    for (double lane : {0.0, 1.0, 2.2}) {
        const int y = static_cast<int>(plot.yAxis->coordToPixel(lane));
        for (int column = left; column <= right; ++column)
            QVERIFY2(!isWhite(image.pixel(column, y)),
                     qPrintable(QStringLiteral("lane %1, x %2").arg(lane).arg(column)));
    }
}

void TestPlots::timelineWithoutWorkers()
{
    auto log = makeLog(5, 0);
    WorkerTimelinePlot plot;
    plot.setTrace(log, 0);
    plot.refresh();
    QCOMPARE(childNamed<TimelinePlottable>(&plot, "timelineLanes")->loaderLanes(), 1);
    QCOMPARE(childNamed<TimelinePlottable>(&plot, "timelineLanes")->laneOf(kConsumerThread), 0);
    QCOMPARE(childNamed<TimelinePlottable>(&plot, "timelineLanes")->laneOf(0), -1);
    QCOMPARE(childNamed<TimelinePlottable>(&plot, "timelineLanes")->syncedSpans(), std::size_t(5));
    auto *ticker = dynamic_cast<QCPAxisTickerText *>(plot.yAxis->ticker().data());
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().value(0), QStringLiteral("consumer (loads)"));
    QCOMPARE(ticker->ticks().value(1), QStringLiteral("consumer"));
}

void TestPlots::exportWritesEachFormat()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    WaitTimePlot plot;
    plot.setTrace(makeLog(50, 2), 2);
    plot.refresh();
    QString error;

    const QString png = dir.filePath(QStringLiteral("waits.png"));
    QVERIFY2(plot.exportTo(png, 320, 200, &error), qPrintable(error));
    const QImage image(png);
    QCOMPARE(image.size(), QSize(320, 200));

    const QString svg = dir.filePath(QStringLiteral("waits.svg"));
    QVERIFY2(plot.exportTo(svg, 320, 200, &error), qPrintable(error));
    const QByteArray svgBytes = readAll(svg);
    QVERIFY(svgBytes.startsWith("<?xml") || svgBytes.contains("<svg"));
    QVERIFY(svgBytes.contains("</svg>"));

    const QString pdf = dir.filePath(QStringLiteral("waits.PDF"));
    QVERIFY2(plot.exportTo(pdf, 320, 200, &error), qPrintable(error));
    QVERIFY(readAll(pdf).startsWith("%PDF"));

    // 0 x 0 = the widget's size; an existing file is replaced.
    plot.resize(300, 150);
    QVERIFY2(plot.exportTo(png, 0, 0, &error), qPrintable(error));
    QCOMPARE(QImage(png).size(), QSize(300, 150));
    // Nothing but the three exports is left behind.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 3);
}

void TestPlots::exportFailureKeepsGoodFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    WaitTimePlot plot;
    plot.setTrace(makeLog(5, 2), 2);
    plot.refresh();

    QString error;
    const QString missing = QStringLiteral("/nonexistent-dir/x.png");
    QVERIFY(!plot.exportTo(missing, 100, 100, &error));
    QVERIFY2(error.contains(missing), qPrintable(error));
    QVERIFY(!QFile::exists(missing));

    const QString good = dir.filePath(QStringLiteral("plot.bmpx"));
    {
        QFile file(good);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("good");
    }
    error.clear();
    QVERIFY(!plot.exportTo(good, 100, 100, &error));
    QVERIFY2(error.contains(good), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("bmpx")), qPrintable(error));
    QCOMPARE(readAll(good), QByteArray("good"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);
}

void TestPlots::exportDialogWritesEachFormatOrStopsAtAFailure()
{
    // The "Export plots" dialog of the window and of the Experiments view: the chosen
    // folder gets PNG, SVG and PDF, in that order; a cancelled dialog exports nothing;
    // the first failure is shown and ends the export.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QStringList calls;
    QString failOn;
    const PlotsExporterWithOptions exporter = [&](const QString &folder, const QString &format,
                                                  const PlotExportOptions &, QString *error) {
        calls << QFileInfo(folder).canonicalFilePath() + QLatin1Char(' ') + format;
        if (format != failOn)
            return true;
        *error = QStringLiteral("disk on fire");
        return false;
    };
    auto chooseFolder = [&](QDialog *dialog) {
        QVERIFY(qobject_cast<QFileDialog *>(dialog));
        auto *name = dialog->findChild<QLineEdit *>(QStringLiteral("fileNameEdit"));
        QVERIFY(name);
        name->setText(dir.path());
        dialog->accept();
    };
    const QString folder = QFileInfo(dir.path()).canonicalFilePath();

    answerModal(chooseFolder);
    QString written = exportPlotsWithDialog(nullptr, QString(), exporter);
    QCOMPARE(calls, QStringList({folder + QStringLiteral(" png"), folder + QStringLiteral(" svg"),
                                 folder + QStringLiteral(" pdf")}));
    QVERIFY2(written.startsWith(QStringLiteral("Wrote the plots as PNG, SVG and PDF to ")),
             qPrintable(written));

    calls.clear();
    answerModal([](QDialog *dialog) { dialog->reject(); });
    QCOMPARE(exportPlotsWithDialog(nullptr, dir.path(), exporter), QString());
    QVERIFY(calls.isEmpty());

    failOn = QStringLiteral("svg");
    QString shown;
    answerModal([&](QDialog *dialog) {
        chooseFolder(dialog);
        answerModal([&](QDialog *box) {
            QVERIFY(qobject_cast<QMessageBox *>(box));
            shown = static_cast<QMessageBox *>(box)->text();
            box->accept();
        });
    });
    written = exportPlotsWithDialog(nullptr, QString(), exporter);
    QCOMPARE(written, QString());
    QCOMPARE(calls,
             QStringList({folder + QStringLiteral(" png"), folder + QStringLiteral(" svg")}));
    QCOMPARE(shown, QStringLiteral("disk on fire"));
}

LOADERLAB_TEST_MAIN(TestPlots)
#include "test_plots.moc"
