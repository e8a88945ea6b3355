// The plots' axes follow the runs that are shown: unticking a run rescales to those
// left, following never follows a hidden live run (nor collapses the wait axis), and
// Fit all (View → Fit all, key A) shows every shown run whole. On a live run of 943
// batches and an opened run of 14, the case of a short run compared with a long one.
// And the throughput plot's median of a data-parallel run is the summary's.

#include "tests/support/test_main.h"
#include "tests/support/trace_time.h"
#include "widgets/plots/throughput_plot.h"
#include "widgets/plots/wait_histogram_plot.h"
#include "widgets/plots/wait_pattern_plot.h"
#include "widgets/plots/wait_time_plot.h"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QToolTip>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <tuple>

using namespace loaderlab;

namespace {

using loaderlab::test::kMs;

// `count` batches one after the other, each waiting `waitMs` then computing 2 ms.
std::shared_ptr<TraceLog> steadyRun(std::int64_t count, std::int64_t waitMs)
{
    auto log = std::make_shared<TraceLog>();
    std::int64_t now = kMs;
    for (std::int64_t i = 0; i < count; ++i) {
        TraceRecord r;
        r.index = i;
        r.worker = static_cast<std::int32_t>(i % 2);
        r.samples = 32;
        r.requestNs = now;
        r.deliveryNs = now + waitMs * kMs;
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.deliveryNs + 2 * kMs;
        now = r.computeEndNs;
        log->append(r);
    }
    return log;
}

struct Runs
{
    std::shared_ptr<TraceLog> live = steadyRun(943, 1);
    PlotOverlay opened{steadyRun(14, 7), 2, QColor(Qt::darkGreen), QStringLiteral("opened")};

    // The live run on `plot`, followed, with the opened one drawn over it.
    void showOn(LivePlot &plot) const
    {
        plot.setTrace(live, 2);
        plot.refresh();
        plot.setOverlays({opened});
    }
};

} // namespace

class TestPlotFit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void untickingTheLiveRunRescalesToTheShownOne();
    void followingIgnoresAHiddenLiveRun();
    void fitAllShowsEveryShownRunWhole();
    void dataParallelThroughputAgreesWithTheSummary();
    void markerLabelsNeverOverlap();
    void histogramTickLabelsNeverTouch();
    void legendsSitOutsideTheData();
    void emptyPlotHintsFitTheirPlot();
};

void TestPlotFit::untickingTheLiveRunRescalesToTheShownOne()
{
    Runs runs;
    WaitTimePlot plot;
    runs.showOn(plot);
    QVERIFY(plot.xAxis->range().upper > 900); // following the live run's 943 batches

    plot.setLiveVisible(false);
    QVERIFY2(plot.xAxis->range().upper < 20 && plot.xAxis->range().upper >= 13,
             qPrintable(QString::number(plot.xAxis->range().upper)));
    // The opened run waits 7 ms a batch: the value axis shows it.
    QVERIFY(plot.yAxis->range().upper >= 7.0);
    QVERIFY(plot.yAxis->range().upper < 20.0);
}

