// BackgroundTask: the result, its error and progress arrive on the GUI thread; a stop
// request reaches the work; and cancelling, restarting or destroying a task whose work
// ignores the request returns at once (the work runs on to its end off the GUI thread
// and what it delivers is dropped). A watchdog opens the gate the work waits on after
// a few seconds, so a task that does wait fails the test instead of hanging it.

#include "tests/support/test_main.h"
#include "widgets/common/background_task.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

using namespace loaderlab;

namespace {

// Work that ignores stop waits here until the test (or the watchdog) opens it.
class Gate
{
public:
    ~Gate()
    {
        open();
        if (m_watchdog.joinable())
            m_watchdog.join();
    }
    void wait()
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [this] { return m_open; });
    }
    void open()
    {
        {
            std::lock_guard lock(m_mutex);
            m_open = true;
        }
        m_changed.notify_all();
    }
    bool isOpen()
    {
        std::lock_guard lock(m_mutex);
        return m_open;
    }
    // Opens the gate after `ms` from a thread of its own, in case the GUI thread waits.
    void openAfter(int ms)
    {
        m_watchdog = std::thread([this, ms] {
            std::unique_lock lock(m_mutex);
            m_changed.wait_for(lock, std::chrono::milliseconds(ms), [this] { return m_open; });
            m_open = true;
            m_changed.notify_all();
        });
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_open = false;
    std::thread m_watchdog;
};

constexpr int kWatchdogMs = 3000;

} // namespace

class TestBackgroundTask : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void resultAndProgressArriveOnTheGuiThread();
    void errorArrives();
    void stopRequestReachesTheWork();
    void restartDoesNotWaitForWorkThatIgnoresStop();
    void destroyDoesNotWaitForWorkThatIgnoresStop();
};

void TestBackgroundTask::resultAndProgressArriveOnTheGuiThread()
{
    BackgroundTask task;
    std::vector<std::pair<qint64, qint64>> progress;
    connect(&task, &BackgroundTask::progress, this,
            [&](qint64 done, qint64 total) { progress.emplace_back(done, total); });
    QSignalSpy finished(&task, &BackgroundTask::finished);
    QThread *gui = QThread::currentThread();
    QThread *resultThread = nullptr;
    std::atomic<bool> workOnGui{true};
    int result = 0;
    task.start(
        [&](const BackgroundTask::Control &control) {
            workOnGui = QThread::currentThread() == gui;
            for (qint64 i = 1; i <= 3; ++i)
                control.progress(i, 3);
            return 42;
        },
        [&](int value) {
            resultThread = QThread::currentThread();
            result = value;
        });
    QVERIFY(task.running());
    QTRY_COMPARE(finished.size(), 1);
    QVERIFY(!workOnGui);
    QCOMPARE(resultThread, gui);
    QCOMPARE(result, 42);
    QVERIFY(!task.running());
    // Posted before the result: all of them arrive first, in order.
    QCOMPARE(progress, (std::vector<std::pair<qint64, qint64>>{{1, 3}, {2, 3}, {3, 3}}));
}

void TestBackgroundTask::errorArrives()
{
    BackgroundTask task;
    QString error;
    bool resulted = false;
    task.start([](const BackgroundTask::Control &) { throw std::runtime_error("disk full"); },
               [&] { resulted = true; }, [&](const QString &e) { error = e; });
    QSignalSpy finished(&task, &BackgroundTask::finished);
    QTRY_COMPARE(finished.size(), 1);
    QCOMPARE(error, QStringLiteral("disk full"));
    QVERIFY(!resulted);
}

void TestBackgroundTask::stopRequestReachesTheWork()
{
    BackgroundTask task;
    std::atomic<bool> started{false};
    bool stopped = false;
    task.start(
        [&](const BackgroundTask::Control &control) {
            started = true;
            while (!control.stopRequested())
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            return true;
        },
        [&](bool value) { stopped = value; });
    QTRY_VERIFY(started);
    task.requestStop(); // unlike cancel(), the result still arrives
    QTRY_VERIFY(stopped);
    QVERIFY(!task.running());
}

void TestBackgroundTask::restartDoesNotWaitForWorkThatIgnoresStop()
{
    Gate gate;
    gate.openAfter(kWatchdogMs);
    int ticks = 0;
    QTimer ticker;
    connect(&ticker, &QTimer::timeout, this, [&] { ++ticks; });
    ticker.start(10);

    BackgroundTask task;
    std::vector<int> results;
    std::atomic<bool> firstSawStop{false};
    task.start(
        [&](const BackgroundTask::Control &control) {
            gate.wait();
            firstSawStop = control.stopRequested();
            return 1;
        },
        [&](int value) { results.push_back(value); });
    QTest::qWait(50);
    task.start([](const BackgroundTask::Control &) { return 2; },
               [&](int value) { results.push_back(value); });
    // The second result arrives while the first work still waits at the closed gate:
    // the restart did not wait for it, and the event loop kept turning meanwhile.
    QTRY_COMPARE(results, std::vector<int>{2});
    QVERIFY2(!gate.isOpen(), "the restart waited for the first work");
    const int ticksBefore = ticks;
    QTRY_VERIFY(ticks >= ticksBefore + 5);
    QVERIFY(!gate.isOpen());

    gate.open();
    BackgroundTask::joinAbandoned();
    QVERIFY(firstSawStop); // asked to stop when replaced
    QCoreApplication::processEvents();
    QCOMPARE(results, std::vector<int>{2}); // the replaced work's result is dropped
}

void TestBackgroundTask::destroyDoesNotWaitForWorkThatIgnoresStop()
{
    Gate gate;
    gate.openAfter(kWatchdogMs);
    bool delivered = false;
    std::atomic<bool> ended{false};
    auto *task = new BackgroundTask;
    task->start(
        [&](const BackgroundTask::Control &control) {
            gate.wait();
            control.post([&] { delivered = true; });
            ended = true;
        },
        [&] { delivered = true; });
    QTest::qWait(50);
    delete task;
    QVERIFY2(!gate.isOpen(), "the destructor waited for the work");

    gate.open();
    BackgroundTask::joinAbandoned();
    QVERIFY(ended);
    QCoreApplication::processEvents();
    QVERIFY(!delivered);
}

LOADERLAB_GUILESS_TEST_MAIN(TestBackgroundTask)
#include "test_background_task.moc"
