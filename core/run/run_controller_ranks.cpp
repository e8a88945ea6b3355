// The run thread of RunController and its data-parallel ranks. With devices = 1 the
// run thread is the one rank. With N devices, ranks 1..N-1 get threads of their own;
// each rank has its own loader over its shard of every epoch (core/loader/loader.h,
// shardOrder), its own workers and its own consumer (core/config/rank_config.h), and
// the ranks take turns appending to the one trace, each record carrying its rank.

#include "core/config/config_diff.h"
#include "core/config/marker_text.h"
#include "core/config/rank_config.h"
#include "core/consumer/gradient_exchange.h"
#include "core/run/run_controller_impl.h"
#include "core/system/clock.h"
#include "core/system/repeated_warnings.h"
#include "core/system/safe_text.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>

namespace loaderlab {
namespace {

// How long the ranks' meeting or one gradient exchange may take before the run fails:
// far above a real exchange (100 MB over loopback: about 0.1 s), so that only a rank
// that is gone ends it.
constexpr std::chrono::milliseconds kExchangeTimeout{60'000};

// Requests the run's stop at its time limit, measured from the run's origin.
std::jthread startDeadline(double seconds, std::int64_t originNs, std::stop_source &runStop,
                           std::atomic<bool> &hit)
{
    if (seconds <= 0)
        return {};
    return std::jthread([&runStop, &hit, seconds, originNs](std::stop_token done) {
        std::mutex m;
        std::condition_variable_any cv;
        std::unique_lock lock(m);
        const auto at = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(originNs))
                        + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(seconds));
        if (!cv.wait_until(lock, done, at, [] { return false; }) && !done.stop_requested()) {
            hit = true;
            runStop.request_stop();
        }
    });
}

// What one epoch delivered: an epoch whose every sample was skipped (a folder of
// corrupt images, a truncated tensor file) ends the run, since every later epoch
// would only skip them again and there is nothing to measure.
struct EpochYield
{
    std::int64_t delivered = 0;
    std::int64_t skipped = 0;
    std::string lastSkip;

    void add(const Batch &batch)
    {
        delivered += batch.size();
        skipped += static_cast<std::int64_t>(batch.skipped.size());
        if (!batch.skipped.empty())
            lastSkip = batch.skipped.back().source + ": " + batch.skipped.back().reason;
    }

    void check(int epoch) const
    {
        if (delivered > 0 || skipped == 0)
            return;
        throw std::runtime_error("epoch " + std::to_string(epoch + 1) + " delivered no sample: all "
                                 + std::to_string(skipped)
                                 + " samples it loaded were skipped (last: " + lastSkip
                                 + "); the run stops, as every epoch would skip them again");
    }
};

} // namespace

