#include "widgets/sweep_worker.h"

#include <QMetaObject>

#include <exception>

using namespace loaderlab;

SweepWorker::SweepWorker(QObject *parent)
    : QObject(parent)
{
}

SweepWorker::~SweepWorker()
{
    // The running cell stops within one sample's load time (RunService::stop).
    m_thread.request_stop();
    if (m_thread.joinable())
        m_thread.join();
}

bool SweepWorker::start(const SweepDefinition &definition, const QString &dir, QString *error)
{
    if (m_running) {
        *error = tr("A sweep is already running.");
        return false;
    }
    std::shared_ptr<SweepRunner> runner;
    try {
        runner = std::make_shared<SweepRunner>(definition, dir.toStdString(),
                                               SweepRunner::Options{});
    } catch (const std::exception &e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
    m_recordsAtStart = runner->results().records();
    m_running = true;
    m_thread = std::jthread([this, runner](std::stop_token stop) {
        SweepOutcome outcome;
        QString failure;
        try {
            outcome = runner->run(stop, [this](const SweepProgress &p) {
                // Copies: the runner's record lives in its results, which it goes on
                // changing on this thread.
                const int done = p.done;
                const int total = p.total;
                const double eta = p.etaSeconds;
                if (p.record) {
                    QMetaObject::invokeMethod(
                        this,
                        [this, record = *p.record, done, total, eta] {
                            Q_EMIT cellEnded(record, done, total, eta);
                        },
                        Qt::QueuedConnection);
                } else {
                    QMetaObject::invokeMethod(
                        this,
                        [this, order = p.cell->order, done, total, eta] {
                            Q_EMIT cellStarted(order, done, total, eta);
                        },
                        Qt::QueuedConnection);
                }
            });
        } catch (const std::exception &e) {
            failure = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            this, [this, outcome, failure] { onThreadEnded(outcome, failure); },
            Qt::QueuedConnection);
    });
    return true;
}

void SweepWorker::stop()
{
    m_thread.request_stop();
}

void SweepWorker::onThreadEnded(const SweepOutcome &outcome, const QString &error)
{
    // The thread posted this as its last act: the join is immediate.
    if (m_thread.joinable())
        m_thread.join();
    m_running = false;
    Q_EMIT finished(outcome, error);
}
