#include "core/run/run_controller.h"

#include "core/io/safe_text.h"
#include "core/loader/clock.h"
#include "core/loader/loader.h"
#include "core/run/config_diff.h"
#include "core/run/marker_text.h"
#include "core/run/run_memory.h"
#include "core/system/memory_budget.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace loaderlab {

const char *runStateName(RunState state)
{
    switch (state) {
    case RunState::Idle:
        return "idle";
    case RunState::Running:
        return "running";
    case RunState::Paused:
        return "paused";
    case RunState::Finished:
        return "finished";
    case RunState::Stopped:
        return "stopped";
    case RunState::Failed:
        return "failed";
    }
    return "";
}

class RunController::Impl
{
public:
    ~Impl() { stopAndJoin(); }

    void stopAndJoin()
    {
        if (thread.joinable()) {
            thread.request_stop();
            thread.join();
        }
    }

    void setState(RunState next)
    {
        {
            std::lock_guard lock(mutex);
            state = next;
        }
        cv.notify_all();
    }

    // The run thread: epochs of batches, each delivered, consumed and traced.
    void run(std::stop_token threadStop, DatasetPtr dataset)
    {
        runThreadAlive = true;
        RunConfig cfg;
        {
            std::lock_guard lock(mutex);
            cfg = config;
        }
        // One stop for the whole run: stop() and the time limit both request it, so
        // the limit also ends a long model step, which waits on this token.
        std::stop_source runStop;
        std::stop_callback forwardStop(threadStop, [&runStop] { runStop.request_stop(); });
        const std::stop_token stop = runStop.get_token();
        std::atomic<bool> deadlineHit{false};
        std::jthread deadline;
        if (cfg.maxSeconds > 0)
            deadline = std::jthread([this, &runStop, &deadlineHit,
                                     seconds = cfg.maxSeconds](std::stop_token done) {
                std::mutex m;
                std::condition_variable_any cv;
                std::unique_lock lock(m);
                const auto at = std::chrono::steady_clock::time_point(
                                    std::chrono::nanoseconds(originNs))
                                + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(seconds));
                if (!cv.wait_until(lock, done, at, [] { return false; })
                    && !done.stop_requested()) {
                    deadlineHit = true;
                    runStop.request_stop();
                }
            });
        std::unique_ptr<Consumer> consumer;
        std::stop_callback onStop(stop, [this] {
            std::lock_guard lock(loaderMutex);
            if (loader)
                loader->stop();
        });
        RunState end = RunState::Finished;
        try {
            // Inside the try: a model consumer that cannot be built (missing file,
            // no LibTorch) fails the run with its reason instead of escaping the thread.
            consumer = makeConsumer(cfg.consumer, originNs, stop);
            replaceLoader(stop, std::make_unique<Loader>(dataset, cfg.loader, originNs));
            std::int64_t index = 0;
            for (int epoch = 0; cfg.epochs == 0 || epoch < cfg.epochs; ++epoch) {
                if (epoch > 0)
                    trace->addMarker({index,
                                      steadyNowNs() - originNs,
                                      MarkerKind::Epoch,
                                      configVersion,
                                      {},
                                      std::to_string(epoch)});
                loader->startEpoch(epoch);
                while (true) {
                    if (!waitWhilePaused(stop, index))
                        throw LoaderStopped();
                    applyPendingChanges(stop, dataset, cfg, consumer, epoch, index);
                    BatchPtr batch = loader->next();
                    if (!batch)
                        break;
                    TraceRecord record = batch->trace;
                    record.index = index;
                    record.configVersion = configVersion;
                    consumer->consume(*batch, record, stop);
                    peakMemoryBytes = std::max(peakMemoryBytes.load(), consumer->peakMemoryBytes());
                    for (auto span : batch->spans) {
                        span.batch = index;
                        trace->appendSpan(span);
                    }
                    for (auto skipped : batch->skipped) {
                        skipped.batch = index;
                        spdlog::warn("skipped {}: {}", escapeForTerminal(skipped.source),
                                     escapeForTerminal(skipped.reason));
                        trace->addSkipped(std::move(skipped));
                    }
                    trace->append(record);
                    ++index;
                    if (stop.stop_requested())
                        throw LoaderStopped();
                    if (limitReached(cfg, index))
                        throw LimitReached();
                }
            }
        } catch (const LimitReached &) {
            end = RunState::Finished;
        } catch (const LoaderStopped &) {
            end = deadlineHit ? RunState::Finished : RunState::Stopped;
        } catch (const std::exception &e) {
            if (stop.stop_requested()) {
                // A model build that gave up because of the stop is not a failure.
                end = deadlineHit ? RunState::Finished : RunState::Stopped;
            } else {
                spdlog::error("run failed: {}", escapeForTerminal(e.what()));
                std::lock_guard lock(mutex);
                error = e.what();
                end = RunState::Failed;
            }
        }
        replaceLoader(stop, nullptr);
        if (deadline.joinable()) {
            deadline.request_stop();
            deadline.join();
        }
        runThreadAlive = false;
        setState(end);
        std::function<void(RunState)> callback;
        {
            std::lock_guard lock(mutex);
            callback = onEnded;
        }
        if (callback)
            callback(end);
    }

    struct LimitReached
    {
    };

    bool limitReached(const RunConfig &cfg, std::int64_t batches) const
    {
        if (cfg.maxBatches > 0 && batches >= cfg.maxBatches)
            return true;
        return cfg.maxSeconds > 0
               && static_cast<double>(steadyNowNs() - originNs) / 1e9 >= cfg.maxSeconds;
    }

    // Returns false when stopped while paused.
    bool waitWhilePaused(std::stop_token stop, std::int64_t index)
    {
        std::unique_lock lock(mutex);
        if (state != RunState::Paused)
            return true;
        trace->addMarker(
            {index, steadyNowNs() - originNs, MarkerKind::Pause, configVersion, {}, {}});
        const bool resumed = cv.wait(lock, stop, [this] { return state != RunState::Paused; });
        if (resumed)
            trace->addMarker(
                {index, steadyNowNs() - originNs, MarkerKind::Resume, configVersion, {}, {}});
        return resumed;
    }

    void applyPendingChanges(std::stop_token stop, const DatasetPtr &dataset, RunConfig &cfg,
                             std::unique_ptr<Consumer> &consumer, int epoch, std::int64_t index)
    {
        std::optional<PendingChange> change;
        {
            std::lock_guard lock(mutex);
            change.swap(pending);
        }
        if (!change)
            return;
        RunConfig next = cfg;
        next.loader = change->loader;
        next.consumer = change->consumer;
        RunConfig consumerOnly = cfg;
        consumerOnly.consumer = next.consumer;
        if (!liveChanges(cfg, consumerOnly).empty()) {
            // A consumer that cannot be built (a file that is not a TorchScript
            // module, fp16 on a CPU) keeps the current one: the run goes on, and the
            // reason waits for takeReconfigureError().
            try {
                consumer = makeConsumer(next.consumer, originNs, stop);
            } catch (const std::exception &e) {
                if (stop.stop_requested())
                    throw LoaderStopped(); // the build gave up because of the stop
                spdlog::error("batch {}: model step not changed: {}", index, e.what());
                std::lock_guard lock(mutex);
                reconfigureError = e.what();
                next.consumer = cfg.consumer;
            }
        }
        std::vector<FieldChange> changes = liveChanges(cfg, next);
        if (changes.empty())
            return;
        if (!(next.loader == cfg.loader)) {
            // The rest of the epoch, exactly: in-flight batches are dropped and their
            // samples handed to the new loader.
            std::vector<std::int64_t> remaining = loader->remainingIndices();
            replaceLoader(stop, nullptr);
            replaceLoader(stop, std::make_unique<Loader>(dataset, next.loader, originNs));
            loader->resumeEpoch(epoch, std::move(remaining));
        }
        cfg.loader = next.loader;
        cfg.consumer = next.consumer;
        ++configVersion;
        const std::int64_t now = steadyNowNs() - originNs;
        {
            std::lock_guard lock(mutex);
            config.loader = next.loader;
            config.consumer = next.consumer;
            trace->addConfigVersion({configVersion, index, now, config});
        }
        TraceMarker marker{index,         now, change->kind, configVersion, std::move(changes),
                           change->detail};
        spdlog::info("batch {}: {}", index, markerText(marker));
        trace->addMarker(std::move(marker));
    }

    // Swaps the current loader; the old one is destroyed (its threads joined)
    // outside the lock so stop() never waits for a join.
    void replaceLoader(std::stop_token stop, std::unique_ptr<Loader> next)
    {
        std::unique_ptr<Loader> old;
        {
            std::lock_guard lock(loaderMutex);
            if (next && stop.stop_requested())
                throw LoaderStopped();
            old = std::move(loader);
            loader = std::move(next);
        }
    }

    mutable std::mutex mutex;
    mutable std::condition_variable_any cv;
    RunConfig config;
    struct PendingChange
    {
        LoaderConfig loader;
        ConsumerConfig consumer;
        MarkerKind kind = MarkerKind::Reconfigure;
        std::string detail;
    };
    std::optional<PendingChange> pending;
    RunState state = RunState::Idle;
    std::string error;
    std::string reconfigureError; // the last reconfiguration that could not be applied
    std::string datasetDescription;
    DatasetPtr dataset; // the run's, for checking a reconfiguration's memory
    std::function<void(RunState)> onEnded;
    std::shared_ptr<TraceLog> trace = std::make_shared<TraceLog>();
    std::size_t keepBatches = 0; // TraceLog's retention for the next run
    bool heldForReader = false;
    std::int64_t originNs = 0;
    int configVersion = 0;
    std::atomic<bool> runThreadAlive{false};
    std::atomic<std::int64_t> peakMemoryBytes{0}; // max over the run's consumers

    mutable std::mutex loaderMutex;
    std::unique_ptr<Loader> loader;
    std::jthread thread;
};