void RunController::Impl::run(std::stop_token threadStop, DatasetPtr dataset)
{
    RunConfig cfg;
    {
        std::lock_guard lock(mutex);
        cfg = config;
    }
    sampleWarnings().reset();
    // One stop for the whole run: stop(), the limits and a failing rank all request it,
    // so the time limit also ends a long model step, which waits on this token.
    std::stop_source runStop;
    std::stop_callback forwardStop(threadStop, [&runStop] { runStop.request_stop(); });
    std::atomic<bool> deadlineHit{false};
    std::jthread deadline = startDeadline(cfg.maxSeconds, originNs, runStop, deadlineHit);
    const int ranks = std::max(cfg.devices, 1);
    StepBarrier barrier(cfg.syncDevices ? ranks : 0);
    RunScope scope;
    scope.dataset = dataset;
    scope.ranks = ranks;
    scope.stop = &runStop;
    scope.barrier = &barrier;
    scope.gradientBytes = static_cast<std::int64_t>(cfg.gradientMb * 1e6);
    // The gradient exchange of synchronised ranks: made here, in the run thread (the
    // first one loads LibTorch), and joined by every rank as it starts.
    std::unique_ptr<ExchangeGroup> exchange;
    if (ranks > 1 && cfg.syncDevices && scope.gradientBytes > 0) {
        try {
            exchange = makeExchangeGroup(ranks, cfg.commBackend, kExchangeTimeout);
            spdlog::info("run: {} ranks exchange {:.1f} MB of gradient a step with {}", ranks,
                         cfg.gradientMb, exchange->description());
        } catch (const std::exception &e) {
            spdlog::error("run failed: the gradient exchange: {}", escapeForTerminal(e.what()));
            {
                std::lock_guard lock(mutex);
                error = std::string("the gradient exchange: ") + e.what();
            }
            scope.failed = true;
            runStop.request_stop();
        }
    }
    scope.exchange = exchange.get();
    {
        std::lock_guard lock(loaderMutex);
        loaders.clear();
        loaders.resize(static_cast<std::size_t>(ranks));
    }
    std::stop_callback onStop(runStop.get_token(), [this] {
        std::lock_guard lock(loaderMutex);
        for (auto &loader : loaders)
            if (loader)
                loader->stop();
    });
    std::vector<Rank> rankStates(static_cast<std::size_t>(ranks));
    std::vector<std::jthread> others;
    for (int r = 0; r < ranks; ++r) {
        rankStates[static_cast<std::size_t>(r)].rank = r;
        rankStates[static_cast<std::size_t>(r)].cfg = cfg;
    }
    ++liveRankThreads; // the run thread, as rank 0
    for (int r = 1; r < ranks && !scope.failed; ++r) {
        ++liveRankThreads;
        others.emplace_back([this, &scope, &self = rankStates[static_cast<std::size_t>(r)]] {
            runRank(self, scope);
            --liveRankThreads;
        });
    }
    if (!scope.failed)
        runRank(rankStates[0], scope);
    for (auto &other : others)
        other.join();
    if (deadline.joinable()) {
        deadline.request_stop();
        deadline.join();
    }
    RunState end = RunState::Finished;
    if (scope.failed)
        end = RunState::Failed;
    else if (!scope.limitHit && !deadlineHit && runStop.stop_requested())
        end = RunState::Stopped;
    --liveRankThreads;
    sampleWarnings().flush();
    setState(end);
    std::function<void(RunState)> callback;
    {
        std::lock_guard lock(mutex);
        callback = onEnded;
    }
    if (callback)
        callback(end);
}

void RunController::Impl::runRank(Rank &self, RunScope &scope)
{
    const std::stop_token stop = scope.stop->get_token();
    try {
        runRankSteps(self, scope, stop);
    } catch (const LimitReached &) {
        scope.limitHit = true;
        scope.stop->request_stop();
    } catch (const LoaderStopped &) {
        // stop(), a limit or another rank's failure; the run says which.
    } catch (const std::exception &e) {
        // A model build that gave up because of the stop is not a failure.
        if (!stop.stop_requested()) {
            spdlog::error("run failed{}: {}",
                          scope.ranks > 1 ? " on rank " + std::to_string(self.rank) : "",
                          escapeForTerminal(e.what()));
            {
                std::lock_guard lock(mutex);
                if (error.empty())
                    error = scope.ranks > 1 ? "rank " + std::to_string(self.rank) + ": " + e.what()
                                            : e.what();
            }
            scope.failed = true;
            scope.stop->request_stop();
        }
    }
    scope.barrier->drop();
    replaceLoader(self.rank, stop, nullptr);
}

