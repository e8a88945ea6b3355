// The hover readout: over each plot the tooltip says what is under the mouse, read
// from the run's own records (batch, wait, step, worker, config version; a timeline
// box's batch, worker, time and stages; a round's samples/s; a bin's share), for the
// live run and an opened one drawn over it, and nothing where there is no data.

#include "tests/support/test_main.h"
#include "tests/support/trace_time.h"
#include "widgets/plots/throughput_plot.h"
#include "widgets/plots/wait_histogram_plot.h"
#include "widgets/plots/wait_time_plot.h"
#include "widgets/plots/worker_timeline_plot.h"

#include <QMouseEvent>
#include <QToolTip>
#include <QtTest>

#include <memory>

using namespace loaderlab;

namespace {

using loaderlab::test::kMs;

// `count` batches of 2 workers: batch i requested at 10 ms x i + 1 ms, waiting
// `waitMs`, a step of 3 ms; worker i % 2 loads it in the 8 ms before its delivery,
// its samples' read, decode and transform 1, 2 and 3 ms together.
std::shared_ptr<TraceLog> run(std::int64_t count, std::int64_t waitMs)
{
    auto log = std::make_shared<TraceLog>();
    for (std::int64_t i = 0; i < count; ++i) {
        TraceRecord r;
        r.index = i;
        r.epoch = static_cast<std::int32_t>(i / 10);
        r.worker = static_cast<std::int32_t>(i % 2);
        r.samples = 16;
        r.configVersion = i >= 10 ? 1 : 0;
        r.requestNs = 10 * kMs * i + kMs;
        r.deliveryNs = r.requestNs + waitMs * kMs;
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.deliveryNs + 3 * kMs;
        r.readNs = kMs;
        r.decodeNs = 2 * kMs;
        r.transformNs = 3 * kMs;
        WorkerSpan span;
        span.batch = i;
        span.worker = r.worker;
        span.startNs = r.deliveryNs - 8 * kMs > 0 ? r.deliveryNs - 8 * kMs : 0;
        span.endNs = r.deliveryNs;
        log->appendSpan(span);
        log->append(r);
    }
    return log;
}

template <class Plot>
void show(Plot &plot, const std::shared_ptr<TraceLog> &live)
{
    plot.resize(900, 400);
    plot.setTrace(live, 2);
    plot.refresh();
    plot.showWholeRun();
    plot.replot();
}

QPointF at(const LivePlot &plot, double key, double value)
{
    return {plot.xAxis->coordToPixel(key), plot.yAxis->coordToPixel(value)};
}

} // namespace

class TestPlotHover : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void waitPlotNamesTheBatchInEachRun();
    void timelineNamesTheBoxesBatch();
    void throughputAndHistogramReadTheirPoints();
    void theMouseShowsTheReadout();
    void anEmptyPlotSaysWhatWillAppear();
};

void TestPlotHover::waitPlotNamesTheBatchInEachRun()
{
    WaitTimePlot plot;
    show(plot, run(20, 4));
    plot.setOverlays({{run(8, 7), 2, QColor(Qt::darkGreen), QStringLiteral("opened")}});
    plot.showWholeRun();
    plot.replot();
    const QString text = plot.hoverText(at(plot, 5, 2));
    QVERIFY2(text.startsWith(QStringLiteral("batch 5 (epoch 0)")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("wait 4.00 ms, step 3.00 ms, worker 1, config "
                                          "version 0")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("opened: wait 7.00 ms")), qPrintable(text));
    // Batch 12 is in the live run only, under its second config version.
    const QString later = plot.hoverText(at(plot, 12, 2));
    QVERIFY2(later.contains(QStringLiteral("config version 1"))
                 && !later.contains(QStringLiteral("opened")),
             qPrintable(later));
    // Past every run, and outside the axes: nothing.
    QVERIFY(plot.hoverText(at(plot, 25, 2)).isEmpty() || plot.xAxis->range().upper < 25);
    QVERIFY(plot.hoverText(QPointF(-5, -5)).isEmpty());
}