RunController::RunController()
    : m_impl(std::make_unique<Impl>())
{
}

RunController::~RunController() = default;

void RunController::start(const RunConfig &config)
{
    validate(config.loader);
    // Before opening: opening a synthetic or IDX dataset already allocates.
    checkRunMemory(config, memoryBudgetFromMegabytes(config.memoryBudgetMb));
    start(config, openDataset(config.dataset));
}

void RunController::start(const RunConfig &config, DatasetPtr dataset)
{
    validate(config.loader);
    if (!dataset || dataset->size() == 0)
        throw DatasetError(config.dataset.path + ": the dataset is empty");
    checkRunMemory(config, *dataset, memoryBudgetFromMegabytes(config.memoryBudgetMb));
    m_impl->stopAndJoin();
    {
        std::lock_guard lock(m_impl->mutex);
        m_impl->config = config;
        m_impl->pending.reset();
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
    spdlog::info("run: {} | {} workers, batch {}, prefetch {}, {} | consumer {}",
                 dataset->description(), config.loader.numWorkers, config.loader.batchSize,
                 config.loader.prefetchFactor, strategyName(config.loader.strategy),
                 consumerKindName(config.consumer.kind));
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
    return (m_impl->runThreadAlive ? 1 : 0) + (m_impl->loader ? m_impl->loader->liveThreads() : 0);
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
