#include "widgets/session/run_session.h"

#include "core/dataset/dataset.h"
#include "widgets/common/engine_text.h"

#include <algorithm>

namespace loaderlab {

RunSession::RunSession(QObject *parent)
    : QObject(parent)
{
    m_refresh.setInterval(33);
    connect(&m_refresh, &QTimer::timeout, this, &RunSession::onTimer);
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(200);
    connect(&m_debounce, &QTimer::timeout, this, &RunSession::applyPendingReconfigure);
    m_service.setExtraVersions({{"qt", qVersion()}});
    m_service.setTraceRetention(kDefaultKeepBatches);
    // The engine says when it ends (on its run thread); the window learns it at once
    // instead of at the next refresh the governor lets through.
    m_service.setOnEnded([this](RunState) {
        QMetaObject::invokeMethod(this, &RunSession::onEngineEnded, Qt::QueuedConnection);
    });
}

RunSession::~RunSession()
{
    m_service.stop(); // the engine joins its threads (ends its Python) when destroyed
}

bool RunSession::start(const RunConfig &config, QString *error)
{
    m_debounce.stop();
    // The engine's refusal in the window's language (the engine would throw it in English).
    if (const QString why = enginetext::problem(config); !why.isEmpty()) {
        if (error)
            *error = why;
        return false;
    }
    try {
        m_service.start(config);
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    m_trace = m_service.engine().trace();
    m_firstBatchMs.reset();
    m_maxWorkers = config.loader.numWorkers;
    m_runs.setLive(m_trace, config, m_maxWorkers);
    Q_EMIT traceReplaced();
    setState(RunState::Running);
    m_refresh.start();
    return true;
}

void RunSession::requestReconfigure(const LoaderConfig &loader, const ConsumerConfig &consumer)
{
    m_pendingLoader = loader;
    m_pendingConsumer = consumer;
    m_debounce.start();
}

void RunSession::applyPendingReconfigure()
{
    if (!running())
        return;
    try {
        m_service.engine().reconfigure(m_pendingLoader, m_pendingConsumer);
        m_maxWorkers = std::max(m_maxWorkers, m_pendingLoader.numWorkers);
    } catch (const std::exception &e) {
        // The controls keep to the config table's ranges, so this means a setting the
        // engine refuses in combination; the run goes on with what it has.
        Q_EMIT reconfigureFailed(QString::fromStdString(e.what()));
    }
}

void RunSession::pause()
{
    m_service.engine().pause();
    setState(m_service.engine().state());
}

void RunSession::resume()
{
    m_service.engine().resume();
    setState(m_service.engine().state());
}

void RunSession::stop()
{
    m_debounce.stop();
    // LoaderLab's engine stops at once; the PyTorch engine's process group within
    // 3 s, which the refresh timer sees.
    m_service.stop();
    onTimer();
}

void RunSession::reset()
{
    stop();
    m_trace.reset();
    m_maxWorkers = 0;
    m_runs.setLive(nullptr, {}, 0);
    Q_EMIT traceReplaced();
    setState(RunState::Idle);
}

RunState RunSession::state() const
{
    return m_state;
}

bool RunSession::running() const
{
    return m_state == RunState::Running || m_state == RunState::Paused;
}

bool RunSession::finished() const
{
    return m_service.engine().finished();
}

RunConfig RunSession::config() const
{
    return m_service.engine().config();
}

QString RunSession::datasetDescription() const
{
    return QString::fromStdString(m_service.engine().datasetDescription());
}

QString RunSession::error() const
{
    return QString::fromStdString(m_service.engine().error());
}

RunReport RunSession::report() const
{
    return m_service.report();
}

RunSummary RunSession::summary(std::size_t window) const
{
    if (!m_trace || m_trace->size() == 0)
        return {};
    const std::size_t n = m_trace->size();
    const std::size_t from = window > 0 && n > window ? n - window : 0;
    RunSummary s;
    if (from == 0 && m_trace->firstKept() > 0) {
        // The oldest batches are no longer held: the summary kept as they came.
        s = m_trace->summary();
    } else {
        const std::size_t spanFrom = [&] {
            const auto hold = m_trace->hold();
            return m_trace->firstSpanOfBatch(static_cast<std::int64_t>(from));
        }();
        s = summarize(m_trace->records(from, n), m_trace->spans(spanFrom),
                      m_trace->workersByVersion(), from == 0 ? config().warmupBatches : 0,
                      m_trace->skippedCount());
        s.droppedRecords = m_trace->droppedRecords();
        s.droppedSpans = m_trace->droppedSpans();
        s.replay = m_trace->replaySummary(); // the whole run's, split at its replay
    }
    s.peakMemoryBytes = m_service.engine().peakMemoryBytes();
    if (from > 0) {
        if (!m_firstBatchMs) {
            const std::vector<TraceRecord> first = m_trace->records(0, 1);
            m_firstBatchMs = first.empty() ? m_trace->summary().firstBatchLatencyMs
                                           : static_cast<double>(first[0].deliveryNs) / 1e6;
        }
        s.firstBatchLatencyMs = *m_firstBatchMs;
    }
    noteConsumerStep(s, config());
    return s;
}

void RunSession::setKeepBatches(std::size_t keep)
{
    m_service.setTraceRetention(keep);
}

int RunSession::keepRun()
{
    if (!m_trace || m_trace->size() == 0)
        return -1;
    RunEntry entry;
    entry.trace = m_trace;
    entry.summary = summary();
    entry.config = config();
    entry.workers = m_maxWorkers;
    entry.name = RunList::nameFor(m_trace->configVersions(), entry.config);
    return m_runs.add(std::move(entry));
}

int RunSession::addOpenedRun(const OpenedRun &run)
{
    RunEntry entry;
    entry.trace = run.trace;
    entry.summary = run.report.summary;
    entry.config = run.report.config;
    entry.workers = run.maxWorkers; // 0: loaded in the consumer thread, as live
    entry.name = RunList::nameFor(run.report.configVersions, entry.config);
    entry.source = QString::fromStdString(run.csvPath);
    return m_runs.add(std::move(entry));
}

void RunSession::onTimer()
{
    // Checked at every timer shot, paced or not: the reason must not wait for a
    // refresh the governor skips.
    if (const std::string why = m_service.engine().takeReconfigureError(); !why.empty())
        Q_EMIT reconfigureFailed(QString::fromStdString(why));
    const RunState engine = m_service.engine().state();
    const bool ended = finished();
    if (!m_governor.shouldRefresh() && engine == m_state && !ended)
        return;
    Q_EMIT tick();
    if (engine != m_state)
        setState(engine);
    if (ended)
        m_refresh.stop();
}

void RunSession::onEngineEnded()
{
    if (finished())
        onTimer();
}

void RunSession::setState(RunState state)
{
    if (state == m_state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

} // namespace loaderlab
