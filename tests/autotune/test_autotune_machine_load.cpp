// The autotuner's searches on a machine other programs share: each window comes with
// other programs' demand (cores), and a change of it is never taken for the effect of
// a setting. Known answers on scripted throughput and load: a proposal whose windows
// ran on different loads neither wins nor loses (and without the loads the same
// windows move the search: the control); a hold does not calibrate again when the
// throughput falls with a rising load, but does when it falls on the same load; a
// calibration whose windows ran on different loads starts again; the hill climb
// compares a pair only on one load too, and after three pairs across a change waits
// for the load to settle before it measures the same candidate again.

#include "core/autotune/autotune_search.h"
#include "core/autotune/loader_model_search.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <functional>
#include <optional>

using namespace loaderlab;

namespace {

using LoadedThroughput = std::function<double(const AutotuneSettings &)>;

// Other programs' demand in a window: by the window's number and whether it measures
// the incumbent (the search's next() is its incumbent) or a proposal.
using Load = std::function<std::optional<double>(int window, bool incumbent)>;

// What a busy loop on one of two cores costs a setting: it runs at half speed.
constexpr double kBusyShare = 0.5;

struct Drive
{
    int trialWindows = 0;
    int moves = 0;
};

// Runs `search` for `windows` windows: the true throughput `truth` of the setting
// measured, times kBusyShare where other programs asked for a core or more; the model
// is `model`.
template <typename Search>
Drive driveLoaded(Search &search, const LoadedThroughput &truth, const LoadedThroughput &model,
                  const Load &load, int windows)
{
    Drive d;
    for (int i = 0; i < windows; ++i) {
        if constexpr (std::is_same_v<Search, LoaderModelSearch>) {
            if (search.wantsCalibration())
                search.calibrated(model);
        }
        const AutotuneSettings s = search.next();
        const bool incumbent = s == search.incumbent();
        d.trialWindows += !incumbent;
        const std::optional<double> other = load(i, incumbent);
        const double rate = truth(s) * (other.value_or(0.0) >= 1.0 ? kBusyShare : 1.0);
        d.moves += search.report(rate, other).has_value();
    }
    return d;
}

AutotuneLimits limits(int maxWorkers)
{
    AutotuneLimits l;
    l.maxWorkers = maxWorkers;
    l.maxPrefetch = 2;
    return l;
}

// 2 workers are no faster than 1 (the step is the limit); the model thinks they are.
double flat(const AutotuneSettings &)
{
    return 500.0;
}
double optimistic(const AutotuneSettings &s)
{
    return 500.0 * (s.workers >= 2 ? 1.5 : 1.0);
}

} // namespace

class TestAutotuneMachineLoad : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aProposalIsNotJudgedAcrossALoadChange();
    void withoutLoadsTheSameWindowsWouldMove();
    void aLoadThatSettlesLetsTheProposalBeJudged();
    void aSlowerHoldOnAHigherLoadIsNotADrift();
    void aSlowerHoldOnTheSameLoadIsADrift();
    void aCalibrationAcrossALoadChangeStartsAgain();
    void theHillClimbComparesAPairOnOneLoadOnly();
    void theHillClimbWaitsForTheLoadToSettle();
};

void TestAutotuneMachineLoad::aProposalIsNotJudgedAcrossALoadChange()
{
    // Another program takes a core exactly while the incumbent's windows of each pair
    // run: the proposal (2 workers) looks twice as fast, yet no pair is compared, and
    // after kAutotuneLoadSkips pairs the search waits for the load to settle, the
    // proposal neither rejected nor taken.
    LoaderModelSearch search({1, 2, 32}, limits(2));
    const Load load = [&](int, bool incumbent) -> std::optional<double> {
        return search.calibrating() || search.wantsCalibration() ? 0.0 : incumbent ? 1.0 : 0.0;
    };
    const Drive d = driveLoaded(search, flat, optimistic, load, 2 + 2 * kAutotuneLoadSkips);
    QCOMPARE(d.moves, 0);
    QCOMPARE(d.trialWindows, kAutotuneLoadSkips);
    QCOMPARE(search.trials(), 0); // none judged
    QVERIFY(!search.holding());   // not settled: the proposal waits for the load to settle
    QCOMPARE(search.next(), search.incumbent());
    QCOMPARE(search.incumbent(), (AutotuneSettings{1, 2, 32}));
    QVERIFY2(search.lastDecision().find("other programs' load changed within 3 pairs")
                 != std::string::npos,
             search.lastDecision().c_str());
    // A window on the load the last one had: two in a row, the proposal is measured
    // again.
    search.report(250.0, 1.0);
    QCOMPARE(search.next(), (AutotuneSettings{2, 2, 32}));
}

void TestAutotuneMachineLoad::withoutLoadsTheSameWindowsWouldMove()
{
    // The control: the same windows with the load unknown move to 2 workers on
    // measurements that were the other program's doing.
    LoaderModelSearch search({1, 2, 32}, limits(2));
    int window = 0;
    Drive d;
    for (; window < 8 && d.moves == 0; ++window) {
        if (search.wantsCalibration())
            search.calibrated(optimistic);
        const AutotuneSettings s = search.next();
        const bool busy = !search.calibrating() && s == search.incumbent();
        d.moves += search.report(flat(s) * (busy ? kBusyShare : 1.0)).has_value();
    }
    QCOMPARE(d.moves, 1);
    QCOMPARE(search.incumbent().workers, 2);
}

