// The max batch search without a model: fake trials whose boundary is known in
// advance (fits iff batch <= N; a linear memory model under a budget). The sequence of
// attempts, the exact boundary, the attempt cap, the --max clamp, a stop request, the
// suggestion rule, the peak prediction, and that BudgetedTrial never runs a step whose
// predicted peak is over the budget.

#include "core/memory/max_batch_search.h"
#include "core/system/memory_budget.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <vector>

using namespace loaderlab;

namespace {

// Fits iff batch <= boundary; records the batches it was asked for.
struct ThresholdTrial
{
    std::int64_t boundary;
    std::vector<std::int64_t> *asked;

    BatchAttempt operator()(std::int64_t batch) const
    {
        asked->push_back(batch);
        BatchAttempt a;
        a.fits = batch <= boundary;
        a.ran = true;
        if (!a.fits)
            a.reason = "too large";
        return a;
    }
};

std::vector<std::int64_t> batchesOf(const SearchResult &result)
{
    std::vector<std::int64_t> batches;
    for (const auto &a : result.attempts)
        batches.push_back(a.batch);
    return batches;
}

} // namespace

class TestMaxBatchSearch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void findsBoundaryExactly_data();
    void findsBoundaryExactly();
    void attemptSequenceIsDoublingThenBisection();
    void maxClampsTheLastDoubling();
    void maxThatFitsEndsTheSearch();
    void nothingFits();
    void attemptCapHolds();
    void stopRequestEndsTheSearch();
    void callbackSeesEveryAttempt();
    void badLimitsAreRefused();
    void suggestion_data();
    void suggestion();
    void predictorInterpolatesAndExtrapolates();
    void budgetedTrialNeverRunsAPredictedOverrun();
    void budgetedTrialPredictsGrowthOverResident();
    void budgetedTrialFloorRefuses();
    void budgetedTrialMeasuredOverrunFails();
    void budgetedTrialPassesStepErrors();
    void attemptJsonHasEveryField();
};

void TestMaxBatchSearch::findsBoundaryExactly_data()
{
    QTest::addColumn<qint64>("boundary");
    for (const qint64 n : {1, 2, 3, 5, 37, 64, 65, 100, 1000, 4095, 65535})
        QTest::addRow("%lld", static_cast<long long>(n)) << n;
}

