// PyTorchRun's reader thread (core/engine/pytorch/pytorch_run.h): the engine's records pipe,
// stdout and stderr, the records turned into the trace, and the run's end.

#include "core/config/config_diff.h"
#include "core/engine/pytorch/pytorch_run.h"
#include "core/system/clock.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <csignal>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace loaderlab {
namespace {

// After a stop's SIGTERM, SIGKILL; after Python's exit, the pipes' last bytes.
constexpr std::int64_t kGraceNs = 3'000'000'000;
constexpr std::int64_t kDrainNs = 500'000'000;
// After a pipeline phase's limit, the time the engine's own alarm has to end it with
// its message before LoaderLab kills the process group.
constexpr std::int64_t kPhaseGraceNs = 5'000'000'000;

// The last line of the engine's stdout and stderr, for the message of a failure.
std::string engineOutputTails(const std::string &errTail, const std::string &outTail)
{
    std::string text;
    if (const std::string err = lastLine(errTail); !err.empty())
        text = ": " + quoteEngineLine(err, 300);
    if (const std::string out = lastLine(outTail); !out.empty())
        text += (text.empty() ? ": " : "; ") + std::string("stdout: ") + quoteEngineLine(out, 300);
    return text;
}

} // namespace

void PyTorchRun::readOutput(PythonProcess child)
{
    ChannelLineSplitter lines;
    // 0: records, 1: stdout, 2: stderr.
    const int fds[3] = {child.records, child.out, child.err};
    bool open[3] = {true, true, true};
    bool exited = false;
    std::int64_t stopAt = 0, drainUntil = 0;
    std::vector<char> buffer(65536);
    while (true) {
        pollfd polled[3];
        for (int k = 0; k < 3; ++k)
            polled[k] = {open[k] ? fds[k] : -1, POLLIN, 0};
        if (poll(polled, 3, 50) > 0) {
            for (int k = 0; k < 3; ++k) {
                if (!(polled[k].revents & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                const ssize_t n = read(fds[k], buffer.data(), buffer.size());
                if (n <= 0) {
                    if (!(n < 0 && errno == EINTR))
                        open[k] = false;
                    continue;
                }
                const std::string_view bytes(buffer.data(), static_cast<std::size_t>(n));
                if (k > 0) {
                    const std::lock_guard lock(m_mutex);
                    appendTail(k == 1 ? m_outTail : m_errTail, bytes);
                } else if (!m_outputRefused) {
                    try {
                        lines.feed(bytes, [this](std::string_view line) { handleLine(line); });
                    } catch (const ChannelError &e) {
                        // The splitter's refusal: the line in progress is too long.
                        refuseOutput("line " + std::to_string(m_lineNumber + 1) + " (" + e.what()
                                     + "): " + quoteEngineLine(lines.pending()));
                    }
                }
            }
        }
        const std::int64_t now = steadyNowNs();
        if (!exited && engineProcessExited(child.pid)) {
            // Python is gone: end what it left in its group, then read what is in
            // the pipes, but not for ever (a process outside the group may hold them).
            exited = true;
            drainUntil = now + kDrainNs;
            signalEngineGroup(child.pid, SIGKILL);
        }
        if (exited && ((!open[0] && !open[1] && !open[2]) || now > drainUntil))
            break;
        if (!exited && m_phaseDeadlineNs > 0 && now > m_phaseDeadlineNs) {
            // The pipeline outlasted its limit and its alarm (it swallowed or ignored
            // it): nothing of it may go on running.
            signalEngineGroup(child.pid, SIGKILL);
            m_phaseDeadlineNs = 0;
            char limit[32];
            std::snprintf(limit, sizeof limit, "%g", m_phaseSeconds);
            const std::lock_guard lock(m_mutex);
            m_error = m_config.dataset.path + ": " + m_phase + " took longer than " + limit
                      + " s and did not stop when told (LOADERLAB_PIPELINE_SECONDS sets the "
                        "limit); LoaderLab ended its processes";
            m_stopRequested = true;
        }
        bool stopping = false;
        {
            const std::lock_guard lock(m_mutex);
            if (!m_stopRequested && m_config.maxSeconds > 0
                && now - m_startNs > static_cast<std::int64_t>(m_config.maxSeconds * 1e9))
                m_stopRequested = true; // the time limit: a stop, but the run finished
            stopping = m_stopRequested;
        }
        if (exited || !stopping)
            continue;
        if (stopAt == 0) {
            stopAt = now;
            signalEngineGroup(child.pid, SIGTERM);
        } else if (now - stopAt > kGraceNs) {
            signalEngineGroup(child.pid, SIGKILL);
            stopAt = now; // again every 3 s until Python has exited
        }
    }
    {
        const std::lock_guard commandLock(m_commandMutex);
        close(child.commands);
        m_commandFd = -1;
    }
    for (int fd : fds)
        close(fd);
    finish(reapEngineProcess(child.pid));
}

void PyTorchRun::refuseOutput(const std::string &why)
{
    m_outputRefused = true;
    const std::lock_guard lock(m_mutex);
    m_error = "the PyTorch engine (" + m_python + ") sent a bad record on " + why;
    m_stopRequested = true; // ends the process group; the state is Failed
}

void PyTorchRun::handleLine(std::string_view line)
{
    ++m_lineNumber;
    if (m_outputRefused)
        return;
    m_channel.latestNs = steadyNowNs();
    m_channel.requestedVersion = m_lastRequest;
    EngineRecord record;
    try {
        record = parseEngineRecord(line, m_channel);
    } catch (const ChannelError &e) {
        refuseOutput("line " + std::to_string(m_lineNumber) + " (" + e.what()
                     + "): " + quoteEngineLine(line));
        return;
    }
    if (const auto *r = std::get_if<ChannelReconfigured>(&record)) {
        // Before the context follows it: a change that is not the one asked for is
        // refused (the line is that of the record).
        handleReconfigured(*r);
        if (m_outputRefused)
            return;
    }
    acceptEngineRecord(m_channel, record);
    if (const auto *phase = std::get_if<ChannelPhase>(&record)) {
        m_phase = phase->what;
        m_phaseSeconds = phase->seconds;
        m_phaseDeadlineNs = steadyNowNs() + static_cast<std::int64_t>(phase->seconds * 1e9)
                            + kPhaseGraceNs;
        return;
    }
    m_phaseDeadlineNs = 0; // any other record: the phase has ended
    if (const auto *start = std::get_if<ChannelStart>(&record)) {
        m_startNs = start->t0Ns; // only this thread reads it from here on
        // Its time 0 on the wall clock: the record came within a millisecond of it.
        const auto wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
        m_startUnixNs = wall - (steadyNowNs() - start->t0Ns);
        const std::lock_guard lock(m_mutex);
        m_description = "PyTorch DataLoader (torch " + start->torch + "): "
                        + (start->dataset.empty()
                               ? m_description.substr(m_description.find(": ") + 2)
                               : start->dataset);
    } else if (const auto *failure = std::get_if<ChannelFailure>(&record)) {
        const std::lock_guard lock(m_mutex);
        // The first error is the cause: when a rank fails, the others' exchange with
        // it fails after it. A rank other than rank 0 is ended with the run at once.
        if (m_error.empty()) {
            const int rank = m_launchRank >= 0 ? m_launchRank : failure->rank;
            m_error = (m_channel.ranks > 1 || m_launchRank >= 0
                           ? "rank " + std::to_string(rank) + ": "
                           : std::string())
                      + failure->message;
            m_refused = failure->refused;
        }
        if (failure->rank > 0)
            m_stopRequested = true;
    } else if (std::holds_alternative<ChannelEnd>(record)) {
        const std::lock_guard lock(m_mutex);
        m_sawEnd = true;
    } else if (const auto *b = std::get_if<ChannelBatch>(&record)) {
        handleBatch(*b);
    } else if (const auto *refused = std::get_if<ChannelRefused>(&record)) {
        const std::lock_guard lock(m_mutex);
        const auto it = m_requests.find(refused->version);
        if (it != m_requests.end() && refused->version == m_lastRequest)
            m_requested = m_config; // what is asked for next is compared with what runs
        m_requests.erase(m_requests.begin(), m_requests.upper_bound(refused->version));
        m_reconfigureError = "the PyTorch engine refused the change: " + refused->message;
    } else if (const auto *replay = std::get_if<ChannelReplay>(&record)) {
        m_trace->addMarker({m_batches,
                            replay->tNs - m_startNs,
                            MarkerKind::Replay,
                            m_version,
                            {},
                            std::to_string(replay->batches)});
    } else if (const auto *p = std::get_if<ChannelPaused>(&record)) {
        m_trace->addMarker({m_batches, p->tNs - m_startNs, MarkerKind::Pause, m_version, {}, {}});
    } else if (const auto *q = std::get_if<ChannelResumed>(&record)) {
        m_trace->addMarker({m_batches, q->tNs - m_startNs, MarkerKind::Resume, m_version, {}, {}});
    }
}

void PyTorchRun::handleReconfigured(const ChannelReconfigured &r)
{
    std::unique_lock lock(m_mutex);
    const auto it = m_requests.find(r.version);
    if (it == m_requests.end() || it->second.config.loader.batchSize != r.batchSize
        || it->second.config.loader.numWorkers != r.workers) {
        lock.unlock();
        refuseOutput("line " + std::to_string(m_lineNumber) + " (not the change asked for as "
                     + std::to_string(r.version) + ")");
        return;
    }
    // The engine applies the latest change it has read; those before it are part of it.
    Request request = std::move(it->second);
    m_requests.erase(m_requests.begin(), std::next(it));
    std::vector<FieldChange> changes = liveChanges(m_config, request.config);
    if (changes.empty())
        return;
    m_config = request.config;
    const RunConfig applied = m_config;
    lock.unlock();
    ++m_version;
    // The trace's next batch (r.index is rank 0's; every rank changes at that batch).
    const std::int64_t time = r.tNs - m_startNs;
    m_trace->addConfigVersion({m_version, m_batches, time, applied});
    m_trace->addMarker(
        {m_batches, time, request.kind, m_version, std::move(changes), std::move(request.detail)});
}

void PyTorchRun::handleBatch(const ChannelBatch &b)
{
    // One sequence over the ranks' batches, in the order they arrive.
    TraceRecord r;
    r.index = m_batches++;
    r.rank = m_launchRank >= 0 ? m_launchRank : b.rank;
    r.epoch = b.epoch;
    r.worker = b.worker < 0 ? kConsumerThread : b.worker;
    r.samples = b.samples;
    r.skipped = b.skipped;
    r.configVersion = m_version;
    r.loadStartNs = b.loadStartNs - m_startNs;
    r.loadEndNs = b.loadEndNs - m_startNs;
    r.readyNs = r.loadEndNs;
    r.readNs = b.readNs;
    r.decodeNs = b.decodeNs;
    r.transformNs = b.transformNs;
    r.collateNs = b.loadEndNs - b.collateStartNs;
    r.requestNs = b.requestNs - m_startNs;
    r.deliveryNs = b.deliveryNs - m_startNs;
    r.computeStartNs = b.computeStartNs - m_startNs;
    r.computeEndNs = b.computeEndNs - m_startNs;
    const auto since = [this](std::int64_t ns) { return ns > 0 ? ns - m_startNs : 0; };
    r.syncStartNs = since(b.syncStartNs);
    r.syncEndNs = since(b.syncEndNs);
    r.exchangeEndNs = since(b.exchangeEndNs);
    if (r.epoch != m_lastEpoch && r.rank == (m_launchRank >= 0 ? m_launchRank : 0)) {
        m_trace->addMarker(
            {r.index, r.requestNs, MarkerKind::Epoch, m_version, {}, std::to_string(r.epoch)});
        m_lastEpoch = r.epoch;
    }
    if (b.replayed) {
        // Loaded by no worker: no span, as LoaderLab's engine traces a replayed batch.
    } else if (b.spans.empty())
        m_trace->appendSpan({r.index, r.worker, r.rank, r.loadStartNs, r.loadEndNs});
    for (const auto &[start, end] : b.spans)
        m_trace->appendSpan({r.index, r.worker, r.rank, start - m_startNs, end - m_startNs});
    for (const ChannelSkip &skip : b.skips)
        m_trace->addSkipped(
            {r.index, std::max<std::int64_t>(skip.index, 0),
             skip.index < 0 ? m_sampleSource + " (an item of its stream)" : m_sampleSource,
             skip.reason});
    m_trace->append(r);
    const std::lock_guard lock(m_mutex);
    EpochSamples &epoch = m_epochSamples[b.epoch];
    epoch.samples += b.samples;
    epoch.ids = (epoch.ids + static_cast<std::uint64_t>(b.ids)) % kEngineIdsModulus;
}

void PyTorchRun::finish(int status)
{
    std::unique_lock lock(m_mutex);
    const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0 && m_sawEnd && m_error.empty();
    const bool timeUp = m_config.maxSeconds > 0
                        && steadyNowNs() - m_startNs
                               >= static_cast<std::int64_t>(m_config.maxSeconds * 1e9);
    if (clean || (m_stopRequested && timeUp && m_error.empty())) {
        m_state = RunState::Finished;
    } else if (m_stopRequested && m_error.empty()) {
        m_state = RunState::Stopped;
    } else {
        m_state = RunState::Failed;
        if (m_error.empty()) {
            m_error = "the PyTorch engine ended ("
                      + (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                             : "exit " + std::to_string(WEXITSTATUS(status)))
                      + (m_sawEnd ? ")" : ") before its end record")
                      + engineOutputTails(m_errTail, m_outTail);
        }
    }
    const RunState state = m_state;
    const std::function<void(RunState)> onEnded = m_onEnded;
    lock.unlock();
    if (onEnded)
        onEnded(state);
    lock.lock();
    m_endedCalled = true; // wait() returns after the callback
    lock.unlock();
    m_ended.notify_all();
}

} // namespace loaderlab