void RunController::Impl::runRankSteps(Rank &self, RunScope &scope, std::stop_token stop)
{
    const RunConfig &cfg = self.cfg;
    const Shard shard{self.rank, scope.ranks};
    // First, so that every rank meets the others at once (join blocks until all have).
    const std::unique_ptr<GradientExchange> exchange = scope.exchange
                                                           ? scope.exchange->join(self.rank)
                                                           : nullptr;
    const bool synchronised = cfg.syncDevices && scope.ranks > 1;
    // Inside the caller's try: a model consumer that cannot be built (missing file, no
    // LibTorch) fails the run with its reason instead of escaping the thread.
    std::unique_ptr<Consumer> consumer = makeConsumer(
        consumerForRank(cfg.consumer, self.rank, scope.ranks), originNs, stop);
    replaceLoader(self.rank, stop, std::make_unique<Loader>(scope.dataset, cfg.loader, originNs));
    std::vector<BatchPtr> kept; // for the replay (cfg.replayBatches)
    for (int epoch = 0; cfg.epochs == 0 || epoch < cfg.epochs; ++epoch) {
        if (epoch > 0 && self.rank == 0)
            markEpoch(epoch, self.configVersion);
        loaderOf(self.rank).startEpoch(epoch, shard);
        EpochYield yield;
        for (std::int64_t inEpoch = 1;; ++inEpoch) {
            if (!waitWhilePaused(stop, self.rank))
                throw LoaderStopped();
            applyPendingChanges(stop, self, scope, consumer, epoch);
            BatchPtr batch = loaderOf(self.rank).next();
            if (!batch) {
                yield.check(epoch);
                break;
            }
            yield.add(*batch);
            TraceRecord record = batch->trace;
            record.rank = self.rank;
            record.configVersion = self.configVersion;
            consumer->consume(*batch, record, stop);
            notePeakMemory(*consumer);
            // A synchronised step ends as DDP's does: every rank waits for the slowest,
            // then, when every rank of the run is there, they all-reduce the gradient.
            StepSync sync = StepSync::Complete;
            if (synchronised) {
                record.syncStartNs = steadyNowNs() - originNs;
                sync = scope.barrier->arriveAndWait(stop);
                if (sync != StepSync::Stopped)
                    record.syncEndNs = std::max(steadyNowNs() - originNs, record.syncStartNs);
                if (exchange && sync == StepSync::Complete) {
                    exchange->allReduce(scope.gradientBytes);
                    record.exchangeEndNs = std::max(steadyNowNs() - originNs, record.syncEndNs);
                }
            }
            std::int64_t index = 0;
            if (!appendBatch(&*batch, record, cfg.maxBatches, index))
                throw LimitReached();
            if (stop.stop_requested() || sync == StepSync::Stopped)
                throw LoaderStopped();
            if (limitReached(cfg, index + 1))
                throw LimitReached();
            if (cfg.replayBatches > 0 && batch->size() > 0) { // an empty batch has no step
                kept.push_back(std::move(batch));
                if (std::ssize(kept) == cfg.replayBatches) {
                    replayKept(self, scope, consumer, std::move(kept), epoch, inEpoch, stop);
                    return;
                }
            }
        }
    }
}

void RunController::Impl::markEpoch(int epoch, int version)
{
    std::lock_guard lock(appendMutex);
    trace->addMarker({nextIndex,
                      steadyNowNs() - originNs,
                      MarkerKind::Epoch,
                      version,
                      {},
                      std::to_string(epoch)});
}

void RunController::Impl::notePeakMemory(const Consumer &consumer)
{
    // Several ranks raise it at once: compare-and-swap, so no rank's peak is lost.
    const std::int64_t peak = consumer.peakMemoryBytes();
    std::int64_t seen = peakMemoryBytes.load();
    while (peak > seen && !peakMemoryBytes.compare_exchange_weak(seen, peak)) { }
}

bool RunController::Impl::appendBatch(const Batch *batch, TraceRecord record, std::int64_t limit,
                                      std::int64_t &index)
{
    std::lock_guard lock(appendMutex);
    if (limit > 0 && nextIndex >= limit)
        return false;
    index = nextIndex++;
    record.index = index;
    if (!batch) {
        trace->append(record);
        return true;
    }
    for (auto span : batch->spans) {
        span.batch = index;
        span.rank = record.rank;
        trace->appendSpan(span);
    }
    for (auto skipped : batch->skipped) {
        skipped.batch = index;
        sampleWarnings().warn("skipped " + escapeForTerminal(skipped.source) + ": "
                              + escapeForTerminal(skipped.reason));
        trace->addSkipped(std::move(skipped));
    }
    trace->append(record);
    return true;
}

bool RunController::Impl::limitReached(const RunConfig &cfg, std::int64_t batches) const
{
    if (cfg.maxBatches > 0 && batches >= cfg.maxBatches)
        return true;
    return cfg.maxSeconds > 0
           && static_cast<double>(steadyNowNs() - originNs) / 1e9 >= cfg.maxSeconds;
}

bool RunController::Impl::waitWhilePaused(std::stop_token stop, int rank)
{
    std::unique_lock lock(mutex);
    if (state != RunState::Paused)
        return true;
    const auto mark = [&](MarkerKind kind) {
        if (rank != 0)
            return;
        std::lock_guard append(appendMutex);
        trace->addMarker({nextIndex, steadyNowNs() - originNs, kind, configVersion, {}, {}});
    };
    mark(MarkerKind::Pause);
    const bool resumed = cv.wait(lock, stop, [this] { return state != RunState::Paused; });
    if (resumed)
        mark(MarkerKind::Resume);
    return resumed;
}

