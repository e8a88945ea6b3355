// The autotuner: its search climbs to the known best of a throughput function
// measured with noise and stops there, never moves on noise alone, re-tunes when
// the throughput drifts, tunes the batch size only when allowed; and on a real run
// (the default dataset, starting with 1 worker) it tries neighbours live, leaving
// autotune markers, and stops promptly with the run. A move that stops paying is
// taken back; a change that paid is tried again first; the tuner says when it
// holds; on a real consumer whose best batch size is known in advance (a fixed
// sleep per batch) it moves only toward it and holds there.

#include "core/autotune/autotune_search.h"
#include "core/autotune/autotuner.h"
#include "core/run/marker_text.h"
#include "core/run/run_controller.h"
#include "core/tools/default_dataset.h"

#include <QtTest>

#include <algorithm>
#include <functional>
#include <mutex>
#include <random>

using namespace loaderlab;

namespace {

using Throughput = std::function<double(const AutotuneSettings &)>;

// Runs the search for `windows` windows against `f` with +-`noise` relative noise;
// returns the moves.
std::vector<AutotuneMove> drive(AutotuneSearch &search, const Throughput &f, double noise,
                                int windows, unsigned seed = 1)
{
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> jitter(-noise, noise);
    std::vector<AutotuneMove> moves;
    for (int i = 0; i < windows; ++i) {
        const double rate = f(search.next()) * (1.0 + jitter(random));
        if (auto move = search.report(rate))
            moves.push_back(*move);
    }
    return moves;
}

double plateau(const AutotuneSettings &s, double perWorker, double ceiling)
{
    return std::min(perWorker * std::max(s.workers, 1), ceiling);
}

// The default image folder, 1 worker, batch 16, a 2 ms step, until stopped.
RunConfig folderRun()
{
    RunConfig config;
    config.dataset.kind = DatasetKind::ImageFolder;
    config.dataset.path = ensureDefaultImageFolder();
    config.loader.numWorkers = 1;
    config.loader.batchSize = 16;
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 2.0;
    config.epochs = 0;
    return config;
}

} // namespace

class TestAutotune : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void climbsToThePlateauAndHolds();
    void neverMovesOnNoise();
    void retunesWhenThroughputDrifts();
    void batchSizeOnlyWhenAllowed();
    void tunesARealRun();
    void aMoveThatDoesNotPayIsTakenBack();
    void saysWhenItHolds();
    void spaceIsWhatTheSearchReaches();
    void triesAWinningChangeAgainFirst();
    void movesTowardTheKnownBestOfARealConsumer();
};

void TestAutotune::climbsToThePlateauAndHolds()
{
    AutotuneLimits limits;
    limits.maxWorkers = 8;
    AutotuneSearch search({1, 2, 32}, limits);
    const auto moves = drive(
        search, [](const auto &s) { return plateau(s, 100, 350); }, 0.02, 80);
    QVERIFY(search.holding());
    QCOMPARE(search.incumbent().workers, 4); // 5 workers add 0 %: not worth a move
    QCOMPARE(moves.size(), std::size_t{3});
    QCOMPARE(moves[0].reason.substr(0, 15), std::string("workers 1 -> 2:"));
    QVERIFY(moves[0].gain > 0.9);
    QVERIFY(QString::fromStdString(moves[0].detail).startsWith(QStringLiteral("+")));
    // The workers cap holds whatever the gain.
    limits.maxWorkers = 2;
    AutotuneSearch capped({1, 2, 32}, limits);
    drive(
        capped, [](const auto &s) { return plateau(s, 100, 1000); }, 0.02, 40);
    QCOMPARE(capped.incumbent().workers, 2);
}

