#include "core/run/run_controller.h"

#include "core/config/config_fields.h"
#include "core/consumer/gradient_exchange.h"
#include "core/loader/open_dataset.h"
#include "core/memory/run_memory.h"
#include "core/run/run_controller_impl.h"
#include "core/system/clock.h"
#include "core/system/memory_budget.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <utility>

namespace loaderlab {

void validateRun(const RunConfig &config)
{
    validate(config.loader);
    // The range is the config field's (a window or a config built in code may skip it).
    const ConfigField &devices = configField("devices");
    if (!configFieldAllows(devices, config.devices))
        throw std::invalid_argument("devices " + std::to_string(config.devices) + ": expected "
                                    + std::to_string(static_cast<int>(devices.min)) + " to "
                                    + std::to_string(static_cast<int>(devices.max)));
    if (!(config.gradientMb >= 0))
        throw std::invalid_argument("gradient_mb must be 0 or more");
    if (config.gradientMb > 0 && config.devices > 1 && !config.syncDevices)
        throw std::invalid_argument("gradient_mb: ranks that run independently exchange no "
                                    "gradient; synchronise the devices or set gradient_mb 0");
    if (config.replayBatches > 0 && config.devices > 1)
        throw std::invalid_argument("replay_batches: a replay runs on one device (devices "
                                    + std::to_string(config.devices) + ")");
    if (!isExchangeBackend(config.commBackend))
        throw std::invalid_argument("comm_backend '" + config.commBackend
                                    + "': expected gloo or nccl");
}

RunController::RunController()
    : m_impl(std::make_unique<Impl>())
{
}

RunController::~RunController() = default;

void RunController::start(const RunConfig &config)
{
    validateRun(config);
    // Before opening: opening a synthetic or IDX dataset already allocates.
    checkRunMemory(config, memoryBudgetFromMegabytes(config.memoryBudgetMb));
    start(config, openDataset(config.dataset));
}

void RunController::start(const RunConfig &config, DatasetPtr dataset)
{
    validateRun(config);
    if (!dataset || dataset->size() == 0)
        throw DatasetError(config.dataset.path + ": the dataset is empty");
    checkRunMemory(config, *dataset, memoryBudgetFromMegabytes(config.memoryBudgetMb));
    m_impl->stopAndJoin();
    {
        std::lock_guard lock(m_impl->mutex);
        m_impl->config = config;
        m_impl->pending.reset();
        m_impl->pendingGeneration = 0;
        m_impl->claimedGeneration = 0;
        m_impl->decided = {};
        m_impl->nextIndex = 0;
        m_impl->state = RunState::Running;
        m_impl->error.clear();
        m_impl->reconfigureError.clear();
        m_impl->datasetDescription = dataset->description();
        m_impl->dataset = dataset;
        m_impl->trace = std::make_shared<TraceLog>(m_impl->keepBatches, m_impl->heldForReader);
        m_impl->trace->addConfigVersion({0, 0, 0, config});
        m_impl->configVersion = 0;
        m_impl->originNs = steadyNowNs();
        m_impl->peakMemoryBytes = 0;
    }
    spdlog::info("run: {} | {} workers, batch {}, prefetch {}, {} | consumer {}{}",
                 dataset->description(), config.loader.numWorkers, config.loader.batchSize,
                 config.loader.prefetchFactor, strategyName(config.loader.strategy),
                 consumerKindName(config.consumer.kind),
                 config.devices > 1 ? " | " + std::to_string(config.devices) + " devices" : "");
    m_impl->thread = std::jthread(
        [impl = m_impl.get(), dataset](std::stop_token stop) { impl->run(stop, dataset); });
}

void RunController::stop()
{
    m_impl->stopAndJoin();
}

void RunController::pause()
{
    std::lock_guard lock(m_impl->mutex);
    if (m_impl->state == RunState::Running)
        m_impl->state = RunState::Paused;
}

void RunController::resume()
{
    {
        std::lock_guard lock(m_impl->mutex);
        if (m_impl->state == RunState::Paused)
            m_impl->state = RunState::Running;
    }
    m_impl->cv.notify_all();
}

void RunController::reconfigure(const LoaderConfig &loader, const ConsumerConfig &consumer,
                                MarkerKind kind, std::string detail)
{
    validate(loader);
    std::lock_guard lock(m_impl->mutex);
    if (m_impl->dataset) {
        // A larger batch or more workers in flight must fit the budget too.
        RunConfig next = m_impl->config;
        next.loader = loader;
        next.consumer = consumer;
        checkRunMemory(next, *m_impl->dataset, memoryBudgetFromMegabytes(next.memoryBudgetMb));
    }
    m_impl->pending = Impl::PendingChange{loader, consumer, kind, std::move(detail)};
    ++m_impl->pendingGeneration;
}

std::string RunController::takeReconfigureError()
{
    std::lock_guard lock(m_impl->mutex);
    return std::exchange(m_impl->reconfigureError, std::string());
}

RunState RunController::state() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->state;
}

bool RunController::finished() const
{
    const RunState s = state();
    return s == RunState::Finished || s == RunState::Stopped || s == RunState::Failed;
}

bool RunController::waitForEnd(int timeoutMs) const
{
    std::unique_lock lock(m_impl->mutex);
    const auto ended = [this] {
        const RunState s = m_impl->state;
        return s == RunState::Idle || s == RunState::Finished || s == RunState::Stopped
               || s == RunState::Failed;
    };
    if (timeoutMs < 0) {
        m_impl->cv.wait(lock, ended);
        return true;
    }
    return m_impl->cv.wait_for(lock, std::chrono::milliseconds(timeoutMs), ended);
}

std::shared_ptr<const TraceLog> RunController::trace() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->trace;
}

RunConfig RunController::config() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->config;
}

std::string RunController::error() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->error;
}

std::string RunController::datasetDescription() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->datasetDescription;
}

std::int64_t RunController::startNs() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->originNs;
}

std::int64_t RunController::peakMemoryBytes() const
{
    return m_impl->peakMemoryBytes.load();
}

int RunController::liveThreads() const
{
    std::lock_guard lock(m_impl->loaderMutex);
    int threads = m_impl->liveRankThreads.load();
    for (const auto &loader : m_impl->loaders)
        threads += loader ? loader->liveThreads() : 0;
    return threads;
}

void RunController::setOnEnded(std::function<void(RunState)> callback)
{
    std::lock_guard lock(m_impl->mutex);
    m_impl->onEnded = std::move(callback);
}

void RunController::setTraceRetention(std::size_t keepBatches, bool heldForReader)
{
    std::lock_guard lock(m_impl->mutex);
    m_impl->keepBatches = keepBatches;
    m_impl->heldForReader = heldForReader;
}

} // namespace loaderlab
