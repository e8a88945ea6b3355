#include "core/run/pytorch_run.h"

#include "core/loader/clock.h"
#include "core/system/machine_info.h"
#include "pytorch_engine_script.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace loaderlab {
namespace {

using json = nlohmann::json;

// Starts `argv` in a process group of its own with stdout and stderr on pipes.
int spawn(const std::vector<std::string> &args, int *out, int *err)
{
    int outPipe[2], errPipe[2];
    if (pipe2(outPipe, O_CLOEXEC) != 0)
        throw std::runtime_error("cannot start Python: no pipe");
    if (pipe2(errPipe, O_CLOEXEC) != 0) {
        close(outPipe[0]);
        close(outPipe[1]);
        throw std::runtime_error("cannot start Python: no pipe");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    std::vector<char *> argv;
    for (const std::string &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int failed = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(outPipe[1]);
    close(errPipe[1]);
    if (failed != 0) {
        close(outPipe[0]);
        close(errPipe[0]);
        throw std::runtime_error("cannot start " + args[0] + ": " + std::strerror(failed));
    }
    *out = outPipe[0];
    *err = errPipe[0];
    return pid;
}

json settingsJson(const RunConfig &c)
{
    const bool folder = c.dataset.kind == DatasetKind::ImageFolder;
    return {{"kind", folder ? "folder" : "synthetic"},
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

std::string pytorchEngineProblem(const std::string &python)
{
    static std::mutex mutex;
    static std::map<std::string, std::string> known;
    const std::lock_guard lock(mutex);
    if (const auto it = known.find(python); it != known.end())
        return it->second;
    std::string problem;
    try {
        int out = -1, err = -1;
        const int pid = spawn({python, "-c", "import torch, torchvision"}, &out, &err);
        char buffer[512];
        std::string message;
        ssize_t n = 0;
        while ((n = read(err, buffer, sizeof buffer)) > 0)
            message.append(buffer, static_cast<std::size_t>(n));
        close(out);
        close(err);
        int status = 0;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            const auto last = message.find_last_not_of('\n');
            const auto lineStart = message.rfind('\n', last == std::string::npos ? 0 : last);
            problem = python + " cannot import torch and torchvision ("
                      + message.substr(lineStart == std::string::npos ? 0 : lineStart + 1,
                                       last == std::string::npos ? 0 : last - lineStart)
                      + "); on Debian: apt-get install python3-torch python3-torchvision";
            if (message.empty())
                problem = python + " cannot import torch and torchvision";
        }
    } catch (const std::exception &e) {
        problem = std::string(e.what())
                  + " (the PyTorch engine needs Python 3 with torch and "
                    "torchvision)";
    }
    known[python] = problem;
    return problem;
}

std::string pytorchEnginePython()
{
    if (const char *chosen = std::getenv("LOADERLAB_PYTHON"); chosen && *chosen)
        return chosen;
    static const std::string found = [] {
        for (const char *candidate : {"python3", "/usr/bin/python3"}) {
            if (pytorchEngineProblem(candidate).empty())
                return std::string(candidate);
        }
        return std::string("python3");
    }();
    return found;
}

std::string pytorchConfigProblem(const RunConfig &config)
{
    if (config.dataset.kind != DatasetKind::ImageFolder
        && config.dataset.kind != DatasetKind::Synthetic)
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

void PyTorchRun::start(const RunConfig &config)
{
    if (const std::string why = pytorchConfigProblem(config); !why.empty())
        throw std::invalid_argument(why);
    if (const std::string why = pytorchEngineProblem(m_python); !why.empty())
        throw std::runtime_error(why);
    m_config = config;
    m_trace = std::make_shared<TraceLog>();
    m_trace->addConfigVersion({0, 0, 0, config});
    m_description = std::string("PyTorch DataLoader: ")
                    + (config.dataset.kind == DatasetKind::ImageFolder
                           ? "image folder " + config.dataset.path
                           : "synthetic data");
    int out = -1, err = -1;
    m_startNs = steadyNowNs();
    m_pid = spawn({m_python, "-c", kPyTorchEngineScript, settingsJson(config).dump()}, &out, &err);
    {
        const std::lock_guard lock(m_mutex);
        m_state = RunState::Running;
    }
    m_reader = std::jthread([this, out, err] { readOutput(out, err); });
}

void PyTorchRun::readOutput(int out, int err)
{
    std::string pending;
    bool outOpen = true, errOpen = true;
    std::int64_t stopAt = 0;
    char buffer[65536];
    while (outOpen || errOpen) {
        pollfd fds[2] = {{out, POLLIN, 0}, {err, POLLIN, 0}};
        poll(fds, 2, 100);
        for (int k = 0; k < 2; ++k) {
            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)) || !(k ? errOpen : outOpen))
                continue;
            const ssize_t n = read(fds[k].fd, buffer, sizeof buffer);
            if (n <= 0) {
                (k ? errOpen : outOpen) = false;
                continue;
            }
            if (k == 1) {
                const std::lock_guard lock(m_mutex);
                m_errTail.append(buffer, static_cast<std::size_t>(n));
                if (m_errTail.size() > 4096)
                    m_errTail.erase(0, m_errTail.size() - 4096);
                continue;
            }
            pending.append(buffer, static_cast<std::size_t>(n));
            for (auto eol = pending.find('\n'); eol != std::string::npos;
                 eol = pending.find('\n')) {
                handleLine(pending.substr(0, eol));
                pending.erase(0, eol + 1);
            }
        }
        const std::int64_t now = steadyNowNs();
        bool stopping = false;
        {
            const std::lock_guard lock(m_mutex);
            if (!m_stopRequested && m_config.maxSeconds > 0
                && now - m_startNs > static_cast<std::int64_t>(m_config.maxSeconds * 1e9))
                m_stopRequested = true; // the time limit: a stop, but the run finished
            stopping = m_stopRequested;
        }
        if (stopping && stopAt == 0) {
            stopAt = now;
            kill(-m_pid, SIGTERM);
        } else if (stopping && now - stopAt > 3'000'000'000LL) {
            kill(-m_pid, SIGKILL);
            stopAt = now; // again every 3 s until the pipes close
        }
    }
    close(out);
    close(err);
    int status = 0;
    waitpid(m_pid, &status, 0);
    kill(-m_pid, SIGKILL); // workers left behind by a killed main process
    finish(status);
}

void PyTorchRun::handleLine(const std::string &line)
{
    json j;
    try {
        j = json::parse(line);
    } catch (const std::exception &) {
        return; // not ours (a library printing on stdout)
    }
    const std::string type = j.value("type", "");
    if (type == "start") {
        m_startNs = j.value("t0", m_startNs); // only this thread reads it from here on
        const std::lock_guard lock(m_mutex);
        m_description = "PyTorch DataLoader (torch " + j.value("torch", std::string("?"))
                        + "): " + m_description.substr(m_description.find(": ") + 2);
    } else if (type == "error") {
        const std::lock_guard lock(m_mutex);
        m_error = j.value("message", std::string("the PyTorch engine failed"));
    } else if (type == "end") {
        const std::lock_guard lock(m_mutex);
        m_sawEnd = true;
    } else if (type == "batch") {
        const auto at = [&](const char *key) { return j.value(key, std::int64_t{0}) - m_startNs; };
        TraceRecord r;
        r.index = j.value("index", std::int64_t{0});
        r.epoch = j.value("epoch", 0);
        const int worker = j.value("worker", -1);
        r.worker = worker < 0 ? kConsumerThread : worker;
        r.samples = j.value("samples", 0);
        r.loadStartNs = at("load_start");
        r.loadEndNs = at("load_end");
        r.readyNs = r.loadEndNs;
        r.readNs = j.value("read", std::int64_t{0});
        r.decodeNs = j.value("decode", std::int64_t{0});
        r.transformNs = j.value("transform", std::int64_t{0});
        r.collateNs = j.value("load_end", std::int64_t{0})
                      - j.value("collate_start", std::int64_t{0});
        r.requestNs = at("request");
        r.deliveryNs = at("delivery");
        r.computeStartNs = at("compute_start");
        r.computeEndNs = at("compute_end");
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
    const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0 && m_sawEnd;
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
            std::string tail = m_errTail;
            while (!tail.empty() && tail.back() == '\n')
                tail.pop_back();
            const auto lastLine = tail.rfind('\n');
            m_error = "the PyTorch engine ended ("
                      + (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                             : "exit " + std::to_string(WEXITSTATUS(status)))
                      + ")" + (tail.empty() ? "" : ": " + tail.substr(lastLine + 1));
        }
    }
    m_ended.notify_all();
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
