// The Events list: every marker of the shown runs, grouped by run; events other than
// epochs numbered as the plots number their crowded labels ("#4"), epochs never a
// bare number ("epoch N", "e N" crowded); new markers appended as they come; a hidden
// run's events gone; choosing a row centres the plots on it.

#include "widgets/plots/throughput_plot.h"
#include "widgets/plots/wait_time_plot.h"
#include "widgets/session/event_list_view.h"
#include "widgets/session/run_list.h"

#include "tests/support/test_main.h"
#include "tests/support/trace_time.h"

#include <QRegularExpression>
#include <QSignalSpy>
#include <QtTest>

#include <map>
#include <memory>

using namespace loaderlab;

namespace {

using loaderlab::test::kMs;

// `count` batches 3 ms apart.
std::shared_ptr<TraceLog> eventRun(std::int64_t count)
{
    auto log = std::make_shared<TraceLog>();
    for (std::int64_t i = 0; i < count; ++i) {
        TraceRecord r;
        r.index = i;
        r.samples = 32;
        r.requestNs = (i + 1) * 3 * kMs;
        r.deliveryNs = r.requestNs + kMs;
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.deliveryNs + 2 * kMs;
        log->append(r);
    }
    return log;
}

TraceMarker epoch(std::int64_t batch, int number)
{
    return {batch, batch * 3 * kMs, MarkerKind::Epoch, 0, {}, std::to_string(number)};
}

TraceMarker workersChange(std::int64_t batch, int before, int after)
{
    return {batch,
            batch * 3 * kMs,
            MarkerKind::Reconfigure,
            1,
            {{"loader.num_workers", std::to_string(before), std::to_string(after)}},
            {}};
}

// A run of 400 batches: an epoch every 10 batches and, between epochs 3 and 4, three
// setting changes 2 batches apart (the issue's "epoch 3 | 3 | 4 | epoch 4").
std::shared_ptr<TraceLog> crowdedRun()
{
    auto log = eventRun(400);
    for (int e = 0; e < 40; ++e) {
        log->addMarker(epoch(10 * e, e));
        if (e == 3) {
            log->addMarker(workersChange(32, 4, 2));
            log->addMarker(workersChange(34, 2, 3));
            log->addMarker(workersChange(36, 3, 4));
        }
    }
    log->addMarker({200, 200 * 3 * kMs, MarkerKind::Pause, 1, {}, {}});
    return log;
}

QTreeWidgetItem *group(EventListView &view, const QString &name)
{
    for (int i = 0; i < view.topLevelItemCount(); ++i)
        if (view.topLevelItem(i)->text(0) == name)
            return view.topLevelItem(i);
    return nullptr;
}

} // namespace

class TestEventList : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void listsEveryMarkerOfTheShownRuns();
    void numbersAreThePlotsNumbers();
    void choosingARowCentresThePlots();
};

void TestEventList::listsEveryMarkerOfTheShownRuns()
{
    RunList runs;
    auto live = crowdedRun();
    RunConfig config;
    runs.setLive(live, config, 4);
    RunEntry kept;
    kept.name = QStringLiteral("kept one");
    kept.trace = [] {
        auto log = eventRun(20);
        log->addMarker(epoch(0, 0));
        log->addMarker(
            {5, 15 * kMs, MarkerKind::Autotune, 1, {{"loader.num_workers", "1", "2"}}, "trying"});
        return log;
    }();
    const int keptId = runs.add(kept);
    EventListView view(&runs);

    QCOMPARE(view.topLevelItemCount(), 2);
    QTreeWidgetItem *liveGroup = group(view, runs.live().name);
    QTreeWidgetItem *keptGroup = group(view, QStringLiteral("kept one"));
    QVERIFY(liveGroup && keptGroup);
    QCOMPARE(liveGroup->childCount(), 40 + 3 + 1);
    QCOMPARE(keptGroup->childCount(), 2);

    // Epoch 3's row, then the three changes numbered 1, 2, 3 with before and after.
    const QTreeWidgetItem *epoch3 = liveGroup->child(3);
    QCOMPARE(epoch3->text(EventListView::NumberColumn), QString());
    QCOMPARE(epoch3->text(EventListView::EventColumn), QStringLiteral("epoch 3"));
    QCOMPARE(epoch3->text(EventListView::BatchColumn), QStringLiteral("30"));
    const QTreeWidgetItem *first = liveGroup->child(4);
    QCOMPARE(first->text(EventListView::NumberColumn), QStringLiteral("1"));
    QCOMPARE(first->text(EventListView::BatchColumn), QStringLiteral("32"));
    QCOMPARE(first->text(EventListView::TimeColumn), QStringLiteral("0.10"));
    QVERIFY2(first->text(EventListView::EventColumn).contains(QStringLiteral("4 → 2")),
             qPrintable(first->text(EventListView::EventColumn)));
    QCOMPARE(liveGroup->child(6)->text(EventListView::NumberColumn), QStringLiteral("3"));
    // The pause, marked after them, is event 4, whatever epochs came between.
    const QTreeWidgetItem *pause = liveGroup->child(liveGroup->childCount() - 1);
    QCOMPARE(pause->text(EventListView::EventColumn), QStringLiteral("paused"));
    QCOMPARE(pause->text(EventListView::NumberColumn), QStringLiteral("4"));
    // Each run numbers its own events.
    QCOMPARE(keptGroup->child(1)->text(EventListView::NumberColumn), QStringLiteral("1"));

    // New markers of a run are appended as they come, numbered on.
    live->addMarker(workersChange(390, 4, 1));
    view.refresh();
    QCOMPARE(liveGroup->childCount(), 45);
    QCOMPARE(liveGroup->child(44)->text(EventListView::NumberColumn), QStringLiteral("5"));

    // An unticked run's events leave the list; ticked again, they come back.
    runs.setVisible(keptId, false);
    view.rebuild();
    QCOMPARE(view.topLevelItemCount(), 1);
    runs.setVisible(keptId, true);
    view.rebuild();
    QCOMPARE(view.topLevelItemCount(), 2);
}

