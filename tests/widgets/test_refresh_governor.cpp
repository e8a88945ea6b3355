// RefreshGovernor: slows the window down only when the CPU is saturated.

#include "tests/support/test_main.h"
#include "widgets/session/refresh_governor.h"

#include <QtTest>

using namespace loaderlab;

class TestRefreshGovernor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void startsAtThirtyHertz();
    void stretchesWhenSaturatedAndOverBudget();
    void keepsRateWhenCpuHasRoom();
    void recoversWhenCpuFreesUp();
};

void TestRefreshGovernor::startsAtThirtyHertz()
{
    RefreshGovernor governor;
    QCOMPARE(governor.intervalNs(), RefreshGovernor::kMinIntervalNs);
    QVERIFY(governor.shouldRefresh());
    QVERIFY(!governor.shouldRefresh()); // immediately again: too soon
}

void TestRefreshGovernor::stretchesWhenSaturatedAndOverBudget()
{
    RefreshGovernor governor;
    governor.adapt(0.18, 0.0); // window thread at 18 % of a core, no idle CPU
    QCOMPARE(governor.intervalNs(), RefreshGovernor::kMinIntervalNs * 4); // capped at 4x per step
    for (int i = 0; i < 10; ++i)
        governor.adapt(0.18, 0.0);
    QCOMPARE(governor.intervalNs(), RefreshGovernor::kMaxIntervalNs); // never below 2 Hz
}

void TestRefreshGovernor::keepsRateWhenCpuHasRoom()
{
    RefreshGovernor governor;
    governor.adapt(0.18, 0.50); // expensive frames, but half the machine is idle
    QCOMPARE(governor.intervalNs(), RefreshGovernor::kMinIntervalNs);
    governor.adapt(0.02, 0.0); // saturated, but the window is within budget
    QCOMPARE(governor.intervalNs(), RefreshGovernor::kMinIntervalNs);
}

void TestRefreshGovernor::recoversWhenCpuFreesUp()
{
    RefreshGovernor governor;
    for (int i = 0; i < 5; ++i)
        governor.adapt(0.2, 0.0);
    QCOMPARE(governor.intervalNs(), RefreshGovernor::kMaxIntervalNs);
    for (int i = 0; i < 10; ++i)
        governor.adapt(0.01, 0.6);
    QCOMPARE(governor.intervalNs(), RefreshGovernor::kMinIntervalNs);
}

LOADERLAB_GUILESS_TEST_MAIN(TestRefreshGovernor)
#include "test_refresh_governor.moc"
