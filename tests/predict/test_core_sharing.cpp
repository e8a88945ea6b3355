// How the run's busy threads share the cores with other programs' busy threads
// (core/predict/core_sharing.h): even sharing without others; beside others, the run's
// threads on the cores the others leave free first, and halfway to even sharing beyond
// them, worked out by hand for 2 cores;
// counts between whole ones interpolated; and, over every whole count up to 8 cores,
// that no core is left idle while a thread waits and that more threads of the run
// never take less in all nor leave other programs more.

#include "core/predict/core_sharing.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <cmath>

using namespace loaderlab;

class TestCoreSharing : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void withoutOtherProgramsSharingIsEven();
    void theRunGathersOnTheFreeCores_data();
    void theRunGathersOnTheFreeCores();
    void countsBetweenWholeOnesAreInterpolated();
    void everyCoreWorksAndMoreThreadsNeverTakeLess();
};

namespace {

bool sameRate(double a, double b)
{
    return std::abs(a - b) <= 1e-12;
}

} // namespace

void TestCoreSharing::withoutOtherProgramsSharingIsEven()
{
    QVERIFY(sameRate(coreShares(2, 1, 0).run, 1.0));
    QVERIFY(sameRate(coreShares(2, 3, 0).run, 2.0 / 3.0));
    QVERIFY(sameRate(coreShares(0.5, 2, 0).run, 0.25));
    // Other programs alone: 3 threads on 2 cores.
    QVERIFY(sameRate(coreShares(2, 0, 3).other, 2.0 / 3.0));
    QVERIFY(sameRate(coreShares(2, 0, 1).other, 1.0));
}

void TestCoreSharing::theRunGathersOnTheFreeCores_data()
{
    QTest::addColumn<double>("cores");
    QTest::addColumn<double>("run");
    QTest::addColumn<double>("others");
    QTest::addColumn<double>("runRate");
    QTest::addColumn<double>("otherRate");
    // A busy loop on one of 2 cores.
    QTest::newRow("1 worker beside a loop") << 2.0 << 1.0 << 1.0 << 1.0 << 1.0;
    // More workers than the free core: halfway between both on the free core (1/2
    // each, the loop 1) and even sharing (2/3 each, the loop 2/3): 7/12 each, the
    // loop 5/6.
    QTest::newRow("2 workers beside a loop") << 2.0 << 2.0 << 1.0 << 7.0 / 12.0 << 5.0 / 6.0;
    // 2 on the free core, 1 beside the loop: 1.5 cores, as even sharing says.
    QTest::newRow("3 workers beside a loop") << 2.0 << 3.0 << 1.0 << 0.5 << 0.5;
    // Placed: 3 on the free core (a tie goes there), 1 beside the loop, 1.5 cores and
    // the loop 1/2; even: 5 threads at 2/5, 1.6 and 0.4. Halfway: 1.55 (0.3875 each)
    // and 0.45.
    QTest::newRow("4 workers beside a loop") << 2.0 << 4.0 << 1.0 << 0.3875 << 0.45;
    // Placed: 3 and the loop with 2, 1 + 2/3 cores; even sharing says the same.
    QTest::newRow("5 workers beside a loop") << 2.0 << 5.0 << 1.0 << 1.0 / 3.0 << 1.0 / 3.0;
    // Four others spread 2 and 2; the worker joins one pair: 1/3 of a core, and the
    // others have 2/3 + 1.
    QTest::newRow("1 worker beside 4 others") << 2.0 << 1.0 << 4.0 << 1.0 / 3.0 << 5.0 / 12.0;
    // A large machine: every thread has a core of its own.
    QTest::newRow("3 workers and a loop on 48 cores") << 48.0 << 3.0 << 1.0 << 1.0 << 1.0;
}

void TestCoreSharing::theRunGathersOnTheFreeCores()
{
    QFETCH(double, cores);
    QFETCH(double, run);
    QFETCH(double, others);
    QFETCH(double, runRate);
    QFETCH(double, otherRate);
    const CoreShares shares = coreShares(cores, run, others);
    QVERIFY2(sameRate(shares.run, runRate), qPrintable(QString::number(shares.run)));
    QVERIFY2(sameRate(shares.other, otherRate), qPrintable(QString::number(shares.other)));
}

void TestCoreSharing::countsBetweenWholeOnesAreInterpolated()
{
    // Half a loop beside 2 workers on 2 cores: the run has (2 + 7/6) / 2 = 19/12
    // cores (19/24 each), the others (0 + 5/6) / 2 = 5/12 (5/6 for each of the 0.5).
    QVERIFY(sameRate(coreShares(2, 2, 0.5).run, 19.0 / 24.0));
    QVERIFY(sameRate(coreShares(2, 2, 0.5).other, 5.0 / 6.0));
    // 1.5 cores: halfway between 1 core (1/2 each) and 2 (a core each).
    QVERIFY(sameRate(coreShares(1.5, 1, 1).run, 0.75));
    QVERIFY(sameRate(coreShares(1.5, 1, 1).other, 0.75));
    // Under 1 core, in proportion to 1 core's.
    QVERIFY(sameRate(coreShares(0.5, 1, 1).run, 0.25));
    // 1.5 threads of the run beside a loop on 2 cores: (1 + 7/6) / 2 = 13/12 cores
    // for 1.5, 13/18 each.
    QVERIFY(sameRate(coreShares(2, 1.5, 1).run, 13.0 / 18.0));
}

void TestCoreSharing::everyCoreWorksAndMoreThreadsNeverTakeLess()
{
    for (int c = 1; c <= 8; ++c) {
        for (int b = 1; b <= 12; ++b) {
            double lastRun = 0.0, lastOther = 1e9;
            for (int k = 1; k <= 12; ++k) {
                const CoreShares s = coreShares(c, k, b);
                const double run = s.run * k, other = s.other * b;
                const QString where =
                    QStringLiteral("%1 cores, %2 run, %3 others").arg(c).arg(k).arg(b);
                QVERIFY2(std::abs(run + other - std::min<double>(c, k + b)) < 1e-9,
                         qPrintable(where));
                QVERIFY2(s.run <= 1.0 && s.other <= 1.0, qPrintable(where));
                QVERIFY2(run >= lastRun - 1e-12, qPrintable(where));
                QVERIFY2(other <= lastOther + 1e-12, qPrintable(where));
                lastRun = run;
                lastOther = other;
            }
        }
    }
}

LOADERLAB_GUILESS_TEST_MAIN(TestCoreSharing)
#include "test_core_sharing.moc"
