#include "core/loader/loader.h"

#include "core/loader/batch_builder.h"
#include "core/system/clock.h"
#include "core/system/safe_text.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace loaderlab {
namespace {

// Work handed to the per-worker strategy's worker k. A task without a pending batch
// tells the worker to exit (how non-persistent workers end with their epoch).
struct BatchTask
{
    std::unique_ptr<PendingBatch> pending;
};

// Work handed to any sample-parallel worker: one slot of one batch.
struct SlotTask
{
    std::shared_ptr<PendingBatch> pending;
    int slot = -1; // -1: exit
};

// A small blocking FIFO. Its bound is the loader's in-flight limit, enforced by the
// dispatcher (nothing is pushed beyond W x prefetch_factor batches), so push never waits.
template <typename T>
class TaskQueue
{
public:
    void push(T task)
    {
        {
            std::lock_guard lock(m_mutex);
            m_tasks.push_back(std::move(task));
        }
        m_cv.notify_one();
    }
    template <typename It>
    void pushAll(It first, It last)
    {
        {
            std::lock_guard lock(m_mutex);
            m_tasks.insert(m_tasks.end(), std::make_move_iterator(first),
                           std::make_move_iterator(last));
        }
        m_cv.notify_all();
    }
    // False when stop was requested.
    bool pop(T &task, std::stop_token stop)
    {
        std::unique_lock lock(m_mutex);
        if (!m_cv.wait(lock, stop, [this] { return !m_tasks.empty(); }))
            return false;
        task = std::move(m_tasks.front());
        m_tasks.pop_front();
        return true;
    }

private:
    std::mutex m_mutex;
    std::condition_variable_any m_cv;
    std::deque<T> m_tasks;
};

} // namespace

class Loader::Impl
{
public:
    Impl(DatasetPtr datasetIn, LoaderConfig configIn, std::int64_t originNs)
        : dataset(std::move(datasetIn))
        , config(configIn)
        , builder(*dataset, config, originNs)
        , window(config.numWorkers * config.prefetchFactor)
    {
        validate(config);
        const std::size_t batchBytes = static_cast<std::size_t>(config.batchSize)
                                       * dataset->sampleBytes();
        const auto poolSize = static_cast<std::size_t>(window + 2);
        pool = std::make_shared<BufferPool>(pageableAllocator(), batchBytes, poolSize);
        if (config.pinMemory)
            pinnedPool = std::make_shared<BufferPool>(pageLockedAllocator(), batchBytes, poolSize);
    }

    ~Impl()
    {
        stopSource.request_stop();
        joinAll();
    }

    void begin(int epochIn, std::vector<std::int64_t> indices)
    {
        epoch = epochIn;
        epochIndices = std::move(indices);
        const auto n = static_cast<std::int64_t>(epochIndices.size());
        const std::int64_t b = config.batchSize;
        batchesTotal = config.dropLast ? n / b : (n + b - 1) / b;
        nextDispatch = 0;
        delivered.assign(static_cast<std::size_t>(batchesTotal), 0);
        deliveredCount = 0;
        undeliveredCursor = 0;
        if (config.numWorkers > 0) {
            startThreads();
            while (nextDispatch < batchesTotal && inFlightNow() < window)
                dispatchOne();
        }
    }

    BatchPtr next()
    {
        if (stopSource.stop_requested())
            throw LoaderStopped();
        // takeReady() reports a dead loader thread under the lock it waits with; only
        // the end of an epoch, which takes no batch, checks for one here.
        if (deliveredCount >= batchesTotal) {
            throwIfAThreadDied();
            if (!config.persistentWorkers)
                endWorkers();
            return nullptr;
        }
        const std::int64_t request = builder.now();
        BatchPtr batch = config.numWorkers == 0 ? loadOnThisThread(request) : takeReady();
        if (!batch)
            throw LoaderStopped();
        batch->trace.requestNs = request;
        batch->trace.deliveryNs = builder.now();
        if (!batch->failure.empty())
            throw LoadError(batch->failure);
        return batch;
    }

    std::vector<std::int64_t> remaining() const
    {
        std::vector<std::int64_t> left;
        const auto b = static_cast<std::size_t>(config.batchSize);
        for (std::size_t k = 0; k < delivered.size(); ++k) {
            if (delivered[k])
                continue;
            const std::size_t first = k * b;
            const std::size_t last = std::min(first + b, epochIndices.size());
            left.insert(left.end(), epochIndices.begin() + static_cast<std::ptrdiff_t>(first),
                        epochIndices.begin() + static_cast<std::ptrdiff_t>(last));
        }
        return left;
    }

    int inFlightNow() const
    {
        std::lock_guard lock(readyMutex);
        return inFlight;
    }

    void stop() { stopSource.request_stop(); }

    DatasetPtr dataset;
    LoaderConfig config;
    BatchBuilder builder;
    const int window; // W x prefetch_factor
    std::shared_ptr<BufferPool> pool;
    std::shared_ptr<BufferPool> pinnedPool;
    std::stop_source stopSource;
    std::atomic<int> liveThreads{0};

