#include "core/engine/pytorch/pytorch_run.h"

#include "core/config/config_fields.h"
#include "core/dataset/tensor_shards.h"
#include "core/engine/pytorch/python_probe.h"
#include "core/system/clock.h"
#include "core/system/machine_info.h"
#include "pytorch_engine_script.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include <csignal>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace loaderlab {
namespace {

using json = nlohmann::json;

// The settings a live change may make, by pytorch_engine.py's names.
json liveSettingsJson(const RunConfig &c)
{
    const bool sleep = c.consumer.kind == ConsumerKind::Sleep;
    return {{"workers", c.loader.numWorkers},
            {"batch_size", c.loader.batchSize},
            {"prefetch", c.loader.prefetchFactor},
            {"persistent", c.loader.persistentWorkers},
            {"shuffle", c.loader.shuffle},
            {"pin_memory", c.loader.pinMemory},
            {"sleep_batch_ms", sleep ? c.consumer.sleepPerBatchMs : 0.0},
            {"sleep_sample_ms", sleep ? c.consumer.sleepPerSampleMs : 0.0}};
}

// How long a pipeline file may take to import, to make its dataset or its step:
// $LOADERLAB_PIPELINE_SECONDS, else two minutes.
double pipelineSeconds()
{
    if (const char *text = std::getenv("LOADERLAB_PIPELINE_SECONDS"); text && *text) {
        char *end = nullptr;
        const double seconds = std::strtod(text, &end);
        if (end && *end == '\0' && seconds > 0 && seconds < 86400)
            return seconds;
    }
    return 120.0;
}

json settingsJson(const RunConfig &c)
{
    // pytorch_engine.py knows the kinds marked pytorchEngine in the table, by name.
    json settings = liveSettingsJson(c);
    if (c.dataset.kind == DatasetKind::Python) {
        settings["args"] = getConfigField(c, "dataset.args");
        settings["pipeline_seconds"] = pipelineSeconds();
    }
    if (c.dataset.kind == DatasetKind::Python || c.devices > 1)
        settings["probe_dir"] = loaderlabPythonDir();
    settings.update(
        json{{"kind", datasetKindName(c.dataset.kind)},
             {"path", c.dataset.path},
             {"resize", c.dataset.resizeSize},
             {"crop", c.dataset.cropSize},
             {"transform", c.dataset.transform == TransformKind::Train ? "train" : "eval"},
             {"shape",
              {c.dataset.syntheticShape.channels, c.dataset.syntheticShape.height,
               c.dataset.syntheticShape.width}},
             {"samples", c.dataset.syntheticSamples},
             {"seed", c.loader.seed},
             {"drop_last", c.loader.dropLast},
             {"bad_samples", badSamplePolicyName(c.loader.badSamples)},
             {"max_batches", engineRankBatches(c)},
             {"devices", c.devices},
             {"gradient_mb", c.gradientMb},
             {"comm_backend", c.commBackend},
             {"epochs", c.epochs},
             {"replay_batches", c.replayBatches},
             {"max_seconds", c.maxSeconds},
             {"records_fd", kEngineRecordsFd},
             {"commands_fd", kEngineCommandsFd}});
    if (c.launchRank >= 0) {
        // One rank of ranks another program started: the engine forks none.
        settings["devices"] = 1;
        settings["launch"] = {{"rank", c.launchRank},
                              {"world", c.devices},
                              {"address", c.launchAddress},
                              {"port", c.launchPort}};
    }
    if (c.dataset.kind == DatasetKind::TensorFile) {
        // The files as LoaderLab's engine reads them, each checked here (header, size,
        // a manifest's shards): the engine reads records, never headers.
        json parts = json::array();
        TensorFileHeader header;
        for (const TensorFilePart &part : tensorDatasetParts(c.dataset.path)) {
            parts.push_back({part.path, part.header.count});
            header = part.header;
        }
        settings["parts"] = parts;
        settings["record_bytes"] = header.recordBytes();
        settings["dtype"] = header.dtype == DType::UInt8 ? "uint8" : "float32";
        settings["shape"] = {header.shape.channels, header.shape.height, header.shape.width};
    }
    return settings;
}

// The loader settings pytorch_engine.py cannot change during a run: "" when `next`
// keeps them, else the first one's name.
const char *fixedLoaderSetting(const LoaderConfig &now, const LoaderConfig &next)
{
    if (next.seed != now.seed)
        return "the seed";
    if (next.dropLast != now.dropLast)
        return "drop last";
    if (next.inOrder != now.inOrder)
        return "in order";
    if (next.strategy != now.strategy)
        return "the strategy";
    if (next.badSamples != now.badSamples)
        return "the bad-sample policy";
    return "";
}

// Whether the interpreter has torch and torchvision, found without importing them:
// a start of Python takes 0.03 s where importing torch takes 1.5 to 2 (per run of
// the command line, per window). An installation that is there but cannot be
// imported is reported by the run itself, with Python's error.
constexpr const char *kFindTorch =
    "import importlib.util, sys\n"
    "missing = [m for m in ('torch', 'torchvision') if importlib.util.find_spec(m) is None]\n"
    "if missing:\n"
    "    sys.exit('No module named ' + ' or '.join(repr(m) for m in missing))\n";

} // namespace

