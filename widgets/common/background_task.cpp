#include "widgets/common/background_task.h"

#include <QCoreApplication>
#include <QMetaObject>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>

namespace loaderlab {

// What a task and its thread share. `owner` is cleared (under the mutex) when the
// task lets go of the run, so a post from the thread either reaches a live task or
// is not made at all.
struct BackgroundTaskRun
{
    std::mutex mutex;
    BackgroundTask *owner = nullptr;
};

namespace {

// Joins the threads that tasks let go of, on a thread of its own, so that no GUI
// call waits for a thread. Work that was asked to stop ends within its own bound
// (a sample's load, a Python probe killed); the reaper only waits for that.
class Reaper
{
public:
    static Reaper &instance()
    {
        static Reaper reaper;
        return reaper;
    }

    Reaper(const Reaper &) = delete;
    Reaper &operator=(const Reaper &) = delete;

    ~Reaper()
    {
        joinAll();
        m_thread.request_stop();
        m_thread.join();
    }

    void adopt(std::jthread thread)
    {
        if (!thread.joinable())
            return;
        {
            std::lock_guard lock(m_mutex);
            m_pending.push_back(std::move(thread));
        }
        m_wake.notify_all();
    }

    void joinAll()
    {
        std::unique_lock lock(m_mutex);
        m_idle.wait(lock, [this] { return m_pending.empty() && !m_joining; });
    }

private:
    Reaper() = default;

    void loop(std::stop_token stop)
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            if (!m_wake.wait(lock, stop, [this] { return !m_pending.empty(); }))
                return; // stop requested with nothing left
            std::jthread thread = std::move(m_pending.front());
            m_pending.pop_front();
            m_joining = true;
            lock.unlock();
            thread.join();
            lock.lock();
            m_joining = false;
            m_idle.notify_all();
        }
    }

    std::mutex m_mutex;
    std::condition_variable_any m_wake;
    std::condition_variable m_idle;
    std::deque<std::jthread> m_pending;
    bool m_joining = false;
    std::jthread m_thread{[this](std::stop_token stop) { loop(stop); }}; // last
};

void joinAbandonedAtExit()
{
    Reaper::instance().joinAll();
}

} // namespace

void BackgroundTask::Control::post(std::function<void()> f) const
{
    std::lock_guard lock(m_run->mutex);
    if (m_run->owner == nullptr)
        return;
    // Under the lock the task is alive; a queued call to a QObject destroyed later is
    // discarded by Qt. The task delivers only while `run` is still its current one.
    BackgroundTask *owner = m_run->owner;
    QMetaObject::invokeMethod(
        owner,
        [owner, run = m_run, f = std::move(f)] {
            if (owner->m_run == run)
                f();
        },
        Qt::QueuedConnection);
}

void BackgroundTask::Control::progress(qint64 done, qint64 total) const
{
    std::lock_guard lock(m_run->mutex);
    if (m_run->owner == nullptr)
        return;
    BackgroundTask *owner = m_run->owner;
    QMetaObject::invokeMethod(
        owner,
        [owner, run = m_run, done, total] {
            if (owner->m_run == run)
                Q_EMIT owner->progress(done, total);
        },
        Qt::QueuedConnection);
}

BackgroundTask::BackgroundTask(QObject *parent)
    : QObject(parent)
{
    static std::once_flag registered;
    std::call_once(registered, [] {
        Reaper::instance(); // made before any task can need it
        if (QCoreApplication::instance())
            qAddPostRoutine(joinAbandonedAtExit);
    });
}

BackgroundTask::~BackgroundTask()
{
    cancel();
}

void BackgroundTask::cancel()
{
    if (!m_run)
        return;
    {
        std::lock_guard lock(m_run->mutex);
        m_run->owner = nullptr;
    }
    m_run.reset();
    m_thread.request_stop();
    Reaper::instance().adopt(std::move(m_thread));
}

void BackgroundTask::joinAbandoned()
{
    Reaper::instance().joinAll();
}

void BackgroundTask::startWork(std::function<Delivery(Control &)> work, ErrorHandler onError)
{
    cancel();
    auto run = std::make_shared<BackgroundTaskRun>();
    run->owner = this;
    m_run = run;
    m_thread = std::jthread([run, work = std::move(work),
                             onError = std::move(onError)](std::stop_token stop) mutable {
        Control control(run, std::move(stop));
        Delivery delivery;
        try {
            delivery = work(control);
        } catch (const std::exception &e) {
            delivery = [onError, what = QString::fromStdString(e.what())] {
                if (onError)
                    onError(what);
            };
        } catch (...) {
            delivery = [onError] {
                if (onError)
                    onError(BackgroundTask::tr("unknown error"));
            };
        }
        // The last post: the task lets go of the run, then hands the result over.
        std::lock_guard lock(run->mutex);
        if (run->owner == nullptr)
            return;
        BackgroundTask *owner = run->owner;
        QMetaObject::invokeMethod(
            owner, [owner, run, delivery = std::move(delivery)] { owner->deliver(run, delivery); },
            Qt::QueuedConnection);
    });
}

void BackgroundTask::deliver(const std::shared_ptr<BackgroundTaskRun> &run,
                             const Delivery &delivery)
{
    if (m_run != run)
        return; // cancelled or restarted since
    {
        std::lock_guard lock(run->mutex);
        run->owner = nullptr;
    }
    m_run.reset();
    // The thread posted this as its last act; the reaper joins it, not the GUI.
    Reaper::instance().adopt(std::move(m_thread));
    // Not running any more: the callback may start the next piece of work.
    delivery();
    Q_EMIT finished();
}

} // namespace loaderlab
