// The scaling efficiency of a data-parallel run against a run of one rank, split into
// data, step, slowest rank, exchange and the rest, on summaries worked out by hand.

#include "core/stats/scaling_efficiency.h"
#include "tests/support/test_main.h"

#include <QtTest>

using namespace loaderlab;

namespace {

// One rank: 1,000 samples/s in batches of 32, each 2 ms of wait and 30 ms of step:
// 32 ms a batch, 1 ms a sample.
RunSummary oneRank()
{
    RunSummary s;
    s.samplesPerSecMean = 1000.0;
    s.samples = 3200;
    s.batches = 100;
    s.waitMeanMs = 2.0;
    s.computeMeanMs = 30.0;
    return s;
}

RankSummary rankOf(int index, double waitMs, double syncMs, double exchangeMs)
{
    RankSummary r;
    r.rank = index;
    r.samplesPerSecMean = 800.0;
    r.waitMeanMs = waitMs;
    r.syncWaitMeanMs = syncMs;
    r.exchangeMeanMs = exchangeMs;
    return r;
}

// Two ranks: 1,600 samples/s together, 40 ms a batch of 32 a rank: the ranks wait 3
// and 5 ms for data (4 on average), 2 and 0 for the slowest (1), exchange 3 ms, step
// 31 ms; 1 ms a batch is left unexplained.
RunSummary twoRanks()
{
    RunSummary s;
    s.samplesPerSecMean = 1600.0;
    s.samples = 6400;
    s.batches = 200;
    s.waitMeanMs = 4.0;
    s.computeMeanMs = 31.0;
    s.ranks = {rankOf(0, 3.0, 2.0, 3.0), rankOf(1, 5.0, 0.0, 3.0)};
    return s;
}

} // namespace

class TestScalingEfficiency : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void lossesSumToWhatEfficiencyMisses();
    void notKnownWithoutTwoSteadyRuns();
};

void TestScalingEfficiency::lossesSumToWhatEfficiencyMisses()
{
    const ScalingEfficiency e = scalingEfficiency(oneRank(), twoRanks());
    QVERIFY(e.known);
    QCOMPARE(e.ranks, 2);
    QCOMPARE(e.speedup, 1.6);
    QCOMPARE(e.efficiency, 0.8);
    // Per batch of the 40 ms: data 4 - 2 = 2 ms, step 31 - 30 = 1, slowest rank 1,
    // exchange 3, the rest 1.
    QVERIFY(qFuzzyCompare(e.dataLoss, 0.05));
    QVERIFY(qFuzzyCompare(e.stepLoss, 0.025));
    QVERIFY(qFuzzyCompare(e.imbalanceLoss, 0.025));
    QVERIFY(qFuzzyCompare(e.communicationLoss, 0.075));
    QVERIFY(qFuzzyCompare(e.otherLoss, 0.025));
    QCOMPARE(scalingEfficiencyLine(e),
             std::string("against one rank (1000.0 samples/s): 1.60x with 2 ranks, efficiency "
                         "80.0 %; lost: data 5.0, step 2.5, slowest rank 2.5, exchange 7.5, "
                         "other 2.5 points"));
    // Another batch size in the one-rank run counts per sample: batches of 16 with
    // half the wait and step a batch are the same 1 ms a sample.
    RunSummary halves = oneRank();
    halves.batches = 200;
    halves.waitMeanMs = 1.0;
    halves.computeMeanMs = 15.0;
    const ScalingEfficiency h = scalingEfficiency(halves, twoRanks());
    QVERIFY(qFuzzyCompare(h.dataLoss, 0.05));
    QVERIFY(qFuzzyCompare(h.stepLoss, 0.025));
}

void TestScalingEfficiency::notKnownWithoutTwoSteadyRuns()
{
    QVERIFY(!scalingEfficiency(oneRank(), oneRank()).known);   // no ranks
    QVERIFY(!scalingEfficiency(twoRanks(), twoRanks()).known); // the baseline has ranks
    RunSummary idle = oneRank();
    idle.samplesPerSecMean = 0.0;
    QVERIFY(!scalingEfficiency(idle, twoRanks()).known);
    QCOMPARE(scalingEfficiencyLine(scalingEfficiency(idle, twoRanks())), std::string());
}

LOADERLAB_GUILESS_TEST_MAIN(TestScalingEfficiency)
#include "test_scaling_efficiency.moc"
