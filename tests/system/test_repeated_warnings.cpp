// RepeatedWarnings: a message is logged once and then only counted; at most kBurst
// new messages per window; the held-back count is reported after each window and
// at flush(); reset() starts a new run clean.

#include "core/system/repeated_warnings.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <string>
#include <thread>
#include <vector>

using loaderlab::RepeatedWarnings;

class TestRepeatedWarnings : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aRepeatedMessageIsLoggedOnceAndCounted();
    void newMessagesAreLimitedPerWindowThenResume();
    void flushReportsTheHeldBackCountOnce();
    void resetForgetsWhatWasSeen();
    void manyThreadsLogThroughOneLimiter();
};

namespace {

struct Fixture
{
    std::vector<std::string> lines;
    std::int64_t now = 0;
    RepeatedWarnings limiter{[this](const std::string &line) { lines.push_back(line); },
                             [this] { return now; }};
};

} // namespace

void TestRepeatedWarnings::aRepeatedMessageIsLoggedOnceAndCounted()
{
    Fixture f;
    for (int epoch = 0; epoch < 1000; ++epoch)
        f.limiter.warn("skipped a/bad.jpg: not a JPEG or PNG image");
    QCOMPARE(f.lines.size(), std::size_t{1});
    QCOMPARE(f.lines[0], std::string("skipped a/bad.jpg: not a JPEG or PNG image"));
    QCOMPARE(f.limiter.heldBack(), std::int64_t{999});
}

void TestRepeatedWarnings::newMessagesAreLimitedPerWindowThenResume()
{
    Fixture f;
    for (int i = 0; i < 100; ++i)
        f.limiter.warn("skipped sample " + std::to_string(i));
    QCOMPARE(f.lines.size(), std::size_t(RepeatedWarnings::kBurst));
    QCOMPARE(f.lines.back(), "skipped sample " + std::to_string(RepeatedWarnings::kBurst - 1));
    // Still inside the window: held back.
    f.now = RepeatedWarnings::kWindowNs - 1;
    f.limiter.warn("skipped sample 100");
    QCOMPARE(f.lines.size(), std::size_t(RepeatedWarnings::kBurst));
    // A new window: first the count of what was held back, then the new message.
    f.now = RepeatedWarnings::kWindowNs;
    f.limiter.warn("skipped sample 101");
    QCOMPARE(f.lines.size(), std::size_t(RepeatedWarnings::kBurst + 2));
    const std::string held = f.lines[RepeatedWarnings::kBurst];
    QVERIFY2(held.find("held back 81 warnings") == 0, held.c_str());
    QVERIFY2(held.find("0 repeating one already shown, 81 over 20 new ones") != std::string::npos,
             held.c_str());
    QCOMPARE(f.lines.back(), std::string("skipped sample 101"));
}

void TestRepeatedWarnings::flushReportsTheHeldBackCountOnce()
{
    Fixture f;
    f.limiter.flush();
    QVERIFY(f.lines.empty()); // nothing held back: nothing to say
    f.limiter.warn("x: bad");
    f.limiter.warn("x: bad");
    f.limiter.warn("x: bad");
    f.limiter.flush();
    QCOMPARE(f.lines.size(), std::size_t{2});
    QVERIFY2(f.lines[1].find("held back 2 warnings (2 repeating one already shown, 0 over") == 0,
             f.lines[1].c_str());
    f.limiter.flush();
    QCOMPARE(f.lines.size(), std::size_t{2});
}

void TestRepeatedWarnings::resetForgetsWhatWasSeen()
{
    Fixture f;
    f.limiter.warn("x: bad");
    f.limiter.warn("x: bad");
    f.limiter.flush();
    f.limiter.reset();
    QCOMPARE(f.limiter.heldBack(), std::int64_t{0});
    f.limiter.warn("x: bad"); // the next run shows it again
    QCOMPARE(f.lines.back(), std::string("x: bad"));
}

void TestRepeatedWarnings::manyThreadsLogThroughOneLimiter()
{
    Fixture f;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&f, t] {
            for (int i = 0; i < 2000; ++i)
                f.limiter.warn("worker " + std::to_string(t) + " sample " + std::to_string(i % 50));
        });
    for (auto &thread : threads)
        thread.join();
    QCOMPARE(f.lines.size(), std::size_t(RepeatedWarnings::kBurst));
    QCOMPARE(f.limiter.heldBack(), std::int64_t{4 * 2000 - RepeatedWarnings::kBurst});
}

LOADERLAB_GUILESS_TEST_MAIN(TestRepeatedWarnings)
#include "test_repeated_warnings.moc"