std::int64_t engineRankBatches(const RunConfig &config)
{
    const std::int64_t ranks = std::max(1, config.devices);
    return config.maxBatches > 0 ? (config.maxBatches + ranks - 1) / ranks : 0;
}

PythonCheck pytorchPythonCheck(const std::string &python, const EngineCancel &cancelled)
{
    static std::mutex mutex;
    static std::map<std::string, PythonCheck> known;
    const std::lock_guard lock(mutex);
    if (const auto it = known.find(python); it != known.end())
        return it->second;
    PythonCheck answer;
    answer.python = python;
    answer.seconds = engineCheckSeconds();
    try {
        const CheckProcessResult check = runCheckProcess(
            {python, "-c", kFindTorch}, static_cast<std::int64_t>(answer.seconds * 1000),
            cancelled);
        if (check.timedOut || check.cancelled) {
            answer.result = check.timedOut ? PythonCheck::Result::TimedOut
                                           : PythonCheck::Result::Stopped;
            return answer; // not remembered: the next call checks again
        }
        const int status = check.status;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            answer.result = PythonCheck::Result::CannotImport;
            answer.detail = lastLine(check.errTail).substr(0, 300);
        }
    } catch (const std::exception &e) {
        answer.result = PythonCheck::Result::CannotStart;
        answer.detail = e.what();
    }
    known[python] = answer;
    return answer;
}

std::string pythonCheckText(const PythonCheck &check)
{
    const std::string &python = check.python;
    switch (check.result) {
    case PythonCheck::Result::Ok:
        return {};
    case PythonCheck::Result::CannotImport:
        return python + " cannot import torch and torchvision"
               + (check.detail.empty() ? "" : " (" + check.detail + ")")
               + "; on Debian: apt-get install python3-torch python3-torchvision";
    case PythonCheck::Result::TimedOut: {
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", check.seconds);
        return python + " cannot import torch and torchvision: timed out after " + limit
               + " s (LOADERLAB_PYTORCH_CHECK_SECONDS sets the limit)";
    }
    case PythonCheck::Result::Stopped:
        return python + ": the check for torch and torchvision was stopped";
    case PythonCheck::Result::CannotStart:
        return check.detail + " (the PyTorch engine needs Python 3 with torch and torchvision)";
    }
    return {};
}