void TestAutotuneMachineLoad::aLoadThatSettlesLetsTheProposalBeJudged()
{
    // The load changes within the first 3 pairs, then stays at one core: the search
    // proposes 2 workers again, measures both on the busy machine, finds no gain and
    // rejects it.
    LoaderModelSearch search({1, 2, 32}, limits(2));
    int pairsSeen = 0;
    const Load load = [&](int, bool incumbent) -> std::optional<double> {
        if (search.calibrating() || search.wantsCalibration())
            return 0.0;
        if (!incumbent)
            ++pairsSeen;
        return pairsSeen <= kAutotuneLoadSkips && incumbent ? 1.0 : pairsSeen > 3 ? 1.0 : 0.0;
    };
    const Drive d = driveLoaded(search, flat, optimistic, load, 40);
    QCOMPARE(d.moves, 0);
    QCOMPARE(search.trials(), 2); // two lost pairs reject it
    QVERIFY(search.holding());
    QVERIFY2(search.lastDecision().find("lost when measured") != std::string::npos
                 || search.lastDecision().find("no setting predicted") != std::string::npos,
             search.lastDecision().c_str());
}

void TestAutotuneMachineLoad::aSlowerHoldOnAHigherLoadIsNotADrift()
{
    // Held at its best, the run halves when another program takes a core: no
    // calibration, no trial; the new rate is the baseline.
    LoaderModelSearch search({2, 2, 32}, limits(2));
    const Load load = [](int window, bool) -> std::optional<double> {
        return window >= 10 ? 1.0 : 0.0;
    };
    const Drive d = driveLoaded(search, flat, flat, load, 30);
    QCOMPARE(d.moves, 0);
    QCOMPARE(d.trialWindows, 0);
    QCOMPARE(search.calibrations(), 1);
    QVERIFY(search.holding());
}

void TestAutotuneMachineLoad::aSlowerHoldOnTheSameLoadIsADrift()
{
    // The control: the same fall with the load unchanged (the data got slower) makes
    // the search calibrate again.
    LoaderModelSearch search({2, 2, 32}, limits(2));
    int window = 0;
    const LoadedThroughput slower = [&](const AutotuneSettings &s) {
        return flat(s) * (window >= 10 ? kBusyShare : 1.0);
    };
    for (; window < 30; ++window) {
        if (search.wantsCalibration())
            search.calibrated(flat);
        search.report(slower(search.next()), 0.3);
    }
    QVERIFY(search.calibrations() >= 2);
}

void TestAutotuneMachineLoad::aCalibrationAcrossALoadChangeStartsAgain()
{
    LoaderModelSearch search({1, 2, 32}, limits(2));
    QCOMPARE(search.calibrationWindowsMeasured(), 0);
    search.report(500.0, 0.0);
    QCOMPARE(search.calibrationWindowsMeasured(), 1);
    search.report(250.0, 1.0); // another program started: not the same machine
    QVERIFY(!search.wantsCalibration());
    QVERIFY(search.calibrating());
    QCOMPARE(search.calibrationWindowsMeasured(), 0);
    QVERIFY2(search.lastDecision().find("calibrating again") != std::string::npos,
             search.lastDecision().c_str());
    search.report(250.0, 1.1); // within kLoadChangeCores: one load
    search.report(260.0, 0.9);
    QVERIFY(search.wantsCalibration());
}

void TestAutotuneMachineLoad::theHillClimbComparesAPairOnOneLoadOnly()
{
    // The hill climb from 1 worker tries 2 (and prefetch 1 and 4); each candidate's
    // pair has the incumbent on a busy machine: nothing is compared, nothing moves.
    // With the loads unknown the same windows move it.
    const auto run = [](bool withLoads) {
        AutotuneSearch search({1, 2, 32}, limits(2));
        int moves = 0;
        for (int i = 0; i < 60; ++i) {
            const AutotuneSettings s = search.next();
            const bool busy = i > 0 && s == search.incumbent() && !search.holding();
            const double rate = flat(s) * (busy ? kBusyShare : 1.0);
            moves += search
                         .report(rate,
                                 withLoads ? std::optional<double>(busy ? 1.0 : 0.0) : std::nullopt)
                         .has_value();
        }
        return moves;
    };
    QCOMPARE(run(true), 0);
    QVERIFY(run(false) > 0);
}

void TestAutotuneMachineLoad::theHillClimbWaitsForTheLoadToSettle()
{
    AutotuneSearch search({1, 2, 32}, limits(2));
    search.report(500.0, 0.0); // the start; then its first neighbour
    const AutotuneSettings candidate = search.next();
    QVERIFY(!(candidate == search.incumbent()));
    for (int pair = 0; pair < kAutotuneLoadSkips; ++pair) {
        QCOMPARE(search.next(), candidate);
        search.report(500.0, 0.0);
        QCOMPARE(search.next(), search.incumbent());
        QVERIFY(!search.report(250.0, 1.0).has_value()); // another program started
    }
    // Three pairs across a change: the incumbent alone until the load settles.
    QCOMPARE(search.next(), search.incumbent());
    search.report(500.0, 0.0);
    QCOMPARE(search.next(), search.incumbent());
    search.report(500.0, 0.1); // within kLoadChangeCores of the window before
    QCOMPARE(search.next(), candidate);
    QVERIFY(!search.holding());
}

LOADERLAB_GUILESS_TEST_MAIN(TestAutotuneMachineLoad)
#include "test_autotune_machine_load.moc"
