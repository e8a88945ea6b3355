#pragma once

// BackgroundTask: GUI-side work on a thread of its own (probing Python, a sweep, the
// max-batch search, generating or preprocessing a dataset). start() runs a callable
// on a new std::jthread; the callable gets a Control with the stop token the core
// functions take, and posts progress with it; its result (or the message of the
// exception it threw) is handed to a callback on the task's own (the GUI) thread.
//
// Nothing here waits for the work on the GUI thread. cancel(), a second start() and
// the destructor request stop and return at once: what the work posts afterwards,
// its result included, is dropped, and its thread is handed to a process-wide reaper
// that joins it on a thread of its own. Work that ignores the stop request therefore
// runs on to its end without holding up the window; it must not touch the object
// that started it except through Control::post (which is why the callbacks only run
// on the GUI thread while this task is current). The reaper joins whatever is left
// when the QCoreApplication goes away and again at exit, so no thread outlives the
// process. Chosen over QtConcurrent::run: core's long calls take std::stop_token,
// and a pool sized to the cores would queue a sweep behind the engine probe.

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <stop_token>
#include <thread>
#include <type_traits>
#include <utility>

namespace loaderlab {

struct BackgroundTaskRun;

class BackgroundTask : public QObject
{
    Q_OBJECT

public:
    // What the work gets on its thread.
    class Control
    {
    public:
        std::stop_token stopToken() const { return m_stop; }
        bool stopRequested() const { return m_stop.stop_requested(); }
        // Runs `f` later on the task's thread, unless the task has been cancelled,
        // restarted or destroyed by then (then `f` is dropped unrun).
        void post(std::function<void()> f) const;
        // Emits BackgroundTask::progress(done, total) on the task's thread (via post).
        void progress(qint64 done, qint64 total) const;

    private:
        friend class BackgroundTask;
        Control(std::shared_ptr<BackgroundTaskRun> run, std::stop_token stop)
            : m_run(std::move(run))
            , m_stop(std::move(stop))
        {
        }

        std::shared_ptr<BackgroundTaskRun> m_run;
        std::stop_token m_stop;
    };

    using ErrorHandler = std::function<void(const QString &error)>;

    explicit BackgroundTask(QObject *parent = nullptr);
    ~BackgroundTask() override; // cancel(): never waits

    // Runs `work(Control &)` on a new thread; a task still running is cancelled first.
    // On the task's thread afterwards: `onResult(result)` (or `onResult()` for void
    // work), or `onError(what)` when the work threw; then finished().
    template <typename Work, typename OnResult>
    void start(Work work, OnResult onResult, ErrorHandler onError = {});
    // Asks the work to stop; what it posts and its result still arrive.
    void requestStop() { m_thread.request_stop(); }
    // Requests stop and forgets the work: nothing of it arrives any more.
    void cancel();
    // True from start() until the result is delivered or the task is cancelled.
    bool running() const { return m_run != nullptr; }

    // Joins every thread that tasks have left behind (their work must end on its own).
    // For the end of the process; blocks the calling thread until then.
    static void joinAbandoned();

Q_SIGNALS:
    void progress(qint64 done, qint64 total);
    void finished();

private:
    using Delivery = std::function<void()>;
    void startWork(std::function<Delivery(Control &)> work, ErrorHandler onError);
    void deliver(const std::shared_ptr<BackgroundTaskRun> &run, const Delivery &delivery);

    std::shared_ptr<BackgroundTaskRun> m_run;
    std::jthread m_thread;
};

template <typename Work, typename OnResult>
void BackgroundTask::start(Work work, OnResult onResult, ErrorHandler onError)
{
    using Result = std::invoke_result_t<Work &, Control &>;
    startWork(
        [work = std::move(work),
         onResult = std::move(onResult)](Control &control) mutable -> Delivery {
            if constexpr (std::is_void_v<Result>) {
                work(control);
                return [onResult] { onResult(); };
            } else {
                return
                    [onResult, result = work(control)]() mutable { onResult(std::move(result)); };
            }
        },
        std::move(onError));
}

} // namespace loaderlab