void TestEventList::numbersAreThePlotsNumbers()
{
    RunList runs;
    auto live = crowdedRun();
    runs.setLive(live, RunConfig{}, 4);
    EventListView view(&runs);
    std::map<QString, QString> batchOfNumber; // "#2" → "34"
    QTreeWidgetItem *liveGroup = view.topLevelItem(0);
    for (int i = 0; i < liveGroup->childCount(); ++i) {
        const QTreeWidgetItem *row = liveGroup->child(i);
        if (!row->text(EventListView::NumberColumn).isEmpty())
            batchOfNumber[QStringLiteral("#") + row->text(EventListView::NumberColumn)] = row->text(
                EventListView::BatchColumn);
    }
    QCOMPARE(batchOfNumber.size(), std::size_t{4});

    WaitTimePlot plot;
    plot.resize(900, 300);
    plot.setTrace(live, 4);
    plot.refresh();
    plot.showWholeRun();
    plot.replot();
    int events = 0;
    int epochs = 0;
    const QRegularExpression bareNumber(QStringLiteral("^\\d+$"));
    const QRegularExpression crowdedEpoch(QStringLiteral("^e(\\d+)$"));
    for (QCPItemText *label : plot.findChildren<QCPItemText *>(QStringLiteral("markerLabel"))) {
        if (!label->visible())
            continue;
        const QString text = label->text();
        QVERIFY2(!bareNumber.match(text).hasMatch(), qPrintable(text));
        if (text.startsWith(QLatin1Char('#'))) {
            // A crowded event: its number is the list's, at the list's batch.
            QVERIFY2(batchOfNumber.count(text), qPrintable(text));
            QCOMPARE(label->position->key(), batchOfNumber[text].toDouble());
            ++events;
        } else if (const auto match = crowdedEpoch.match(text); match.hasMatch()) {
            QCOMPARE(label->position->key(), match.captured(1).toDouble() * 10.0);
            ++epochs;
        }
    }
    // 400 batches on 900 px: the three close changes crowd, and so do the epochs.
    QVERIFY2(events >= 1, "a crowded event shows its number");
    QVERIFY2(epochs >= 1, "a crowded epoch shows e N");

    // The hover names an event with its number, an epoch without one.
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    const auto hoverAt = [&plot](double key) {
        const QPointF pos(plot.xAxis->coordToPixel(key), plot.axisRect()->center().y());
        QMouseEvent move(QEvent::MouseMove, pos, plot.mapToGlobal(pos), Qt::NoButton, Qt::NoButton,
                         Qt::NoModifier);
        QApplication::sendEvent(&plot, &move);
        return QToolTip::text();
    };
    QTRY_VERIFY(hoverAt(34.0).contains(QStringLiteral("#2 Workers 2 → 3")));
    QTRY_VERIFY(hoverAt(100.0).startsWith(QStringLiteral("epoch 10")));
    QVERIFY2(!hoverAt(100.0).contains(QLatin1Char('#')), qPrintable(QToolTip::text()));
}

void TestEventList::choosingARowCentresThePlots()
{
    RunList runs;
    auto live = crowdedRun();
    runs.setLive(live, RunConfig{}, 4);
    EventListView view(&runs);
    QSignalSpy chosen(&view, &EventListView::eventChosen);
    WaitTimePlot waits;
    ThroughputPlot throughput;
    connect(&view, &EventListView::eventChosen, &waits, [&](const TraceMarker &marker) {
        waits.centreOn(marker);
        throughput.centreOn(marker);
    });
    for (LivePlot *plot : std::initializer_list<LivePlot *>{&waits, &throughput}) {
        plot->resize(900, 300);
        plot->setTrace(live, 4);
        plot->refresh();
        plot->xAxis->setRange(300, 380); // zoomed in far from the pause
        plot->xAxis->setRange(plot == &waits ? QCPRange(300, 380) : QCPRange(0.9, 1.14));
    }
    // The pause at batch 200 (0.6 s).
    QTreeWidgetItem *liveGroup = view.topLevelItem(0);
    QTreeWidgetItem *pause = nullptr;
    for (int i = 0; i < liveGroup->childCount(); ++i)
        if (liveGroup->child(i)->text(EventListView::EventColumn) == QStringLiteral("paused"))
            pause = liveGroup->child(i);
    QVERIFY(pause);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.scrollToItem(pause);
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.visualItemRect(pause).center());
    QCOMPARE(chosen.size(), 1);
    QCOMPARE(chosen.front().at(1).toInt(), RunList::kLiveId);
    QCOMPARE(waits.xAxis->range().center(), 200.0);
    QCOMPARE(waits.xAxis->range().size(), 80.0); // the zoom kept
    QVERIFY(std::abs(throughput.xAxis->range().center() - 0.6) < 1e-9);
    QVERIFY(!waits.following());
    // A group's row (the run's name) is no event.
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.visualItemRect(liveGroup).center());
    QCOMPARE(chosen.size(), 1);
}

LOADERLAB_TEST_MAIN(TestEventList)
#include "test_event_list.moc"
