// Where a data-parallel run's time went: the shares of step, data, the slowest rank
// and the exchange over the ranks, and the most exposed data loading, on known
// rank summaries.

#include "core/stats/rank_time_split.h"
#include "tests/support/test_main.h"

#include <QtTest>

using namespace loaderlab;

namespace {

RankSummary rank(int index, double data, double straggler, double exchange, double waitMs)
{
    RankSummary r;
    r.rank = index;
    r.samplesPerSecMean = 100.0;
    r.inputBoundShare = data;
    r.syncWaitShare = straggler;
    r.exchangeShare = exchange;
    r.waitMeanMs = waitMs;
    return r;
}

} // namespace

class TestRankTimeSplit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sharesOverTheRanks();
    void oneRankOrNoneSaysNothing();
};

void TestRankTimeSplit::sharesOverTheRanks()
{
    // Rank 0 waits for data 10 % of its time and for rank 1 nothing; rank 1 waits for
    // data 30 %; both wait 10 % and 20 % for the slowest, and exchange 40 %.
    RunSummary s;
    s.ranks = {rank(0, 0.1, 0.1, 0.4, 2.0), rank(1, 0.3, 0.2, 0.4, 6.0)};
    const RankTimeSplit t = rankTimeSplit(s);
    QVERIFY(t.known);
    QVERIFY(qFuzzyCompare(t.data, 0.2));
    QVERIFY(qFuzzyCompare(t.straggler, 0.15));
    QVERIFY(qFuzzyCompare(t.exchange, 0.4));
    QVERIFY(qFuzzyCompare(t.step, 0.25)); // (0.4 + 0.1) / 2
    QCOMPARE(t.worstDataRank, 1);
    QCOMPARE(t.worstDataShare, 0.3);
    QCOMPARE(t.worstDataWaitMs, 6.0);
    QCOMPARE(rankTimeSplitLine(t),
             std::string("of the ranks' time: step 25.0 %, waiting for data 20.0 %, for the "
                         "slowest rank 15.0 %, exchanging 40.0 %; the most exposed data "
                         "loading: rank 1, 6.00 ms a step (30.0 % of its time)"));
}

void TestRankTimeSplit::oneRankOrNoneSaysNothing()
{
    RunSummary s;
    QVERIFY(!rankTimeSplit(s).known);
    s.ranks = {rank(0, 0.1, 0.0, 0.0, 1.0)};
    QVERIFY(!rankTimeSplit(s).known);
    // A rank without a steady window is left out: one rank left says nothing.
    s.ranks.push_back(rank(1, 0.5, 0.0, 0.0, 1.0));
    s.ranks.back().samplesPerSecMean = 0.0;
    QVERIFY(!rankTimeSplit(s).known);
    QCOMPARE(rankTimeSplitLine(rankTimeSplit(s)), std::string());
}

LOADERLAB_GUILESS_TEST_MAIN(TestRankTimeSplit)
#include "test_rank_time_split.moc"
