#pragma once

// RunController's inside, shared by run_controller.cpp (the public side) and
// run_controller_ranks.cpp (the run thread and its data-parallel ranks). Not for
// other code.

#include "core/consumer/consumer.h"
#include "core/consumer/gradient_exchange.h"
#include "core/loader/loader.h"
#include "core/run/run_controller.h"
#include "core/run/step_barrier.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace loaderlab {

// Thrown on a rank's thread when the run's batch or time limit is reached.
struct LimitReached
{
};

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

    // The run thread: starts the ranks (the run thread is rank 0), waits for them,
    // then records how the run ended.
    void run(std::stop_token threadStop, DatasetPtr dataset);

    // What every rank of one run shares.
    struct RunScope
    {
        DatasetPtr dataset;
        int ranks = 1;
        std::stop_source *stop = nullptr; // stop(), the time and batch limits, a failure
        StepBarrier *barrier = nullptr;
        ExchangeGroup *exchange = nullptr; // null: no gradient exchange
        std::int64_t gradientBytes = 0;
        std::atomic<bool> limitHit{false};
        std::atomic<bool> failed{false};
    };
    // One rank's own state, touched only by its thread.
    struct Rank
    {
        int rank = 0;
        RunConfig cfg;               // with the reconfigurations this rank applied
        std::int64_t generation = 0; // the last reconfiguration request it applied
        int configVersion = 0;
        bool replaying = false; // its loader is gone: the step runs on kept batches
    };
    // Epochs of batches for one rank, each delivered, consumed and traced.
    void runRank(Rank &self, RunScope &scope);
    void runRankSteps(Rank &self, RunScope &scope, std::stop_token stop);
    // The rest of the run after `kept` batches were delivered (RunConfig::replayBatches,
    // core/run/run_controller_replay.cpp): the loader stops, and the step runs on the
    // kept batches in turn, epoch `epoch` having delivered `inEpoch` batches so far.
    void replayKept(Rank &self, RunScope &scope, std::unique_ptr<Consumer> &consumer,
                    std::vector<BatchPtr> kept, int epoch, std::int64_t inEpoch,
                    std::stop_token stop);
    void markEpoch(int epoch, int version); // the Epoch marker, at the next batch
    void notePeakMemory(const Consumer &consumer);
    // True with `index` set when the batch is traced; false when the batch limit
    // (`limit` > 0) was already reached by the ranks together (the record is dropped).
    // A replayed batch (`batch` null) adds its record alone: its worker spans and
    // skipped samples were traced when it was loaded.
    bool appendBatch(const Batch *batch, TraceRecord record, std::int64_t limit,
                     std::int64_t &index);
    bool limitReached(const RunConfig &cfg, std::int64_t batches) const;
    // Returns false when stopped while paused. Rank 0 leaves the markers.
    bool waitWhilePaused(std::stop_token stop, int rank);
    // A reconfiguration request not yet applied by this rank: the first rank to reach
    // it decides (builds its consumer, records the version and the marker); the others
    // follow that decision.
    void applyPendingChanges(std::stop_token stop, Rank &self, RunScope &scope,
                             std::unique_ptr<Consumer> &consumer, int epoch);
    void applyToRank(std::stop_token stop, Rank &self, RunScope &scope,
                     std::unique_ptr<Consumer> &consumer, int epoch, const LoaderConfig &loader,
                     const ConsumerConfig &consumer_);
    // Swaps a rank's loader; the old one is destroyed (its threads joined) outside the
    // lock so stop() never waits for a join.
    void replaceLoader(int rank, std::stop_token stop, std::unique_ptr<Loader> next);
    Loader &loaderOf(int rank) { return *loaders[static_cast<std::size_t>(rank)]; }

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
    // The latest reconfiguration request; requests are numbered by `pendingGeneration`,
    // `claimedGeneration` is the last one a rank took to decide, `decided` its outcome.
    std::optional<PendingChange> pending;
    std::int64_t pendingGeneration = 0;
    std::int64_t claimedGeneration = 0;
    struct Decision
    {
        std::int64_t generation = 0;
        LoaderConfig loader;
        ConsumerConfig consumer;
        int configVersion = 0;
    };
    Decision decided;
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
    int configVersion = 0; // the latest, under `mutex`
    std::atomic<int> liveRankThreads{0};
    std::atomic<std::int64_t> peakMemoryBytes{0}; // max over the run's consumers

    // The trace has one writer at a time: the ranks take turns.
    std::mutex appendMutex;
    std::int64_t nextIndex = 0; // under appendMutex

    mutable std::mutex loaderMutex;
    std::vector<std::unique_ptr<Loader>> loaders; // one per rank
    std::jthread thread;
};

} // namespace loaderlab
