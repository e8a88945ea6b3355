// The window's memory over a run of any length: the plots fed 10 million batches of
// a live log that keeps the last 100,000 (as RunSession's runs keep the last
// --keep-batches) hold a bounded history, still show the whole run, and read only
// what the log still holds.

#include "core/trace/trace_log.h"
#include "tests/support/test_main.h"
#include "tests/support/trace_time.h"
#include "widgets/plots/decimated_series.h"
#include "widgets/plots/throughput_plot.h"
#include "widgets/plots/wait_histogram_plot.h"
#include "widgets/plots/wait_time_plot.h"
#include "widgets/plots/worker_timeline_plot.h"

#include <QFile>
#include <QtTest>

#include <algorithm>
#include <memory>

using namespace loaderlab;

namespace {

using loaderlab::test::kMs;
constexpr int kWorkers = 2;

// Resident memory of this process (KiB), from /proc.
qint64 residentKib()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    return -1;
}

// Appends batches [log.size(), count): worker i % 2 builds batch i, every 2nd waits
// 3 ms, an epoch marker every 4,000 batches (2,500 in 10 million).
void appendMemoryBatches(TraceLog &log, std::int64_t count, std::int64_t *clock)
{
    for (auto i = static_cast<std::int64_t>(log.size()); i < count; ++i) {
        TraceRecord r;
        r.index = i;
        r.epoch = static_cast<std::int32_t>(i / 4'000);
        r.worker = static_cast<std::int32_t>(i % kWorkers);
        r.samples = 8;
        r.requestNs = *clock;
        r.deliveryNs = r.requestNs + (i % kWorkers == 0 ? 3 * kMs : kMs / 10);
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.deliveryNs + kMs;
        log.appendSpan({i, r.worker, 0, r.deliveryNs - 2 * kMs, r.deliveryNs});
        log.append(r);
        if (i % 4'000 == 0) {
            TraceMarker epoch;
            epoch.batch = i;
            epoch.timeNs = r.requestNs;
            epoch.kind = MarkerKind::Epoch;
            epoch.detail = std::to_string(r.epoch);
            log.addMarker(epoch);
        }
        *clock = r.computeEndNs;
    }
}

} // namespace

class TestPlotMemory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void seriesHoldsABoundedHistoryOfTheWholeRun();
    void coarsestLevelMergesAndKeepsTheWholeRun();
    void plotsOfTenMillionBatchesStayBounded();
};

