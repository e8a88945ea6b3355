#pragma once

// SweepWorker: runs a sweep (core/sweep/sweep_runner.h) in the background (a
// BackgroundTask), so the window never waits for a cell. The runner is made on the
// caller's thread, so a folder that holds another sweep's results is refused at once
// with the runner's reason. Progress comes back as this object's signals on its own
// (the GUI) thread; the thread never waits for the GUI. stop() asks the runner to stop
// (the running cell is stopped and not recorded) without waiting; finished() follows
// when the sweep has ended. Destroyed while running, it stops the sweep and lets its
// thread end on its own (the runner it uses is shared with the thread).

#include "core/sweep/sweep_runner.h"

#include <QObject>
#include <QString>

#include <memory>

namespace loaderlab {

class BackgroundTask;

class SweepWorker : public QObject
{
    Q_OBJECT

public:
    explicit SweepWorker(QObject *parent = nullptr);

    // Opens `dir` (made if missing) for `definition` and runs the cells it does not
    // hold yet. False with the reason when the folder cannot be used or a sweep runs.
    bool start(const loaderlab::SweepDefinition &definition, const QString &dir, QString *error);
    void stop();
    bool running() const { return m_running; }
    // The records the folder held when start() opened it.
    const std::map<std::int64_t, loaderlab::SweepRecord> &recordsAtStart() const
    {
        return m_recordsAtStart;
    }

Q_SIGNALS:
    // A cell starts: `done` of `total` cells of the sweep have ended (found ones included).
    void cellStarted(std::int64_t order, int done, int total, double etaSeconds);
    void cellEnded(const loaderlab::SweepRecord &record, int done, int total, double etaSeconds);
    // The thread has ended; `error` is set when the sweep could not go on (a results
    // file that cannot be written).
    void finished(const loaderlab::SweepOutcome &outcome, const QString &error);

private:
    void onEnded(const loaderlab::SweepOutcome &outcome, const QString &error);

    std::map<std::int64_t, loaderlab::SweepRecord> m_recordsAtStart;
    bool m_running = false;
    BackgroundTask *m_task;
};

} // namespace loaderlab
