#include "core/run/pytorch_run.h"

#include "core/system/clock.h"
#include "core/system/machine_info.h"
#include "pytorch_engine_script.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <vector>

#include <csignal>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace loaderlab {
namespace {

using json = nlohmann::json;

json settingsJson(const RunConfig &c)
{
    // pytorch_engine.py knows the kinds marked pytorchEngine in the table, by name.
    return {{"kind", datasetKindName(c.dataset.kind)},
            {"path", c.dataset.path},
            {"resize", c.dataset.resizeSize},
            {"crop", c.dataset.cropSize},
            {"transform", c.dataset.transform == TransformKind::Train ? "train" : "eval"},
            {"shape",
             {c.dataset.syntheticShape.channels, c.dataset.syntheticShape.height,
              c.dataset.syntheticShape.width}},
            {"samples", c.dataset.syntheticSamples},
            {"seed", c.loader.seed},
            {"workers", c.loader.numWorkers},
            {"batch_size", c.loader.batchSize},
            {"prefetch", c.loader.prefetchFactor},
            {"persistent", c.loader.persistentWorkers},
            {"shuffle", c.loader.shuffle},
            {"drop_last", c.loader.dropLast},
            {"pin_memory", c.loader.pinMemory},
            {"sleep_batch_ms",
             c.consumer.kind == ConsumerKind::Sleep ? c.consumer.sleepPerBatchMs : 0.0},
            {"sleep_sample_ms",
             c.consumer.kind == ConsumerKind::Sleep ? c.consumer.sleepPerSampleMs : 0.0},
            {"max_batches", c.maxBatches},
            {"epochs", c.epochs}};
}

} // namespace

std::string pytorchEngineProblem(const std::string &python, const EngineCancel &cancelled)
{
    static std::mutex mutex;
    static std::map<std::string, std::string> known;
    const std::lock_guard lock(mutex);
    if (const auto it = known.find(python); it != known.end())
        return it->second;
    std::string problem;
    const double seconds = engineCheckSeconds();
    try {
        const EngineCheck check = runEngineCheck({python, "-c", "import torch, torchvision"},
                                                 static_cast<std::int64_t>(seconds * 1000),
                                                 cancelled);
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", seconds);
        if (check.timedOut)
            return python + " cannot import torch and torchvision: timed out after " + limit
                   + " s (LOADERLAB_PYTORCH_CHECK_SECONDS sets the limit)";
        if (check.cancelled)
            return python + ": the check for torch and torchvision was stopped";
        const int status = check.status;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            const std::string last = lastLine(check.errTail);
            problem = python + " cannot import torch and torchvision"
                      + (last.empty() ? "" : " (" + last.substr(0, 300) + ")")
                      + "; on Debian: apt-get install python3-torch python3-torchvision";
        }
    } catch (const std::exception &e) {
        problem = std::string(e.what())
                  + " (the PyTorch engine needs Python 3 with torch and "
                    "torchvision)";
    }
    known[python] = problem;
    return problem;
}

std::string pytorchEnginePython(const EngineCancel &cancelled)
{
    if (const char *chosen = std::getenv("LOADERLAB_PYTHON"); chosen && *chosen)
        return chosen;
    static std::mutex mutex;
    static std::string found;
    const std::lock_guard lock(mutex);
    if (!found.empty())
        return found;
    for (const char *candidate : {"python3", "/usr/bin/python3"}) {
        if (pytorchEngineProblem(candidate, cancelled).empty())
            return found = candidate;
        if (cancelled && cancelled())
            return "python3"; // not remembered: the next call looks again
    }
    return found = "python3";
}

std::string pytorchConfigProblem(const RunConfig &config)
{
    if (!datasetKindInfo(config.dataset.kind).pytorchEngine)
        return "the PyTorch engine reads image folders and synthetic data, not "
               + std::string(datasetKindName(config.dataset.kind)) + " datasets";
    if (config.consumer.kind == ConsumerKind::Model)
        return "the PyTorch engine runs the simulated step (sleep) or none, not a model";
    if (config.loader.strategy == Strategy::SampleParallel)
        return "PyTorch's DataLoader builds each batch in one worker: no sample-parallel";
    if (config.devices > 1)
        return "the PyTorch engine runs one device: data-parallel runs (devices "
               + std::to_string(config.devices) + ") are LoaderLab's engine only";
    return {};
}

