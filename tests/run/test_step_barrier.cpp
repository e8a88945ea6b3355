// StepBarrier: the ranks' per-step synchronisation, and its decision whether a
// collective (the gradient exchange) may follow: Complete only when every rank of the
// run arrived, Partial once one has dropped out, Stopped for every rank once a stop
// broke a step, so that no rank enters a collective its peers skip.

#include "core/run/step_barrier.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <atomic>
#include <thread>
#include <vector>

using namespace loaderlab;

class TestStepBarrier : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void oneRankNeverWaits();
    void everyRankArrivedIsComplete();
    void afterADropStepsArePartial();
    void aStopBreaksTheStepForEveryRank();
};

void TestStepBarrier::oneRankNeverWaits()
{
    StepBarrier one(1);
    QCOMPARE(one.arriveAndWait({}), StepSync::Complete);
    StepBarrier independent(0); // ranks that do not synchronise
    QCOMPARE(independent.arriveAndWait({}), StepSync::Complete);
}

void TestStepBarrier::everyRankArrivedIsComplete()
{
    // Three ranks, five steps: every rank sees every step Complete.
    StepBarrier barrier(3);
    std::vector<std::vector<StepSync>> seen(3);
    {
        std::vector<std::jthread> ranks;
        for (int r = 0; r < 3; ++r)
            ranks.emplace_back([&, r] {
                for (int step = 0; step < 5; ++step)
                    seen[static_cast<std::size_t>(r)].push_back(barrier.arriveAndWait({}));
            });
    }
    for (const auto &steps : seen)
        QCOMPARE(steps, std::vector<StepSync>(5, StepSync::Complete));
}

void TestStepBarrier::afterADropStepsArePartial()
{
    // Rank 2 leaves before arriving; the two others pass, but not as a whole run.
    StepBarrier barrier(3);
    std::atomic<StepSync> first{StepSync::Stopped};
    std::jthread waiting([&] { first = barrier.arriveAndWait({}); });
    barrier.drop();
    QCOMPARE(barrier.arriveAndWait({}), StepSync::Partial);
    waiting.join();
    QCOMPARE(first.load(), StepSync::Partial);
    // Every later step too, though the two remaining ranks arrive.
    std::jthread again([&] { first = barrier.arriveAndWait({}); });
    QCOMPARE(barrier.arriveAndWait({}), StepSync::Partial);
    again.join();
    QCOMPARE(first.load(), StepSync::Partial);
}

void TestStepBarrier::aStopBreaksTheStepForEveryRank()
{
    // Rank 0 waits; a stop ends its wait before rank 1 arrives. Rank 1, arriving
    // after, is not let through into a collective rank 0 has left.
    StepBarrier barrier(2);
    std::stop_source stop;
    std::atomic<bool> returned{false};
    std::atomic<StepSync> waited{StepSync::Complete};
    std::jthread rank0([&] {
        waited = barrier.arriveAndWait(stop.get_token());
        returned = true;
    });
    QTest::qWait(50);
    QVERIFY(!returned); // still waiting for rank 1
    stop.request_stop();
    rank0.join();
    QCOMPARE(waited.load(), StepSync::Stopped);
    QCOMPARE(barrier.arriveAndWait({}), StepSync::Stopped);
    QCOMPARE(barrier.arriveAndWait({}), StepSync::Stopped);
}

LOADERLAB_GUILESS_TEST_MAIN(TestStepBarrier)
#include "test_step_barrier.moc"
