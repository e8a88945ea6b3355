#include "widgets/experiments/sweep_worker.h"

#include "widgets/common/background_task.h"

#include <exception>

namespace loaderlab {

SweepWorker::SweepWorker(QObject *parent)
    : QObject(parent)
    , m_task(new BackgroundTask(this))
{
}

bool SweepWorker::start(const SweepDefinition &definition, const QString &dir, QString *error)
{
    if (m_running) {
        *error = tr("A sweep is already running.");
        return false;
    }
    std::shared_ptr<SweepRunner> runner;
    try {
        // Before the results folder is made: a sweep none of whose cells can run.
        if (const std::string why = sweepCannotRun(definition); !why.empty()) {
            *error = QString::fromStdString(why);
            return false;
        }
        runner = std::make_shared<SweepRunner>(definition, dir.toStdString(),
                                               SweepRunner::Options{});
    } catch (const std::exception &e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
    m_recordsAtStart = runner->results().records();
    m_running = true;
    m_task->start(
        [this, runner](const BackgroundTask::Control &control) {
            // `this` only inside the posted calls, which run on the GUI thread while
            // this worker (and so its task) is alive.
            return runner->run(control.stopToken(), [this, &control](const SweepProgress &p) {
                // Copies: the runner's record lives in its results, which it goes on
                // changing on this thread.
                const int done = p.done;
                const int total = p.total;
                const double eta = p.etaSeconds;
                if (p.record) {
                    control.post([this, record = *p.record, done, total, eta] {
                        Q_EMIT cellEnded(record, done, total, eta);
                    });
                } else {
                    control.post([this, order = p.cell->order, done, total, eta] {
                        Q_EMIT cellStarted(order, done, total, eta);
                    });
                }
            });
        },
        [this](const SweepOutcome &outcome) { onEnded(outcome, QString()); },
        [this](const QString &failure) { onEnded(SweepOutcome{}, failure); });
    return true;
}

void SweepWorker::stop()
{
    // Not cancel(): the sweep's end (the cells it recorded) is still wanted.
    m_task->requestStop();
}

void SweepWorker::onEnded(const SweepOutcome &outcome, const QString &error)
{
    m_running = false;
    Q_EMIT finished(outcome, error);
}

} // namespace loaderlab