    // Run-thread state.
    int epoch = 0;
    std::vector<std::int64_t> epochIndices;
    std::int64_t batchesTotal = 0;
    std::int64_t nextDispatch = 0;
    std::vector<char> delivered; // per batch ordinal of the epoch
    std::int64_t deliveredCount = 0;
    std::size_t undeliveredCursor = 0;

    // Shared with workers and the pin thread.
    mutable std::mutex readyMutex;
    std::condition_variable_any readyCv;
    std::map<std::int64_t, BatchPtr> ready; // reorder buffer, by ordinal
    std::string threadFailure;              // the first loader thread that died, and why
    int inFlight = 0;
    int maxInFlight = 0;

private:
    std::unique_ptr<PendingBatch> makePending(std::int64_t ordinal, int workers)
    {
        const auto b = static_cast<std::size_t>(config.batchSize);
        const std::size_t first = static_cast<std::size_t>(ordinal) * b;
        const std::size_t last = std::min(first + b, epochIndices.size());
        std::vector<std::int64_t> indices(epochIndices.begin() + static_cast<std::ptrdiff_t>(first),
                                          epochIndices.begin() + static_cast<std::ptrdiff_t>(last));
        auto batch = std::make_unique<Batch>(pool, pool->acquire(), dataset->sampleShape(),
                                             dataset->dtype());
        batch->labels.resize(indices.size());
        batch->trace.dispatchNs = builder.now();
        return std::make_unique<PendingBatch>(std::move(batch), std::move(indices), ordinal, epoch,
                                              workers);
    }

    void dispatchOne()
    {
        const std::int64_t ordinal = nextDispatch++;
        {
            std::lock_guard lock(readyMutex);
            ++inFlight;
            maxInFlight = std::max(maxInFlight, inFlight);
        }
        if (config.strategy == Strategy::PerWorkerBatch) {
            const auto worker = static_cast<std::size_t>(ordinal % config.numWorkers);
            workerQueues[worker]->push({makePending(ordinal, 1)});
            return;
        }
        std::shared_ptr<PendingBatch> pending = makePending(ordinal, config.numWorkers);
        std::vector<SlotTask> slots;
        slots.reserve(pending->indices.size());
        for (int slot = 0; slot < static_cast<int>(pending->indices.size()); ++slot)
            slots.push_back({pending, slot});
        slotQueue.pushAll(slots.begin(), slots.end());
    }

    BatchPtr loadOnThisThread(std::int64_t request)
    {
        auto pending = makePending(nextDispatch++, 1);
        pending->batch->trace.dispatchNs = request;
        BatchPtr batch = builder.buildWhole(std::move(pending), kConsumerThread,
                                            stopSource.get_token());
        if (batch) {
            batch->trace.readyNs = builder.now();
            if (config.pinMemory)
                pin(*batch);
            markDelivered(static_cast<std::size_t>(deliveredCount));
        }
        return batch;
    }

    BatchPtr takeReady()
    {
        BatchPtr batch;
        std::int64_t ordinal = 0;
        {
            std::unique_lock lock(readyMutex);
            const auto expected = static_cast<std::int64_t>(firstUndelivered());
            const bool gotOne = readyCv.wait(lock, stopSource.get_token(), [&] {
                return !threadFailure.empty()
                       || (config.inOrder ? ready.contains(expected) : !ready.empty());
            });
            if (!gotOne)
                return nullptr;
            if (!threadFailure.empty())
                throw LoaderThreadError(threadFailure);
            auto it = config.inOrder ? ready.find(expected) : ready.begin();
            ordinal = it->first;
            batch = std::move(it->second);
            ready.erase(it);
            --inFlight;
        }
        markDelivered(static_cast<std::size_t>(ordinal));
        // Replenish before handing the batch over, as PyTorch's _try_put_index does.
        if (nextDispatch < batchesTotal)
            dispatchOne();
        return batch;
    }

    void throwIfAThreadDied() const
    {
        std::lock_guard lock(readyMutex);
        if (!threadFailure.empty())
            throw LoaderThreadError(threadFailure);
    }

    std::size_t firstUndelivered() const { return undeliveredCursor; }

    void markDelivered(std::size_t ordinal)
    {
        delivered[ordinal] = 1;
        ++deliveredCount;
        while (undeliveredCursor < delivered.size() && delivered[undeliveredCursor])
            ++undeliveredCursor;
    }

    void pin(Batch &batch)
    {
        batch.trace.pinStartNs = builder.now();
        batch.moveInto(pinnedPool, pinnedPool->acquire());
        batch.trace.pinEndNs = builder.now();
    }

    // Called by workers: hands a finished batch to the pin thread or the reorder buffer.
    void complete(std::int64_t ordinal, BatchPtr batch)
    {
        if (config.pinMemory) {
            pinQueue.push({ordinal, std::move(batch)});
            return;
        }
        makeReady(ordinal, std::move(batch));
    }