void TestMaxBatchSearch::findsBoundaryExactly()
{
    QFETCH(qint64, boundary);
    std::vector<std::int64_t> asked;
    const SearchResult r = searchMaxBatch(ThresholdTrial{boundary, &asked}, {65536, 40});
    QCOMPARE(r.largestFit, boundary);
    QCOMPARE(r.smallestFailure, boundary + 1);
    QCOMPARE(r.end, SearchEnd::Bracketed);
    QCOMPARE(asked, batchesOf(r));
    // Never the same batch twice.
    auto sorted = asked;
    std::sort(sorted.begin(), sorted.end());
    QVERIFY(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
}

void TestMaxBatchSearch::attemptSequenceIsDoublingThenBisection()
{
    std::vector<std::int64_t> asked;
    const SearchResult r = searchMaxBatch(ThresholdTrial{37, &asked}, {65536, 40});
    // Doubling to the first failure (64), then low + (high - low) / 2 between 32 and 64.
    const std::vector<std::int64_t> expected{1, 2, 4, 8, 16, 32, 64, 48, 40, 36, 38, 37};
    QCOMPARE(batchesOf(r), expected);
    QCOMPARE(r.attempts[6].fits, false);
    QCOMPARE(r.attempts[9].fits, true);
    QCOMPARE(r.attempts[11].fits, true);
}

void TestMaxBatchSearch::maxClampsTheLastDoubling()
{
    std::vector<std::int64_t> asked;
    const SearchResult r = searchMaxBatch(ThresholdTrial{30, &asked}, {20, 40});
    const std::vector<std::int64_t> expected{1, 2, 4, 8, 16, 20};
    QCOMPARE(batchesOf(r), expected);
    QCOMPARE(r.largestFit, 20);
    QCOMPARE(r.smallestFailure, 0);
    QCOMPARE(r.end, SearchEnd::ReachedMax);
}

void TestMaxBatchSearch::maxThatFitsEndsTheSearch()
{
    std::vector<std::int64_t> asked;
    const SearchResult r = searchMaxBatch(ThresholdTrial{1000, &asked}, {1, 40});
    QCOMPARE(batchesOf(r), std::vector<std::int64_t>{1});
    QCOMPARE(r.end, SearchEnd::ReachedMax);
    // A --max between the boundary's doubling and the boundary.
    asked.clear();
    const SearchResult s = searchMaxBatch(ThresholdTrial{50, &asked}, {60, 40});
    QCOMPARE(s.largestFit, 50);
    QCOMPARE(s.end, SearchEnd::Bracketed);
    QVERIFY(*std::max_element(asked.begin(), asked.end()) <= 60);
}

void TestMaxBatchSearch::nothingFits()
{
    std::vector<std::int64_t> asked;
    const SearchResult r = searchMaxBatch(ThresholdTrial{0, &asked}, {65536, 40});
    QCOMPARE(batchesOf(r), std::vector<std::int64_t>{1});
    QCOMPARE(r.largestFit, 0);
    QCOMPARE(r.smallestFailure, 1);
    QCOMPARE(r.end, SearchEnd::NothingFits);
    QCOMPARE(suggestedBatch(r.largestFit), 0);
}

void TestMaxBatchSearch::attemptCapHolds()
{
    std::vector<std::int64_t> asked;
    const SearchResult r = searchMaxBatch(ThresholdTrial{37, &asked}, {65536, 9});
    QCOMPARE(asked.size(), std::size_t{9});
    QCOMPARE(r.attempts.size(), std::size_t{9});
    QCOMPARE(r.end, SearchEnd::AttemptCap);
    // 1..64, 48, 40: the boundary lies in [32, 40).
    QCOMPARE(r.largestFit, 32);
    QCOMPARE(r.smallestFailure, 40);
}

void TestMaxBatchSearch::stopRequestEndsTheSearch()
{
    std::stop_source source;
    std::vector<std::int64_t> asked;
    const ThresholdTrial inner{1000, &asked};
    const auto trial = [&](std::int64_t batch) {
        if (batch == 8)
            source.request_stop(); // as if a stop came in during the step at 8
        return inner(batch);
    };
    const SearchResult r = searchMaxBatch(trial, {65536, 40}, source.get_token());
    QCOMPARE(batchesOf(r), (std::vector<std::int64_t>{1, 2, 4, 8}));
    QCOMPARE(r.end, SearchEnd::Stopped);
    QCOMPARE(r.largestFit, 8);

    std::stop_source already;
    already.request_stop();
    asked.clear();
    const SearchResult none = searchMaxBatch(inner, {65536, 40}, already.get_token());
    QVERIFY(asked.empty());
    QCOMPARE(none.end, SearchEnd::Stopped);
}

void TestMaxBatchSearch::callbackSeesEveryAttempt()
{
    std::vector<std::int64_t> asked;
    std::vector<std::int64_t> seen;
    const SearchResult r = searchMaxBatch(ThresholdTrial{5, &asked}, {65536, 40}, {},
                                          [&](const BatchAttempt &a) { seen.push_back(a.batch); });
    QCOMPARE(seen, batchesOf(r));
    QCOMPARE(seen, (std::vector<std::int64_t>{1, 2, 4, 8, 6, 5}));
}

void TestMaxBatchSearch::badLimitsAreRefused()
{
    std::vector<std::int64_t> asked;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             searchMaxBatch(ThresholdTrial{5, &asked}, {0, 40}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             searchMaxBatch(ThresholdTrial{5, &asked}, {10, 0}));
    QVERIFY(asked.empty());
}

void TestMaxBatchSearch::suggestion_data()
{
    QTest::addColumn<qint64>("largest");
    QTest::addColumn<qint64>("suggested");
    QTest::addColumn<QString>("rule");
    const QString eight = QStringLiteral("90 %, multiple of 8");
    const QString down = QStringLiteral("90 %, rounded down");
    QTest::newRow("96") << qint64{96} << qint64{80} << eight; // 86.4 -> 86 -> 80
    QTest::newRow("37") << qint64{37} << qint64{32} << eight; // 33.3 -> 33 -> 32
    QTest::newRow("9") << qint64{9} << qint64{8} << eight;    // 8.1 -> 8
    QTest::newRow("8") << qint64{8} << qint64{7} << down;     // 7.2 -> 7
    QTest::newRow("5") << qint64{5} << qint64{4} << down;     // 4.5 -> 4
    QTest::newRow("1") << qint64{1} << qint64{1} << QStringLiteral("at least 1");
    QTest::newRow("65536") << qint64{65536} << qint64{58976} << eight; // 58982.4 -> 58976
}

void TestMaxBatchSearch::suggestion()
{
    QFETCH(qint64, largest);
    QFETCH(qint64, suggested);
    QFETCH(QString, rule);
    QCOMPARE(suggestedBatch(largest), suggested);
    QCOMPARE(QString::fromStdString(suggestionRule(largest)), rule);
    // Never more than the largest that fits; no overflow near the top of the range.
    const std::int64_t top = std::int64_t{1} << 62;
    QVERIFY(suggestedBatch(top) <= top && suggestedBatch(top) > top / 10 * 8);
}

void TestMaxBatchSearch::predictorInterpolatesAndExtrapolates()
{
    PeakPredictor p;
    QCOMPARE(p.predict(1), 0); // nothing measured
    p.add(4, 400);
    QCOMPARE(p.predict(4), 400);
    QCOMPARE(p.predict(8), 800); // one point: in proportion
    QCOMPARE(p.predict(2), 0);   // below every point: nothing to go on
    p.add(8, 600);               // 200 + 50 * batch
    QCOMPARE(p.predict(16), 1000);
    QCOMPARE(p.predict(6), 500);
    p.add(32, 3000); // steeper above 8: interpolation uses the neighbours
    QCOMPARE(p.predict(16), 1400);
    QCOMPARE(p.predict(64), 6200); // extrapolated from 8 and 32 (100 per batch)
    PeakPredictor shrinking;       // a falling measurement does not predict less
    shrinking.add(2, 500);
    shrinking.add(4, 400);
    QCOMPARE(shrinking.predict(100), 400);
    // Batch 1 stands in until a larger batch is measured, then is left out.
    PeakPredictor single;
    single.add(1, 100);
    QCOMPARE(single.predict(2), 200);
    single.add(2, 1000); // a fixed part batch 1 did not show
    QCOMPARE(single.predict(4), 2000);
    single.add(1, 100);
    QCOMPARE(single.predict(4), 2000);
    PeakPredictor huge;
    huge.add(1, std::int64_t{1} << 60);
    QCOMPARE(huge.predict(std::int64_t{1} << 20), kBytesUnbounded);
}

void TestMaxBatchSearch::budgetedTrialNeverRunsAPredictedOverrun()
{
    // A linear memory model: 100 MB fixed + 3 MB per sample, budget 250 MB: fits iff
    // batch <= 50.
    constexpr std::int64_t kMB = 1'000'000;
    const std::int64_t budget = 250 * kMB;
    std::vector<std::int64_t> ran;
    BudgetedTrial trial(
        [&](std::int64_t batch) {
            ran.push_back(batch);
            return MeasuredStep{true, {}, 100 * kMB + 3 * kMB * batch, 1.0};
        },
        budget);
    const SearchResult r = searchMaxBatch(std::ref(trial), {65536, 40});
    QCOMPARE(r.largestFit, 50);
    QCOMPARE(r.end, SearchEnd::Bracketed);
    for (const std::int64_t batch : ran)
        QVERIFY2(100 * kMB + 3 * kMB * batch <= budget,
                 qPrintable(QStringLiteral("ran batch %1 over the budget").arg(batch)));
    int refused = 0;
    for (const auto &a : r.attempts) {
        if (!a.ran) {
            ++refused;
            QVERIFY(a.predictedBytes > budget);
            QVERIFY(a.reason.starts_with("predicted "));
            QVERIFY(a.reason.find(" over the budget of " + formatBytes(budget))
                    != std::string::npos);
        } else {
            QVERIFY(a.predictedBytes <= budget);
        }
    }
    QVERIFY(refused >= 2); // 64 and 51 at least
    // Batch 1 and batch 2 ran; with one point, 2 was predicted in proportion.
    QCOMPARE(r.attempts[1].predictedBytes, 2 * 103 * kMB);
}

void TestMaxBatchSearch::budgetedTrialPredictsGrowthOverResident()
{
    // 200 MB resident before any step (libraries, the model), 2 MB per sample on top;
    // budget 300 MB: fits iff batch <= 50. With only batch 1 measured, batch 2 is
    // predicted as the resident memory plus twice batch 1's growth, not as twice the
    // whole process.
    constexpr std::int64_t kMB = 1'000'000;
    const std::int64_t resident = 200 * kMB;
    std::vector<std::int64_t> ran;
    BudgetedTrial trial(
        [&](std::int64_t batch) {
            ran.push_back(batch);
            return MeasuredStep{true, {}, resident + 2 * kMB * batch, 1.0, resident};
        },
        300 * kMB, [&] { return resident; });
    const SearchResult r = searchMaxBatch(std::ref(trial), {65536, 40});
    QCOMPARE(r.largestFit, 50);
    QCOMPARE(r.attempts[1].predictedBytes, resident + 4 * kMB);
    for (const std::int64_t batch : ran)
        QVERIFY(resident + 2 * kMB * batch <= 300 * kMB);
}

void TestMaxBatchSearch::budgetedTrialFloorRefuses()
{
    bool ran = false;
    BudgetedTrial trial(
        [&](std::int64_t) {
            ran = true;
            return MeasuredStep{true, {}, 1, 1.0};
        },
        1000, {}, [](std::int64_t batch) { return 600 * batch; });
    const SearchResult r = searchMaxBatch(std::ref(trial), {65536, 40});
    QVERIFY(ran); // batch 1: 600 <= 1000
    QCOMPARE(r.largestFit, 1);
    QCOMPARE(r.attempts[1].ran, false); // batch 2: floor 1200 > 1000
    QCOMPARE(r.attempts[1].predictedBytes, 1200);
    QCOMPARE(QString::fromStdString(r.attempts[1].reason),
             QStringLiteral("predicted 1.2 KiB over the budget of 1000 B"));
    // Figures that round to the same text say by how much.
    BudgetedTrial close(
        [](std::int64_t) {
            return MeasuredStep{true, {}, 1, 1.0};
        },
        1 << 20, {}, [](std::int64_t batch) { return (1 << 20) + 100 * batch; });
    QCOMPARE(QString::fromStdString(close(1).reason),
             QStringLiteral("predicted 1.0 MiB over the budget of 1.0 MiB (by 100 B)"));

    // What is known to be needed for batch 1 alone is over the budget: nothing runs.
    ran = false;
    BudgetedTrial tiny(
        [&](std::int64_t) {
            ran = true;
            return MeasuredStep{true, {}, 1, 1.0};
        },
        500, {}, [](std::int64_t batch) { return 600 * batch; });
    const SearchResult none = searchMaxBatch(std::ref(tiny), {65536, 40});
    QVERIFY(!ran);
    QCOMPARE(none.end, SearchEnd::NothingFits);
    QCOMPARE(QString::fromStdString(none.attempts[0].reason),
             QStringLiteral("predicted 600 B over the budget of 500 B"));
}

void TestMaxBatchSearch::budgetedTrialMeasuredOverrunFails()
{
    // A step heavier than the linear prediction: the measurement decides.
    BudgetedTrial trial(
        [](std::int64_t batch) {
            return MeasuredStep{true, {}, batch < 4 ? 100 : 10000, 1.0};
        },
        5000);
    const SearchResult r = searchMaxBatch(std::ref(trial), {65536, 40});
    QCOMPARE(r.end, SearchEnd::Bracketed);
    QCOMPARE(r.attempts[2].batch, 4);
    QCOMPARE(r.attempts[2].ran, true);
    QCOMPARE(r.attempts[2].peakBytes, 10000);
    QCOMPARE(QString::fromStdString(r.attempts[2].reason),
             QStringLiteral("measured 9.8 KiB over the budget of 4.9 KiB"));
    // Batch 3 is interpolated between the measured 2 (100 B) and 4 (10,000 B): 5,050 B,
    // over the budget, so it is refused without running.
    QCOMPARE(r.attempts[3].batch, 3);
    QCOMPARE(r.attempts[3].ran, false);
    QCOMPARE(r.attempts[3].predictedBytes, 5050);
    QCOMPARE(r.largestFit, 2);
}

void TestMaxBatchSearch::budgetedTrialPassesStepErrors()
{
    BudgetedTrial trial(
        [](std::int64_t batch) {
            if (batch > 6)
                return MeasuredStep{false, "DefaultCPUAllocator: not enough memory", 0, 2.0};
            return MeasuredStep{true, {}, 10, 1.0};
        },
        kBytesUnbounded);
    const SearchResult r = searchMaxBatch(std::ref(trial), {65536, 40});
    QCOMPARE(r.largestFit, 6);
    QCOMPARE(r.attempts[3].batch, 8);
    QCOMPARE(r.attempts[3].ran, true);
    QCOMPARE(r.attempts[3].predictedBytes, 0); // unbounded: nothing predicted
    QCOMPARE(QString::fromStdString(r.attempts[3].reason),
             QStringLiteral("DefaultCPUAllocator: not enough memory"));
}

void TestMaxBatchSearch::attemptJsonHasEveryField()
{
    BatchAttempt a;
    a.batch = 64;
    a.reason = "predicted 2.0 GiB over the budget of 1.0 GiB";
    a.predictedBytes = 2LL << 30;
    const nlohmann::json j = attemptJson(a);
    QCOMPARE(j.at("batch").get<int>(), 64);
    QCOMPARE(j.at("fits").get<bool>(), false);
    QCOMPARE(j.at("ran").get<bool>(), false);
    QCOMPARE(j.at("predicted_bytes").get<std::int64_t>(), 2LL << 30);
    QCOMPARE(j.at("peak_bytes").get<std::int64_t>(), 0);
    QVERIFY(j.contains("step_ms"));
    QCOMPARE(j.at("reason").get<std::string>(), a.reason);
}

LOADERLAB_GUILESS_TEST_MAIN(TestMaxBatchSearch)
#include "test_max_batch_search.moc"