void TestPlotHover::timelineNamesTheBoxesBatch()
{
    WorkerTimelinePlot plot;
    show(plot, run(20, 4));
    // Batch 7 (worker 1, requested at 71 ms, delivered at 75 ms) is loaded from 67 to
    // 75 ms: hover at 70 ms.
    const double loading = 0.070;
    const QString text = plot.hoverText(at(plot, loading, 1.0));
    QVERIFY2(text.startsWith(QStringLiteral("batch 7 on worker 1: loading 8.00 ms")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("read 1.00 ms, decode 2.00 ms, transform 3.00 ms")),
             qPrintable(text));
    // Worker 0's lane at that time: batch 6 ended at 65 ms, batch 8 starts at 77 ms.
    QVERIFY(plot.hoverText(at(plot, loading, 0.0)).isEmpty());
    // The consumer lane (2): its lower half waits, its upper half steps.
    const QString waiting = plot.hoverText(at(plot, 0.073, 1.8));
    QVERIFY2(waiting.startsWith(QStringLiteral("batch 7: waiting 4.00 ms")), qPrintable(waiting));
    const QString step = plot.hoverText(at(plot, 0.0765, 2.2));
    QVERIFY2(step.startsWith(QStringLiteral("batch 7: step 3.00 ms")), qPrintable(step));
}

void TestPlotHover::throughputAndHistogramReadTheirPoints()
{
    ThroughputPlot throughput;
    show(throughput, run(20, 4));
    // Rounds of 2 batches of 16 every 20 ms: 1,600 samples/s, plotted at each round's
    // last step end; the first at 11 ms + 4 + 3 = 18 ms.
    const QString rate = throughput.hoverText(at(throughput, 0.018, 1600));
    QVERIFY2(rate.contains(QStringLiteral("1600 samples/s at 0.02 s")), qPrintable(rate));

    WaitHistogramPlot histogram;
    show(histogram, run(20, 4));
    const int bin = WaitHistogramPlot::binOf(4 * kMs);
    const QString share = histogram.hoverText(at(histogram, bin, 50));
    QVERIFY2(share.contains(QStringLiteral("this run: 100.0 % of 20 batches")), qPrintable(share));
    QVERIFY2(share.startsWith(QStringLiteral("wait ")), qPrintable(share));
    histogram.xAxis->setRange(bin - 10, bin + 10);
    histogram.replot();
    const QString empty = histogram.hoverText(at(histogram, bin + 5, 50));
    QVERIFY2(empty.contains(QStringLiteral("this run: 0.0 % of 20 batches")), qPrintable(empty));
}

void TestPlotHover::theMouseShowsTheReadout()
{
    WaitTimePlot plot;
    show(plot, run(20, 4));
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    const QPointF pos = at(plot, 5, 2);
    QMouseEvent move(QEvent::MouseMove, pos, plot.mapToGlobal(pos), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QApplication::sendEvent(&plot, &move);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().startsWith(QStringLiteral("batch 5")), qPrintable(QToolTip::text()));
}

void TestPlotHover::anEmptyPlotSaysWhatWillAppear()
{
    WaitTimePlot plot;
    auto *hint = plot.findChild<QCPItemText *>(QStringLiteral("firstStartHint"));
    QVERIFY(hint);
    QVERIFY(hint->visible());
    QVERIFY(hint->text().contains(QStringLiteral("Press Start")));
    auto live = std::make_shared<TraceLog>();
    plot.setTrace(live, 2);
    plot.refresh();
    QVERIFY(hint->visible()); // started, no batch yet
    const auto batches = run(3, 4);
    for (std::size_t i = 0; i < batches->size(); ++i)
        live->append((*batches)[i]);
    plot.refresh();
    QVERIFY(!hint->visible());
    plot.setTrace(std::make_shared<TraceLog>(), 2); // Reset
    QVERIFY(hint->visible());
    plot.setOverlays({{run(8, 7), 2, QColor(Qt::darkGreen), QStringLiteral("opened")}});
    QVERIFY(!hint->visible()); // an opened run is data too
}

LOADERLAB_TEST_MAIN(TestPlotHover)
#include "test_plot_hover.moc"