void RunController::Impl::applyPendingChanges(std::stop_token stop, Rank &self, RunScope &scope,
                                              std::unique_ptr<Consumer> &consumer, int epoch)
{
    std::optional<PendingChange> change;
    RunConfig before;
    {
        std::unique_lock lock(mutex);
        if (self.generation == pendingGeneration)
            return;
        if (claimedGeneration < pendingGeneration) {
            // This rank decides the latest request.
            claimedGeneration = pendingGeneration;
            change = pending;
            before = config;
        } else {
            // Another rank decides it: follow its decision once made.
            const std::int64_t target = claimedGeneration;
            if (!cv.wait(lock, stop, [&] { return decided.generation >= target; }))
                throw LoaderStopped();
            const Decision d = decided;
            lock.unlock();
            self.generation = d.generation;
            if (d.configVersion != self.configVersion) {
                applyToRank(stop, self, scope, consumer, epoch, d.loader, d.consumer);
                self.configVersion = d.configVersion;
            }
            return;
        }
    }
    RunConfig next = before;
    next.loader = change->loader;
    next.consumer = change->consumer;
    applyToRank(stop, self, scope, consumer, epoch, next.loader, next.consumer);
    // A consumer that could not be built keeps the current one (applyToRank).
    next.consumer = self.cfg.consumer;
    std::vector<FieldChange> changes = liveChanges(before, next);
    const std::int64_t now = steadyNowNs() - originNs;
    {
        std::lock_guard lock(mutex);
        if (!changes.empty()) {
            config.loader = next.loader;
            config.consumer = next.consumer;
            ++configVersion;
            std::lock_guard append(appendMutex);
            trace->addConfigVersion({configVersion, nextIndex, now, config});
            TraceMarker marker{nextIndex,          now,           change->kind, configVersion,
                               std::move(changes), change->detail};
            spdlog::info("batch {}: {}", nextIndex, markerText(marker));
            trace->addMarker(std::move(marker));
        }
        decided = {claimedGeneration, config.loader, config.consumer, configVersion};
        self.generation = claimedGeneration;
        self.configVersion = configVersion;
    }
    cv.notify_all();
}

void RunController::Impl::applyToRank(std::stop_token stop, Rank &self, RunScope &scope,
                                      std::unique_ptr<Consumer> &consumer, int epoch,
                                      const LoaderConfig &loader, const ConsumerConfig &consumer_)
{
    if (!(consumer_ == self.cfg.consumer)) {
        // A consumer that cannot be built (a file that is not a TorchScript module, fp16
        // on a CPU) keeps the current one: the run goes on, and the reason waits for
        // takeReconfigureError().
        try {
            consumer = makeConsumer(consumerForRank(consumer_, self.rank, scope.ranks), originNs,
                                    stop);
            self.cfg.consumer = consumer_;
        } catch (const std::exception &e) {
            if (stop.stop_requested())
                throw LoaderStopped(); // the build gave up because of the stop
            spdlog::error("model step not changed: {}", e.what());
            std::lock_guard lock(mutex);
            reconfigureError = e.what();
        }
    }
    if (!(loader == self.cfg.loader) && self.replaying) {
        // No loader to rebuild: the replayed batches stay as they were loaded.
        self.cfg.loader = loader;
    } else if (!(loader == self.cfg.loader)) {
        // The rest of the rank's epoch, exactly: in-flight batches are dropped and their
        // samples handed to the new loader.
        std::vector<std::int64_t> remaining = loaderOf(self.rank).remainingIndices();
        replaceLoader(self.rank, stop, nullptr);
        replaceLoader(self.rank, stop, std::make_unique<Loader>(scope.dataset, loader, originNs));
        loaderOf(self.rank).resumeEpoch(epoch, std::move(remaining));
        self.cfg.loader = loader;
    }
}

void RunController::Impl::replaceLoader(int rank, std::stop_token stop,
                                        std::unique_ptr<Loader> next)
{
    std::unique_ptr<Loader> old;
    {
        std::lock_guard lock(loaderMutex);
        if (next && stop.stop_requested())
            throw LoaderStopped();
        old = std::move(loaders[static_cast<std::size_t>(rank)]);
        loaders[static_cast<std::size_t>(rank)] = std::move(next);
    }
}

} // namespace loaderlab