PyTorchRun::PyTorchRun(std::string python)
    : m_python(std::move(python))
    , m_trace(std::make_shared<TraceLog>())
{
}

PyTorchRun::~PyTorchRun()
{
    stop();
    if (m_reader.joinable())
        m_reader.join();
}

void PyTorchRun::start(const RunConfig &config, const EngineCancel &cancelled)
{
    if (const std::string why = pytorchConfigProblem(config); !why.empty())
        throw std::invalid_argument(why);
    if (const std::string why = pytorchEngineProblem(m_python, cancelled); !why.empty())
        throw std::runtime_error(why);
    m_config = config;
    m_trace = std::make_shared<TraceLog>(m_keepBatches, m_heldForReader);
    m_trace->addConfigVersion({0, 0, 0, config});
    m_description = std::string("PyTorch DataLoader: ")
                    + (config.dataset.kind == DatasetKind::ImageFolder
                           ? "image folder " + config.dataset.path
                           : "synthetic data");
    m_startNs = steadyNowNs();
    m_channel = {};
    m_channel.earliestNs = m_startNs;
    m_channel.batchSize = config.loader.batchSize;
    m_channel.workers = config.loader.numWorkers;
    m_channel.epochs = config.epochs;
    m_channel.maxBatches = config.maxBatches;
    m_lineNumber = 0;
    const EngineProcess child = spawnEngineProcess(
        {m_python, "-c", kPyTorchEngineScript, settingsJson(config).dump()});
    m_pid = child.pid;
    {
        const std::lock_guard lock(m_mutex);
        m_state = RunState::Running;
    }
    m_reader = std::jthread([this, child] { readOutput(child); });
}

namespace {

// After a stop's SIGTERM, SIGKILL; after Python's exit, the pipes' last bytes.
constexpr std::int64_t kGraceNs = 3'000'000'000;
constexpr std::int64_t kDrainNs = 500'000'000;

} // namespace