void TestPlotFit::followingIgnoresAHiddenLiveRun()
{
    Runs runs;
    ThroughputPlot throughput;
    ThroughputPlot throughputShown;
    WaitTimePlot plot;
    WaitTimePlot plotShown;
    const std::pair<LivePlot *, LivePlot *> pairs[] = {{&plot, &plotShown},
                                                       {&throughput, &throughputShown}};
    for (const auto &[p, shown] : pairs) {
        for (LivePlot *each : {p, shown})
            runs.showOn(*each);
        p->setLiveVisible(false);
        p->setFollowing(false);
        p->setFollowing(true); // F pressed with the live run unticked
        // The opened run is 14 batches of the live run's 943: a sliver of its range.
        QVERIFY2(p->xAxis->range().upper < 0.1 * shown->xAxis->range().upper,
                 qPrintable(QStringLiteral("%1: %2 against %3")
                                .arg(QLatin1String(p->metaObject()->className()))
                                .arg(p->xAxis->range().upper)
                                .arg(shown->xAxis->range().upper)));
        QVERIFY2(p->yAxis->range().upper > 1e-2,
                 qPrintable(QStringLiteral("%1: value axis collapsed to %2")
                                .arg(QLatin1String(p->metaObject()->className()))
                                .arg(p->yAxis->range().upper)));
    }
    // New live batches arrive: the hidden run is not followed.
    const QCPRange before = plot.xAxis->range();
    TraceRecord r = (*runs.live)[runs.live->size() - 1];
    for (int i = 0; i < 100; ++i) {
        r.index += 1;
        r.requestNs = r.computeEndNs;
        r.deliveryNs = r.requestNs + kMs;
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.deliveryNs + 2 * kMs;
        runs.live->append(r);
    }
    plot.refresh();
    QCOMPARE(plot.xAxis->range().upper, before.upper);
    QVERIFY(plot.xAxis->range().upper < 20);
}

void TestPlotFit::fitAllShowsEveryShownRunWhole()
{
    Runs runs;
    WaitTimePlot plot;
    runs.showOn(plot);
    plot.xAxis->setRange(100, 120); // the user zoomed in
    plot.showWholeRun();
    QVERIFY(!plot.following());
    QVERIFY(plot.xAxis->range().lower <= 0.0);
    QVERIFY(plot.xAxis->range().upper >= 942.0);
    QVERIFY(plot.yAxis->range().upper >= 7.0); // the opened run's waits are in view
}

void TestPlotFit::dataParallelThroughputAgreesWithTheSummary()
{
    // 2 ranks of 2 workers; each rank takes its workers' 2 batches of 32 within 1 ms,
    // every 20 ms, rank 1 3 ms after rank 0: 3,200 samples/s a rank, 6,400 in all.
    // The log holds the batches in request order, the ranks' bursts in turn.
    auto log = std::make_shared<TraceLog>();
    ConfigVersion first;
    first.config.devices = 2;
    first.config.loader.numWorkers = 2;
    log->addConfigVersion(first);
    std::int64_t next[2] = {0, 0};
    for (int period = 0; period < 200; ++period) {
        for (int rank = 0; rank < 2; ++rank) {
            for (int k = 0; k < 2; ++k) {
                TraceRecord r;
                r.index = next[rank]++;
                r.rank = rank;
                r.worker = k;
                r.samples = 32;
                r.requestNs = (20 * period + 3 * rank + k) * kMs + kMs;
                r.deliveryNs = r.requestNs + kMs / 2;
                r.computeStartNs = r.deliveryNs;
                r.computeEndNs = r.deliveryNs + kMs / 4;
                log->append(r);
            }
        }
    }
    ThroughputPlot plot;
    plot.setTrace(log, 2);
    plot.refresh();
    const double summary = log->summary().samplesPerSecMedian;
    QVERIFY2(std::abs(summary - 6400.0) < 64.0, qPrintable(QString::number(summary)));
    QVERIFY2(std::abs(plot.median() - summary) < 0.01 * summary,
             qPrintable(QStringLiteral("plot %1, summary %2").arg(plot.median()).arg(summary)));
}