void TestAutotune::neverMovesOnNoise()
{
    AutotuneLimits limits;
    limits.maxWorkers = 8;
    for (unsigned seed = 1; seed <= 20; ++seed) {
        AutotuneSearch search({2, 2, 32}, limits);
        // +-4 % of noise on a flat function: no candidate is better.
        const auto moves = drive(
            search, [](const auto &) { return 300.0; }, 0.04, 200, seed);
        QVERIFY2(moves.empty(), moves.empty() ? "" : moves.front().reason.c_str());
    }
}

void TestAutotune::retunesWhenThroughputDrifts()
{
    AutotuneLimits limits;
    limits.maxWorkers = 8;
    AutotuneSearch search({1, 2, 32}, limits);
    drive(
        search, [](const auto &s) { return plateau(s, 100, 350); }, 0.01, 80);
    QCOMPARE(search.incumbent().workers, 4);
    // The steps got cheaper: loading is the limit up to 7 workers now.
    const auto moves = drive(
        search, [](const auto &s) { return 1.5 * plateau(s, 100, 700); }, 0.01, 120, 5);
    QVERIFY(!moves.empty());
    QCOMPARE(search.incumbent().workers, 7);
}

void TestAutotune::batchSizeOnlyWhenAllowed()
{
    // Throughput grows with the batch size up to 128.
    const Throughput f = [](const AutotuneSettings &s) {
        return 100.0 * std::min(s.batchSize, 128) / 32.0;
    };
    AutotuneLimits limits;
    limits.maxWorkers = 2;
    AutotuneSearch fixed({2, 2, 32}, limits);
    drive(fixed, f, 0.01, 40);
    QCOMPARE(fixed.incumbent().batchSize, 32);
    limits.tuneBatch = true;
    AutotuneSearch free({2, 2, 32}, limits);
    drive(free, f, 0.01, 80);
    QCOMPARE(free.incumbent().batchSize, 128);
}

