// Stragglers (core/stats/straggler.h): the expected slowest of N ranks' data waits
// from one run's waits, against answers worked out by hand.

#include "core/stats/straggler.h"

#include "tests/support/test_main.h"

#include <QtTest>

using namespace loaderlab;

class TestStraggler : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void expectedLargestByHand();
    void amplificationOverRankCounts();
};

void TestStraggler::expectedLargestByHand()
{
    // {0, 1}, 2 draws: the largest is 0 only when both are 0 (1/4): 3/4.
    QCOMPARE(expectedLargestOf({1.0, 0.0}, 2), 0.75);
    // {1, 2, 3, 4}, 2 draws: (1 x 1 + 2 x 3 + 3 x 5 + 4 x 7) / 16 = 50 / 16.
    QCOMPARE(expectedLargestOf({4.0, 2.0, 3.0, 1.0}, 2), 3.125);
    // One draw is the mean; many draws tend to the largest value.
    QCOMPARE(expectedLargestOf({1.0, 2.0, 3.0, 4.0}, 1), 2.5);
    QVERIFY(std::abs(expectedLargestOf({1.0, 2.0, 3.0, 4.0}, 200) - 4.0) < 1e-9);
    // Equal waits: no straggler, whatever the ranks.
    QCOMPARE(expectedLargestOf({5.0, 5.0, 5.0}, 32), 5.0);
    QCOMPARE(expectedLargestOf({}, 4), 0.0);
    QCOMPARE(expectedLargestOf({3.0}, 0), 0.0);
}

void TestStraggler::amplificationOverRankCounts()
{
    // A wait of 10 ms one step in ten, else 0: mean 1 ms. The slowest of N waits 10 ms
    // with probability 1 - 0.9^N: 1.9 ms for 2 ranks, 3.439 for 4, 9.576... for 30.
    std::vector<double> waits(10, 0.0);
    waits[3] = 10.0;
    const std::vector<StragglerFigure> f = stragglerAmplification(waits, {1, 2, 4, 30});
    QCOMPARE(f.size(), std::size_t{4});
    QCOMPARE(f[0].ranks, 1);
    QVERIFY(std::abs(f[0].slowestWait - 1.0) < 1e-12);
    QVERIFY(std::abs(f[0].amplification - 1.0) < 1e-12);
    QVERIFY(std::abs(f[1].slowestWait - 1.9) < 1e-12);
    QVERIFY(std::abs(f[2].amplification - 3.439) < 1e-12);
    QVERIFY(std::abs(f[3].slowestWait - 10.0 * (1.0 - std::pow(0.9, 30))) < 1e-9);
    // No wait at all: nothing to amplify.
    const std::vector<StragglerFigure> none = stragglerAmplification({0.0, 0.0}, {8});
    QCOMPARE(none[0].slowestWait, 0.0);
    QCOMPARE(none[0].amplification, 1.0);
}

LOADERLAB_GUILESS_TEST_MAIN(TestStraggler)
#include "test_straggler.moc"