// DecimatedSeries alone: 10 million points, a bounded number held, and a view of the
// whole run still spans it, spikes included.
void TestPlotMemory::seriesHoldsABoundedHistoryOfTheWholeRun()
{
    DecimatedSeries series;
    constexpr int kPoints = 10'000'000;
    constexpr int kStep = 4'096;
    qsizetype heldAtTwoMillion = 0;
    for (int from = 0; from < kPoints; from += kStep) {
        QVector<QCPGraphData> points;
        points.reserve(kStep);
        for (int i = from; i < from + kStep && i < kPoints; ++i)
            points.push_back(QCPGraphData(i, i == 1'234'567 ? 500.0 : (i % 2) * 3.0));
        series.append(points);
        if (from <= 2'000'000 && from + kStep > 2'000'000)
            heldAtTwoMillion = series.heldPoints();
    }
    // Without bounds the full series alone held 10 million points. With them: each
    // level holds at most a quarter over its keep, the coarsest two points a bucket.
    qsizetype bound = DecimatedSeries::kFullPoints;
    for (int k = 1, keep = DecimatedSeries::kFullPoints; k < DecimatedSeries::kLevels; ++k) {
        keep = std::max(keep / 2, DecimatedSeries::kMinLevelPoints);
        bound += keep;
    }
    bound += bound / 4 + 2 * static_cast<qsizetype>(DecimatedSeries::kTopBuckets) + 2;
    QVERIFY2(series.heldPoints() <= bound && heldAtTwoMillion <= bound,
             qPrintable(QStringLiteral("%1 at 2M, %2 at 10M, bound %3")
                            .arg(heldAtTwoMillion)
                            .arg(series.heldPoints())
                            .arg(bound)));
    // The newest points are there in full.
    QCOMPARE(series.full()->constEnd()[-1].key, double(kPoints - 1));
    QVERIFY(series.full()->size() >= DecimatedSeries::kFullPoints);
    QVERIFY(series.full()->size() <= DecimatedSeries::kFullPoints * 5 / 4);

    // The whole run at 1,000 pixels: from its start to its end, within the budget,
    // the spike at 1,234,567 kept.
    const auto whole = series.forView(QCPRange(0, kPoints), 1'000);
    QVERIFY(!whole->isEmpty());
    QVERIFY2(whole->constBegin()->key < kPoints / 100.0,
             qPrintable(QString::number(whole->constBegin()->key)));
    // (A bucket's points are its minimum and maximum, so the last is near the end.)
    QVERIFY(whole->constEnd()[-1].key > kPoints - kPoints / 100.0);
    QVERIFY(whole->size() <= 4 * 1'000);
    double top = 0.0;
    for (const QCPGraphData &p : *whole)
        top = std::max(top, p.value);
    QCOMPARE(top, 500.0);
    // The last 1,000 points: full detail.
    QCOMPARE(series.forView(QCPRange(kPoints - 1'000, kPoints), 1'000), series.full());
}

// Past its bound the coarsest level merges pairs of buckets: it holds a bounded
// number of points however many arrive, in key order, from the first to the newest,
// the spike included (small bounds, so that it happens within 100,000 points).
void TestPlotMemory::coarsestLevelMergesAndKeepsTheWholeRun()
{
    DecimatedSeries series(DecimatedSeries::Bounds{64, 16, 32, 2});
    for (int from = 0; from < 100'000; from += 1'000) {
        QVector<QCPGraphData> points;
        for (int i = from; i < from + 1'000; ++i)
            points.push_back(QCPGraphData(i, i == 31'337 ? 90.0 : (i % 3) * 1.0));
        series.append(points);
        const auto top = series.level(2);
        QVERIFY2(top->size() <= 2 * (32 + 1) + 2, qPrintable(QString::number(top->size())));
    }
    const auto top = series.level(2);
    QVERIFY(
        std::is_sorted(top->constBegin(), top->constEnd(),
                       [](const QCPGraphData &a, const QCPGraphData &b) { return a.key < b.key; }));
    QCOMPARE(top->constBegin()->key, 0.0);
    QVERIFY(top->constEnd()[-1].key > 90'000.0);
    double highest = 0.0;
    for (const QCPGraphData &p : *top)
        highest = std::max(highest, p.value);
    QCOMPARE(highest, 90.0);
    QVERIFY(series.heldPoints() < 2 * 64 + 2 * 32 + 2 * 33 + 8);
    QCOMPARE(series.forView(QCPRange(0, 100'000), 10), top);
}

// The four live plots on a log that keeps the last 100,000 batches, refreshed every
// 4,096 batches (about 30 Hz at 125,000 batches/s) for 10 million batches: resident
// memory grows by a few MB at most after the first 2 million (it grew ~500 bytes a
// batch, 4 GB over the 8 million, when the plots kept every batch), and the plots
// still draw and read the whole run.
void TestPlotMemory::plotsOfTenMillionBatchesStayBounded()
{
    auto log = std::make_shared<TraceLog>(kMinKeepBatches);
    WaitTimePlot wait;
    ThroughputPlot throughput;
    WaitHistogramPlot histogram;
    WorkerTimelinePlot timeline;
    const std::vector<LivePlot *> plots{&wait, &throughput, &histogram, &timeline};
    for (LivePlot *plot : plots) {
        plot->resize(800, 300);
        plot->setTrace(log, kWorkers);
    }
    std::int64_t clock = kMs;
    qint64 rssAtTwoMillion = 0;
    constexpr std::int64_t kBatches = 10'000'000;
    for (std::int64_t n = 4'096; n <= kBatches + 4'095; n += 4'096) {
        appendMemoryBatches(*log, std::min(n, kBatches), &clock);
        for (LivePlot *plot : plots)
            plot->refresh();
        if (n % (1 << 20) < 4'096) { // now and then a frame, as the window paints
            for (LivePlot *plot : plots)
                QVERIFY(!plot->toPixmap(800, 300).isNull());
        }
        if (rssAtTwoMillion == 0 && n >= 2'000'000)
            rssAtTwoMillion = residentKib();
    }
    QCOMPARE(log->size(), std::size_t(kBatches));
    QVERIFY(log->firstKept() > kBatches - 2 * kMinKeepBatches - 8'192);
    const qint64 grown = residentKib() - rssAtTwoMillion;
    QVERIFY2(rssAtTwoMillion > 0 && grown < 64 * 1024,
             qPrintable(QStringLiteral("resident memory grew by %1 MiB from 2 to 10 million "
                                       "batches")
                            .arg(grown / 1024)));
    qInfo("resident memory grew by %lld KiB from 2 to 10 million batches", grown);

    // The whole run, drawn.
    for (LivePlot *plot : plots) {
        plot->showWholeRun();
        plot->replot();
        QVERIFY(!plot->toPixmap(800, 300).isNull());
    }
    QVERIFY2(wait.xAxis->range().lower < 1.0 && wait.xAxis->range().upper >= kBatches - 1,
             qPrintable(QStringLiteral("%1 .. %2")
                            .arg(wait.xAxis->range().lower)
                            .arg(wait.xAxis->range().upper)));
    const QCPGraph *waits = wait.findChild<QCPGraph *>(QStringLiteral("waitGraph"));
    QVERIFY(waits && !waits->data()->isEmpty());
    QVERIFY(waits->data()->constBegin()->key < kBatches / 100.0);
    // The throughput median counts every round: 2 batches of 8 samples, one waiting
    // 3 ms and one 0.1 ms, each then computing 1 ms: 16 samples per 5.1 ms.
    QVERIFY2(std::abs(throughput.median() - 16.0 / 5.1e-3) < 0.01 * 16.0 / 5.1e-3,
             qPrintable(QString::number(throughput.median())));

    // Hover: the newest batch is read from the log; a freed one reads nothing.
    const QPoint centre = wait.axisRect()->rect().center();
    wait.xAxis->setRange(kBatches - 10.5, kBatches - 0.5);
    wait.replot();
    QVERIFY2(wait.hoverText(centre).contains(QStringLiteral("batch 999999")),
             qPrintable(wait.hoverText(centre)));
    wait.xAxis->setRange(0.5, 10.5);
    wait.replot();
    QVERIFY(wait.hoverText(centre).isEmpty());
    timeline.xAxis->setRange(static_cast<double>(clock) / 1e9 - 0.02,
                             static_cast<double>(clock) / 1e9);
    QVERIFY(!timeline.toPixmap(800, 300).isNull());
}

LOADERLAB_TEST_MAIN(TestPlotMemory)
#include "test_plot_memory.moc"