void TestPlotFit::markerLabelsNeverOverlap()
{
    // 50 autotune moves, one every 2 batches of a 943-batch run: far closer than
    // their labels are wide; then one alone, with room for its text.
    auto log = steadyRun(943, 1);
    for (int i = 0; i < 50; ++i)
        log->addMarker({2 * i + 10,
                        (2 * i + 10) * 3 * kMs,
                        MarkerKind::Autotune,
                        i + 1,
                        {},
                        "trying workers " + std::to_string(i % 4 + 1)});
    log->addMarker({600, 600 * 3 * kMs, MarkerKind::Autotune, 51, {}, "kept"});
    for (LivePlot *plot : std::initializer_list<LivePlot *>{new WaitTimePlot, new ThroughputPlot}) {
        std::unique_ptr<LivePlot> owner(plot);
        plot->resize(1000, 400);
        plot->setTrace(log, 2);
        plot->refresh();
        plot->showWholeRun();
        plot->replot();
        struct Shown
        {
            double left;
            double right;
            QString text;
        };
        std::vector<Shown> shown;
        int full = 0;
        for (QCPItemText *label :
             plot->findChildren<QCPItemText *>(QStringLiteral("markerLabel"))) {
            if (!label->visible())
                continue;
            const double left = label->position->pixelPosition().x();
            const double width = QFontMetricsF(label->font()).horizontalAdvance(label->text())
                                 + label->padding().left() + label->padding().right();
            shown.push_back({left, left + width, label->text()});
            full += label->text().contains(QStringLiteral("(kept)"));
        }
        QVERIFY2(shown.size() >= 3, "a few numbered flags and the lone marker's text");
        QCOMPARE(full, 1); // the lone one; the crowded ones are numbers
        std::sort(shown.begin(), shown.end(),
                  [](const Shown &a, const Shown &b) { return a.left < b.left; });
        for (std::size_t i = 1; i < shown.size(); ++i)
            QVERIFY2(shown[i].left >= shown[i - 1].right,
                     qPrintable(QStringLiteral("'%1' at %2 overlaps '%3' ending at %4")
                                    .arg(shown[i].text)
                                    .arg(shown[i].left)
                                    .arg(shown[i - 1].text)
                                    .arg(shown[i - 1].right)));
        // The mouse over a crowded marker reads its text.
        plot->show();
        QVERIFY(QTest::qWaitForWindowExposed(plot));
        // The 11th marker (batch 30), wherever this plot's key axis puts it.
        const auto labels = plot->findChildren<QCPItemText *>(QStringLiteral("markerLabel"));
        const QPointF pos(labels.at(10)->position->pixelPosition().x(),
                          plot->axisRect()->center().y());
        QMouseEvent move(QEvent::MouseMove, pos, plot->mapToGlobal(pos), Qt::NoButton, Qt::NoButton,
                         Qt::NoModifier);
        QApplication::sendEvent(plot, &move);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().contains(QStringLiteral("#11 autotune"))
                     && QToolTip::text().contains(QStringLiteral("(trying workers 3)")),
                 qPrintable(QToolTip::text()));
        QToolTip::hideText();

        // The markers are the live run's: unticking it hides them with its series.
        plot->setLiveVisible(false);
        plot->replot();
        for (const auto *item : plot->findChildren<QCPAbstractItem *>())
            QVERIFY2(!item->visible() || !item->objectName().startsWith(QStringLiteral("marker")),
                     qPrintable(item->objectName()));
        QVERIFY(plot->hoverText(pos).isEmpty());
    }
}

void TestPlotFit::histogramTickLabelsNeverTouch()
{
    // Waits from 1 us to 1 s: seven decades on the axis.
    auto log = std::make_shared<TraceLog>();
    for (std::int64_t i = 0; i < 700; ++i) {
        TraceRecord r;
        r.index = i;
        r.samples = 1;
        r.requestNs = i * kMs;
        r.deliveryNs = r.requestNs + static_cast<std::int64_t>(std::pow(10.0, 3.0 + i % 7));
        r.computeStartNs = r.computeEndNs = r.deliveryNs;
        log->append(r);
    }
    for (const int width : {260, 420, 1400}) {
        WaitHistogramPlot plot;
        plot.resize(width, 300);
        plot.show(); // the plot lays out at its size once shown
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.setTrace(log, 1);
        plot.refresh();
        plot.replot();
        plot.replot(); // the second layout sees the step the first chose
        const QFontMetricsF metrics(plot.xAxis->tickLabelFont());
        double end = -1e300;
        int labels = 0;
        const auto ticks = plot.xAxis->tickVector();
        const auto texts = plot.xAxis->tickVectorLabels();
        for (qsizetype i = 0; i < ticks.size(); ++i) {
            if (texts[i].isEmpty() || !plot.xAxis->range().contains(ticks[i]))
                continue;
            const double half = metrics.horizontalAdvance(texts[i]) / 2.0;
            const double centre = plot.xAxis->coordToPixel(ticks[i]);
            QVERIFY2(
                centre - half >= end + 4.0, // a space between labels
                qPrintable(QStringLiteral("%1 px wide: '%2' is within 4 px of the label before")
                               .arg(width)
                               .arg(texts[i])));
            end = centre + half;
            ++labels;
        }
        QVERIFY2(labels >= 2, qPrintable(QString::number(width)));
        if (width == 1400)
            QVERIFY2(labels >= 7, "wide enough for every decade's label");
    }
}