void TestAutotune::tunesARealRun()
{
    // A real run: the tuner tries neighbours live (a reconfiguration with an
    // "autotune ... (trying)" marker each), measures windows after each change, and
    // stops with the run, leaving no thread. Whether a move pays depends on what
    // else the machine runs (with the cores busy, a second worker gains nothing),
    // so moves are tested above on throughputs known in advance.
    const RunConfig config = folderRun();
    RunController run;
    run.start(config);
    std::vector<AutotuneMove> moves;
    std::mutex mutex;
    Autotuner tuner(run, AutotuneOptions{}, [&](const AutotuneMove &m) {
        const std::lock_guard lock(mutex);
        moves.push_back(m);
    });
    const auto trials = [&] {
        int n = 0;
        for (const auto &m : run.trace()->markers())
            n += m.kind == MarkerKind::Autotune;
        return n;
    };
    // workers 1 -> 2 and back, prefetch 2 -> 4 and back: four reconfigurations.
    QTRY_VERIFY_WITH_TIMEOUT(trials() >= 4, 90'000);
    const auto markers = run.trace()->markers();
    const auto first = std::find_if(markers.begin(), markers.end(), [](const TraceMarker &m) {
        return m.kind == MarkerKind::Autotune;
    });
    QCOMPARE(markerText(*first), std::string("autotune: workers 1 -> 2 (trying)"));
    const auto start = std::chrono::steady_clock::now();
    tuner.stop();
    run.stop();
    QVERIFY(run.waitForEnd(10'000));
    QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    QCOMPARE(run.liveThreads(), 0);
    const std::lock_guard lock(mutex);
    for (const auto &m : moves)
        QVERIFY2(m.gain > 0.05, m.reason.c_str()); // a move only on a measured gain
}

void TestAutotune::aMoveThatDoesNotPayIsTakenBack()
{
    // 2 workers measure well while they are tried (twice), then fall below 1 worker
    // once they are the setting: the search goes back to 1.
    AutotuneLimits limits;
    limits.maxWorkers = 2;
    AutotuneSearch search({1, 2, 32}, limits);
    int twoWorkerWindows = 0;
    bool moved = false;
    std::vector<AutotuneMove> moves;
    for (int i = 0; i < 60; ++i) {
        const AutotuneSettings s = search.next();
        double rate = 300.0;
        if (s.workers == 2)
            rate = ++twoWorkerWindows <= 2 ? 400.0 : 200.0;
        if (auto move = search.report(rate)) {
            moves.push_back(*move);
            moved = true;
        }
    }
    QVERIFY(moved);
    QCOMPARE(moves.front().to.workers, 2);
    QCOMPARE(moves.back().to.workers, 1);
    QCOMPARE(search.incumbent().workers, 1);
}

void TestAutotune::saysWhenItHolds()
{
    // Capped at 1 worker, the neighbours are prefetch 4 and 1: holding comes after
    // a window of the start and two windows (trial, start again) per neighbour at
    // least, with the run back at the setting it holds.
    const RunConfig config = folderRun();
    RunController run;
    run.start(config);
    AutotuneOptions options;
    options.maxWorkers = 1;
    Autotuner tuner(run, options);
    QVERIFY(!tuner.holding());
    QVERIFY(tuner.waitForHold(std::chrono::seconds(90)));
    const RunConfig now = run.config();
    const AutotuneSettings held = tuner.incumbent();
    QCOMPARE(now.loader.numWorkers, held.workers);
    QCOMPARE(now.loader.prefetchFactor, held.prefetch);
    QCOMPARE(held.workers, 1); // the cap
    QVERIFY2(tuner.windows() >= 5, std::to_string(tuner.windows()).c_str());
    int trials = 0;
    for (const auto &m : run.trace()->markers())
        trials += m.kind == MarkerKind::Autotune;
    QVERIFY(trials >= 4); // prefetch 4 and back, prefetch 1 and back
    // Once stopped, it holds no more and a wait ends at once.
    tuner.stop();
    QVERIFY(!tuner.holding());
    const auto start = std::chrono::steady_clock::now();
    QVERIFY(!tuner.waitForHold(std::chrono::seconds(10)));
    QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
    run.stop();
    QVERIFY(run.waitForEnd(10'000));
}

void TestAutotune::spaceIsWhatTheSearchReaches()
{
    AutotuneLimits limits;
    limits.maxWorkers = 3;
    limits.maxPrefetch = 8;
    const AutotuneSpace space = autotuneSpace({0, 2, 32}, limits);
    QCOMPARE(space.workers, (std::vector<int>{0, 1, 2, 3}));
    QCOMPARE(space.prefetch, (std::vector<int>{1, 2, 4, 8}));
    QCOMPARE(space.batchSizes, (std::vector<int>{32}));
    // From 1 worker the search never goes down to 0; halving 3 gives 1.
    limits.tuneBatch = true;
    limits.minBatch = 8;
    limits.maxBatch = 100;
    const AutotuneSpace odd = autotuneSpace({1, 3, 24}, limits);
    QCOMPARE(odd.workers, (std::vector<int>{1, 2, 3}));
    QCOMPARE(odd.prefetch, (std::vector<int>{1, 2, 3, 4, 6, 8}));
    QCOMPARE(odd.batchSizes, (std::vector<int>{12, 24, 48, 96}));
    // Every setting the search visits on a function rising everywhere is in the space.
    AutotuneSearch search({1, 3, 24}, limits);
    for (int i = 0; i < 300; ++i) {
        const AutotuneSettings s = search.next();
        QVERIFY(std::count(odd.workers.begin(), odd.workers.end(), s.workers) == 1);
        QVERIFY(std::count(odd.prefetch.begin(), odd.prefetch.end(), s.prefetch) == 1);
        QVERIFY(std::count(odd.batchSizes.begin(), odd.batchSizes.end(), s.batchSize) == 1);
        search.report(s.workers * 100.0 + s.prefetch * 10.0 + s.batchSize + i % 2);
    }
}

void TestAutotune::triesAWinningChangeAgainFirst()
{
    // Throughput grows with the batch size; workers and prefetch change nothing.
    AutotuneLimits limits;
    limits.maxWorkers = 3;
    limits.tuneBatch = true;
    AutotuneSearch search({2, 2, 32}, limits);
    std::vector<AutotuneSettings> tried;
    std::vector<AutotuneMove> moves;
    for (int i = 0; i < 40 && moves.size() < 2; ++i) {
        const AutotuneSettings s = search.next();
        tried.push_back(s);
        if (auto move = search.report(100.0 * s.batchSize))
            moves.push_back(*move);
    }
    QCOMPARE(moves.size(), std::size_t{2});
    QCOMPARE(moves[0].to.batchSize, 64);
    QCOMPARE(moves[1].to.batchSize, 128);
    // Before the first move, the workers and prefetch neighbours came first (the
    // fixed order); after it, batch 128 is the first candidate: one window at 64,
    // then 128, then 64 again, then 128 once more to confirm, then the move.
    const std::vector<AutotuneSettings> afterFirst(tried.end() - 5, tried.end());
    QCOMPARE(afterFirst.front(), (AutotuneSettings{2, 2, 64}));
    QCOMPARE(afterFirst[1], (AutotuneSettings{2, 2, 128}));
    // After a move from 1 worker to 2 that no further change improves, 3 workers
    // (the same change again) are tried first and the way back to 1 worker last.
    AutotuneSearch back({1, 2, 32}, limits);
    const Throughput f = [](const AutotuneSettings &s) { return s.workers == 2 ? 400.0 : 300.0; };
    std::vector<AutotuneSettings> order;
    bool moved = false;
    for (int i = 0; i < 60; ++i) {
        const AutotuneSettings s = back.next();
        if (moved && !(s == back.incumbent()))
            order.push_back(s);
        const bool move = back.report(f(s)).has_value();
        moved = moved || move;
        if (back.holding())
            break;
    }
    QVERIFY(moved);
    QVERIFY(!order.empty());
    QCOMPARE(order.front().workers, 3); // the same change again: one worker more
    QCOMPARE(order.back(), (AutotuneSettings{1, 2, 32}));
}

void TestAutotune::movesTowardTheKnownBestOfARealConsumer()
{
    // A step that sleeps 15 ms whatever the batch size, on tiny synthetic samples
    // that cost next to nothing to load: samples/s doubles with each doubling of
    // the batch size, so the best setting is the largest batch allowed (32), known
    // in advance whatever else the machine runs. From batch 8 the tuner must move
    // up, only up, and hold at 32.
    RunConfig config;
    config.dataset.syntheticShape = {3, 8, 8};
    config.loader.numWorkers = 1;
    config.loader.batchSize = 8;
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 15.0;
    config.epochs = 0;
    RunController run;
    run.start(config);
    AutotuneOptions options;
    options.tuneBatch = true;
    options.maxWorkers = 1;
    options.minBatch = 8;
    options.maxBatch = 32;
    std::vector<AutotuneMove> moves;
    std::mutex mutex;
    Autotuner tuner(run, options, [&](const AutotuneMove &m) {
        const std::lock_guard lock(mutex);
        moves.push_back(m);
    });
    QVERIFY(tuner.waitForHold(std::chrono::seconds(90)));
    QCOMPARE(tuner.incumbent().batchSize, 32);
    QCOMPARE(run.config().loader.batchSize, 32);
    tuner.stop();
    run.stop();
    QVERIFY(run.waitForEnd(10'000));
    const std::lock_guard lock(mutex);
    QVERIFY(moves.size() >= 2); // 8 -> 16 -> 32
    for (const auto &m : moves)
        QVERIFY2(m.to.batchSize > m.from.batchSize, m.reason.c_str());
}

QTEST_GUILESS_MAIN(TestAutotune)
#include "test_autotune.moc"