void PyTorchRun::readOutput(EngineProcess child)
{
    EngineLineSplitter lines;
    bool outOpen = true, errOpen = true, exited = false;
    std::int64_t stopAt = 0, drainUntil = 0;
    std::vector<char> buffer(65536);
    while (true) {
        pollfd fds[2] = {{outOpen ? child.out : -1, POLLIN, 0},
                         {errOpen ? child.err : -1, POLLIN, 0}};
        if (poll(fds, 2, 50) > 0) {
            for (int k = 0; k < 2; ++k) {
                if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                const ssize_t n = read(fds[k].fd, buffer.data(), buffer.size());
                if (n <= 0) {
                    if (!(n < 0 && errno == EINTR))
                        (k ? errOpen : outOpen) = false;
                    continue;
                }
                const std::string_view bytes(buffer.data(), static_cast<std::size_t>(n));
                if (k == 1) {
                    const std::lock_guard lock(m_mutex);
                    appendTail(m_errTail, bytes);
                } else if (!m_outputRefused) {
                    try {
                        lines.feed(bytes, [this](std::string_view line) { handleLine(line); });
                    } catch (const EngineChannelError &e) {
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
        if (exited && ((!outOpen && !errOpen) || now > drainUntil))
            break;
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
    close(child.out);
    close(child.err);
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
    EngineRecord record;
    try {
        record = parseEngineRecord(line, m_channel);
    } catch (const EngineChannelError &e) {
        refuseOutput("line " + std::to_string(m_lineNumber) + " (" + e.what()
                     + "): " + quoteEngineLine(line));
        return;
    }
    acceptEngineRecord(m_channel, record);
    if (const auto *start = std::get_if<EngineStart>(&record)) {
        m_startNs = start->t0Ns; // only this thread reads it from here on
        const std::lock_guard lock(m_mutex);
        m_description = "PyTorch DataLoader (torch " + start->torch
                        + "): " + m_description.substr(m_description.find(": ") + 2);
    } else if (const auto *failure = std::get_if<EngineFailure>(&record)) {
        const std::lock_guard lock(m_mutex);
        m_error = failure->message;
    } else if (std::holds_alternative<EngineEnd>(record)) {
        const std::lock_guard lock(m_mutex);
        m_sawEnd = true;
    } else if (const auto *b = std::get_if<EngineBatch>(&record)) {
        TraceRecord r;
        r.index = b->index;
        r.epoch = b->epoch;
        r.worker = b->worker < 0 ? kConsumerThread : b->worker;
        r.samples = b->samples;
        r.loadStartNs = b->loadStartNs - m_startNs;
        r.loadEndNs = b->loadEndNs - m_startNs;
        r.readyNs = r.loadEndNs;
        r.readNs = b->readNs;
        r.decodeNs = b->decodeNs;
        r.transformNs = b->transformNs;
        r.collateNs = b->loadEndNs - b->collateStartNs;
        r.requestNs = b->requestNs - m_startNs;
        r.deliveryNs = b->deliveryNs - m_startNs;
        r.computeStartNs = b->computeStartNs - m_startNs;
        r.computeEndNs = b->computeEndNs - m_startNs;
        const std::size_t count = m_trace->size();
        if (count > 0 && r.epoch != (*m_trace)[count - 1].epoch)
            m_trace->addMarker(
                {r.index, r.requestNs, MarkerKind::Epoch, 0, {}, std::to_string(r.epoch)});
        m_trace->appendSpan({r.index, r.worker, 0, r.loadStartNs, r.loadEndNs});
        m_trace->append(r);
    }
}

void PyTorchRun::finish(int status)
{
    const std::lock_guard lock(m_mutex);
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
            const std::string tail = lastLine(m_errTail);
            m_error = "the PyTorch engine ended ("
                      + (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                             : "exit " + std::to_string(WEXITSTATUS(status)))
                      + (m_sawEnd ? ")" : ") before its end record")
                      + (tail.empty() ? "" : ": " + quoteEngineLine(tail, 300));
        }
    }
    m_ended.notify_all();
    if (m_onEnded)
        m_onEnded(m_state);
}

bool PyTorchRun::wait(int timeoutMs)
{
    std::unique_lock lock(m_mutex);
    const auto ended = [this] { return m_state != RunState::Running; };
    if (timeoutMs < 0) {
        m_ended.wait(lock, ended);
        return true;
    }
    return m_ended.wait_for(lock, std::chrono::milliseconds(timeoutMs), ended);
}

void PyTorchRun::stop()
{
    const std::lock_guard lock(m_mutex);
    if (m_state == RunState::Running)
        m_stopRequested = true;
}

RunState PyTorchRun::state() const
{
    const std::lock_guard lock(m_mutex);
    return m_state;
}

std::string PyTorchRun::error() const
{
    const std::lock_guard lock(m_mutex);
    return m_error;
}

void PyTorchRun::reconfigure(const LoaderConfig &, const ConsumerConfig &, MarkerKind, std::string)
{
    throw std::invalid_argument("the PyTorch engine cannot change settings while it runs");
}

RunConfig PyTorchRun::config() const
{
    const std::lock_guard lock(m_mutex);
    return m_config;
}

std::string PyTorchRun::datasetDescription() const
{
    const std::lock_guard lock(m_mutex);
    return m_description;
}

void PyTorchRun::setOnEnded(std::function<void(RunState)> callback)
{
    const std::lock_guard lock(m_mutex);
    m_onEnded = std::move(callback);
}

void PyTorchRun::setTraceRetention(std::size_t keepBatches, bool heldForReader)
{
    const std::lock_guard lock(m_mutex);
    m_keepBatches = keepBatches;
    m_heldForReader = heldForReader;
}

RunReport PyTorchRun::report() const
{
    RunReport report;
    report.config = m_config;
    {
        const std::lock_guard lock(m_mutex);
        report.dataset = m_description;
        report.state = runStateName(m_state);
        report.error = m_error;
    }
    report.summary = m_trace->summary();
    report.markers = m_trace->markers();
    report.configVersions = m_trace->configVersions();
    report.machine = machineInfo();
    report.machine.versions["engine"] = "pytorch";
    return report;
}

} // namespace loaderlab