void TestPlotFit::legendsSitOutsideTheData()
{
    // At the live window's sizes, 1280 x 800's plots included: no legend covers the
    // axes, where the newest batches (top right) and the tallest bars are.
    Runs runs;
    for (const QSize size : {QSize(380, 200), QSize(900, 300)}) {
        WaitTimePlot wait;
        ThroughputPlot throughput;
        WaitHistogramPlot histogram;
        for (LivePlot *plot : {static_cast<LivePlot *>(&wait), static_cast<LivePlot *>(&throughput),
                               static_cast<LivePlot *>(&histogram)}) {
            plot->resize(size);
            plot->show();
            QVERIFY(QTest::qWaitForWindowExposed(plot));
            runs.showOn(*plot);
            plot->replot();
            QVERIFY(plot->legend->visible());
            // Its entries side by side never widen the plot past its place at 1280 x 800.
            const int minimum = static_cast<QWidget *>(plot)->minimumSizeHint().width();
            QVERIFY2(minimum < 380, qPrintable(QString::number(minimum)));
            QVERIFY2(!plot->legend->outerRect().intersects(plot->axisRect()->rect()),
                     qPrintable(QStringLiteral("%1 at %2 x %3")
                                    .arg(QLatin1String(plot->metaObject()->className()))
                                    .arg(size.width())
                                    .arg(size.height())));
        }
    }
}

void TestPlotFit::emptyPlotHintsFitTheirPlot()
{
    // The hints of the empty wait plot and wait pattern, at the narrow widths of
    // 1280 x 800 (German is a third longer): every line within the axes, every word kept.
    WaitTimePlot wait;
    WaitPatternPlot pattern;
    for (const auto &[plot, name, width] :
         {std::tuple<QCustomPlot *, const char *, int>{&wait, "firstStartHint", 380},
          {&pattern, "patternHint", 190}}) {
        plot->resize(width, 260);
        plot->show();
        QVERIFY(QTest::qWaitForWindowExposed(plot));
        plot->replot();
        QCPItemText *hint = plot->findChild<QCPItemText *>(QLatin1String(name));
        QVERIFY(hint);
        QVERIFY(hint->visible());
        const QFontMetricsF metrics(hint->font(), plot);
        const QStringList lines = hint->text().split(QLatin1Char('\n'));
        QVERIFY2(lines.size() >= 3, qPrintable(hint->text()));
        for (const QString &line : lines)
            QVERIFY2(metrics.horizontalAdvance(line) <= plot->axisRect()->width(),
                     qPrintable(QStringLiteral("%1: '%2' in %3 px")
                                    .arg(QLatin1String(name), line)
                                    .arg(plot->axisRect()->width())));
        QVERIFY2(hint->text().contains(QStringLiteral("column"))
                     || QString::fromLatin1(name) != QLatin1String("patternHint"),
                 qPrintable(hint->text()));
        // Wider: fewer lines.
        plot->resize(width * 3, 260);
        plot->replot();
        QVERIFY2(hint->text().count(QLatin1Char('\n')) < lines.size() - 1,
                 qPrintable(hint->text()));
    }
}

LOADERLAB_TEST_MAIN(TestPlotFit)
#include "test_plot_fit.moc"