    void makeReady(std::int64_t ordinal, BatchPtr batch)
    {
        batch->trace.readyNs = builder.now();
        {
            std::lock_guard lock(readyMutex);
            ready.emplace(ordinal, std::move(batch));
        }
        readyCv.notify_all();
    }

    void startThreads()
    {
        if (!workers.empty())
            return;
        const auto stop = stopSource.get_token();
        const int count = config.numWorkers;
        if (config.strategy == Strategy::PerWorkerBatch) {
            workerQueues.clear();
            for (int w = 0; w < count; ++w)
                workerQueues.push_back(std::make_unique<TaskQueue<BatchTask>>());
            for (int w = 0; w < count; ++w)
                workers.emplace_back([this, w, stop] {
                    runThread("worker " + std::to_string(w), [&] { perWorkerMain(w, stop); });
                });
        } else {
            for (int w = 0; w < count; ++w)
                workers.emplace_back([this, w, stop] {
                    runThread("worker " + std::to_string(w), [&] { slotWorkerMain(w, stop); });
                });
        }
        if (config.pinMemory && !pinThread.joinable())
            pinThread = std::thread(
                [this, stop] { runThread("pin thread", [&] { pinMain(stop); }); });
    }

    // A thread that ends with an error holds batches that will never arrive: next()
    // fails with the reason instead of waiting for them until stop.
    template <typename F>
    void runThread(const std::string &name, F &&body)
    {
        ++liveThreads;
        try {
            body();
        } catch (const std::exception &e) {
            spdlog::error("loader {} ended with an error: {}", name, escapeForTerminal(e.what()));
            {
                std::lock_guard lock(readyMutex);
                if (threadFailure.empty())
                    threadFailure = "the loader's " + name + " failed: " + e.what();
            }
            readyCv.notify_all();
        }
        --liveThreads;
    }

    void perWorkerMain(int w, std::stop_token stop)
    {
        auto &queue = *workerQueues[static_cast<std::size_t>(w)];
        BatchTask task;
        while (queue.pop(task, stop) && task.pending) {
            const std::int64_t ordinal = task.pending->ordinal;
            BatchPtr batch = builder.buildWhole(std::move(task.pending), w, stop);
            if (!batch)
                return;
            complete(ordinal, std::move(batch));
        }
    }

    void slotWorkerMain(int w, std::stop_token stop)
    {
        SlotTask task;
        while (slotQueue.pop(task, stop) && task.slot >= 0 && !stop.stop_requested()) {
            PendingBatch &pending = *task.pending;
            builder.loadSlot(pending, task.slot, w);
            // The last slot to finish completes the batch; acq_rel makes every other
            // slot's writes visible to it.
            if (pending.remaining.fetch_sub(1, std::memory_order_acq_rel) == 1)
                complete(pending.ordinal, builder.finish(pending, kAllWorkers));
            task = {};
        }
    }

    void pinMain(std::stop_token stop)
    {
        std::pair<std::int64_t, BatchPtr> item;
        while (pinQueue.pop(item, stop) && item.second && !stop.stop_requested()) {
            pin(*item.second);
            makeReady(item.first, std::move(item.second));
        }
    }

    void endWorkers()
    {
        if (workers.empty())
            return;
        if (config.strategy == Strategy::PerWorkerBatch) {
            for (auto &queue : workerQueues)
                queue->push({});
        } else {
            std::vector<SlotTask> exits(workers.size());
            slotQueue.pushAll(exits.begin(), exits.end());
        }
        for (auto &thread : workers)
            thread.join();
        workers.clear();
    }

public:
    void joinAll()
    {
        for (auto &thread : workers)
            if (thread.joinable())
                thread.join();
        workers.clear();
        if (pinThread.joinable())
            pinThread.join();
    }

private:
    std::vector<std::unique_ptr<TaskQueue<BatchTask>>> workerQueues;
    TaskQueue<SlotTask> slotQueue;
    TaskQueue<std::pair<std::int64_t, BatchPtr>> pinQueue;
    std::vector<std::thread> workers;
    std::thread pinThread;
};

Loader::Loader(DatasetPtr dataset, LoaderConfig config, std::int64_t originNs)
    : m_impl(std::make_unique<Impl>(std::move(dataset), config, originNs))
{
}

Loader::~Loader() = default;

void Loader::startEpoch(int epoch, Shard shard)
{
    const auto &c = m_impl->config;
    m_impl->begin(epoch,
                  shardOrder(epochOrder(m_impl->dataset->size(), c.shuffle, c.seed, epoch), shard));
}

void Loader::resumeEpoch(int epoch, std::vector<std::int64_t> indices)
{
    m_impl->begin(epoch, std::move(indices));
}

BatchPtr Loader::next()
{
    return m_impl->next();
}

std::vector<std::int64_t> Loader::remainingIndices() const
{
    return m_impl->remaining();
}

int Loader::maxInFlight() const
{
    std::lock_guard lock(m_impl->readyMutex);
    return m_impl->maxInFlight;
}

void Loader::stop()
{
    m_impl->stop();
}

int Loader::liveThreads() const
{
    return m_impl->liveThreads.load();
}

} // namespace loaderlab