std::string pytorchEngineProblem(const std::string &python, const EngineCancel &cancelled)
{
    return pythonCheckText(pytorchPythonCheck(python, cancelled));
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

EngineProblem pytorchConfigProblemKind(const RunConfig &config)
{
    if (!datasetKindInfo(config.dataset.kind).pytorchEngine)
        return EngineProblem::DatasetKind;
    if (config.dataset.kind == DatasetKind::Python && config.dataset.path.empty())
        return EngineProblem::PipelineWithoutFile;
    if (config.consumer.kind == ConsumerKind::Model)
        return EngineProblem::ModelStep;
    if (config.loader.strategy == Strategy::SampleParallel)
        return EngineProblem::SampleParallel;
    if (config.devices > 1 && !config.syncDevices)
        return EngineProblem::DataParallel;
    return EngineProblem::None;
}

std::string pytorchConfigProblem(const RunConfig &config)
{
    switch (pytorchConfigProblemKind(config)) {
    case EngineProblem::None:
        return {};
    case EngineProblem::DatasetKind:
        return "the PyTorch engine reads image folders, tensor files, synthetic data and Python "
               "pipeline files, not "
               + std::string(datasetKindName(config.dataset.kind)) + " datasets";
    case EngineProblem::PipelineWithoutFile:
        return "a Python pipeline run needs its file (dataset.path, --path my_pipeline.py)";
    case EngineProblem::ModelStep:
        return "the PyTorch engine runs the simulated step (sleep) or none, not a model";
    case EngineProblem::SampleParallel:
        return "PyTorch's DataLoader builds each batch in one worker: no sample-parallel";
    case EngineProblem::DataParallel:
        return "the PyTorch engine's ranks synchronise every step, as DistributedDataParallel's "
               "do: independent devices are LoaderLab's engine only";
    }
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
    if (config.replayBatches > 0 && config.devices > 1)
        throw std::invalid_argument("replay_batches: a replay runs on one device (devices "
                                    + std::to_string(config.devices) + ")");
    if (const std::string why = pytorchEngineProblem(m_python, cancelled); !why.empty())
        throw std::runtime_error(why);
    if (m_reader.joinable())
        m_reader.join(); // the previous run's reader has ended: wait() returned
    m_trace = std::make_shared<TraceLog>(m_keepBatches, m_heldForReader);
    m_trace->addConfigVersion({0, 0, 0, config});
    {
        const std::lock_guard lock(m_mutex);
        m_config = m_requested = config;
        m_requests.clear();
        m_reconfigureError.clear();
        m_epochSamples.clear();
        m_error.clear();
        m_errTail.clear();
        m_outTail.clear();
        m_sawEnd = m_stopRequested = m_refused = false;
        m_description = std::string("PyTorch DataLoader: ")
                        + (config.dataset.kind == DatasetKind::Synthetic
                               ? std::string("synthetic data")
                               : std::string(datasetKindInfo(config.dataset.kind).label) + " "
                                     + config.dataset.path);
    }
    m_outputRefused = false;
    m_lastEpoch = 0;
    m_batches = 0;
    m_sampleSource = config.dataset.kind == DatasetKind::Synthetic ? "synthetic data"
                                                                   : config.dataset.path;
    m_version = 0;
    m_lastRequest = 0;
    m_startNs = steadyNowNs();
    m_channel = {};
    m_channel.earliestNs = m_startNs;
    m_channel.batchSize = config.loader.batchSize;
    m_channel.workers = config.loader.numWorkers;
    m_channel.epochs = config.epochs;
    m_channel.maxBatches = engineRankBatches(config);
    m_channel.ranks = config.launchRank >= 0 ? 1 : std::max(1, config.devices);
    m_launchRank = config.launchRank;
    m_startUnixNs = 0;
    m_lineNumber = 0;
    m_phase.clear();
    m_phaseSeconds = 0.0;
    m_phaseDeadlineNs = 0;
    const PythonProcess child = spawnEngineProcess(
        {m_python, "-c", kPyTorchEngineScript, settingsJson(config).dump()}, true);
    m_pid = child.pid;
    {
        const std::lock_guard commandLock(m_commandMutex);
        m_commandFd = child.commands;
    }
    {
        const std::lock_guard lock(m_mutex);
        m_state = RunState::Running;
        m_endedCalled = false;
    }
    m_reader = std::jthread([this, child] { readOutput(child); });
}

bool PyTorchRun::wait(int timeoutMs)
{
    std::unique_lock lock(m_mutex);
    const auto ended = [this] { return m_endedCalled; };
    if (timeoutMs < 0) {
        m_ended.wait(lock, ended);
        return true;
    }
    return m_ended.wait_for(lock, std::chrono::milliseconds(timeoutMs), ended);
}

void PyTorchRun::stop()
{
    const std::lock_guard lock(m_mutex);
    if (m_state == RunState::Running || m_state == RunState::Paused)
        m_stopRequested = true;
}

void PyTorchRun::sendCommand(const std::string &line)
{
    // Under m_commandMutex (the caller's): the socket stays open while it is written.
    if (const std::string why = sendEngineCommand(m_commandFd, line); !why.empty()) {
        const std::lock_guard lock(m_mutex);
        m_reconfigureError = why;
    }
}

void PyTorchRun::reconfigure(const LoaderConfig &loader, const ConsumerConfig &consumer,
                             MarkerKind kind, std::string detail)
{
    validate(loader);
    const std::lock_guard commandLock(m_commandMutex);
    std::int64_t number = 0;
    json command;
    {
        const std::lock_guard lock(m_mutex);
        RunConfig next = m_requested;
        next.loader = loader;
        next.consumer = consumer;
        if (const std::string why = pytorchConfigProblem(next); !why.empty())
            throw std::invalid_argument(why);
        if (const std::string fixed = fixedLoaderSetting(m_requested.loader, loader);
            !fixed.empty())
            throw std::invalid_argument("the PyTorch engine cannot change " + fixed
                                        + " during a run");
        if (m_state != RunState::Running && m_state != RunState::Paused)
            return;
        if (next.loader == m_requested.loader && next.consumer == m_requested.consumer)
            return;
        number = m_lastRequest + 1;
        command = liveSettingsJson(next);
        m_requests[number] = {next, kind, std::move(detail)};
        m_requested = std::move(next);
    }
    command["cmd"] = "reconfigure";
    command["version"] = number;
    m_lastRequest = number; // before the engine can answer it
    sendCommand(command.dump() + "\n");
}

std::string PyTorchRun::takeReconfigureError()
{
    const std::lock_guard lock(m_mutex);
    return std::exchange(m_reconfigureError, std::string());
}

void PyTorchRun::pause()
{
    const std::lock_guard commandLock(m_commandMutex);
    {
        const std::lock_guard lock(m_mutex);
        if (m_state != RunState::Running)
            return;
        m_state = RunState::Paused;
    }
    sendCommand("{\"cmd\":\"pause\"}\n");
}

void PyTorchRun::resume()
{
    const std::lock_guard commandLock(m_commandMutex);
    {
        const std::lock_guard lock(m_mutex);
        if (m_state != RunState::Paused)
            return;
        m_state = RunState::Running;
    }
    sendCommand("{\"cmd\":\"resume\"}\n");
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
    m_keepBatches = keepBatches;
    m_heldForReader = heldForReader;
}

std::map<std::int32_t, PyTorchRun::EpochSamples> PyTorchRun::epochSamples() const
{
    const std::lock_guard lock(m_mutex);
    return m_epochSamples;
}

bool PyTorchRun::refused() const
{
    const std::lock_guard lock(m_mutex);
    return m_refused;
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
    {
        const std::lock_guard lock(m_mutex);
        report.config = m_config;
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
