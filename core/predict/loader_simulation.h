#pragma once

// LoaderSimulation: the event-driven part of the loader model (loader_model.h says
// what is modelled). Each rank has its loader (workers, their task queues or the
// shared sample queue, the pin thread, the reorder buffer) and its consumer; all
// ranks' CPU work shares one ProcessorSharingClock. Internal to core/predict:
// predictLoader() checks the inputs and turns the batches into figures.

#include "core/predict/loader_model.h"
#include "core/predict/processor_sharing.h"

#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

namespace loaderlab {

class LoaderSimulation
{
public:
    LoaderSimulation(const ModelCosts &costs, const ModelSetting &setting);

    // Runs to the setting's epochs or batch limit; the batches in the order their
    // steps ended. Throws std::logic_error if the model stalls (a bug).
    std::vector<PredictedBatch> run();

private:
    enum class Consumer {
        Asking,
        Loading, // W = 0: its own batch
        Pinning, // W = 0
        Handing, // the batch it waited for is being handed over
        Copying,
        Stepping,
        Recording, // after the step, before it asks again
        AtBarrier,
        Exchanging, // the gradient all-reduce after the barrier
        Done
    };

    struct BatchState
    {
        int samples = 0;
        int slotsLeft = 0; // sample-parallel: samples not loaded yet
        bool started = false;
        bool freshBuffer = false; // fills a buffer its loader never used (firstFill)
        PredictedBatch record;
    };

    struct Rank
    {
        int rank = 0;
        int epoch = -1;
        std::int64_t batchesInEpoch = 0;
        std::int64_t nextDispatch = 0;
        std::int64_t delivered = 0;
        std::int64_t nextInOrder = 0; // the first batch of the epoch not delivered
        std::vector<char> deliveredFlags;
        std::vector<BatchState> batches; // by ordinal within the epoch
        bool workersUp = false;
        bool workersStarting = false;
        bool workersEverStarted = false;
        std::int64_t buffersUsed = 0; // batches dispatched in the run (all epochs)
        std::int64_t pinnedUsed = 0;  // batches pinned in the run
        std::vector<std::deque<std::int64_t>> workerQueues; // per-worker strategy
        std::deque<std::pair<std::int64_t, int>> slotQueue; // sample-parallel: (batch, slot)
        std::vector<char> workerBusy;
        std::deque<std::int64_t> pinQueue;
        bool pinBusy = false;
        std::map<std::int64_t, double> ready; // reorder buffer: ordinal -> ready time
        Consumer consumer = Consumer::Asking;
        double request = 0.0;
        std::int64_t current = 0; // the ordinal the consumer holds
    };

    void beginEpoch(Rank &r, int epoch);
    void dispatchOne(Rank &r);
    void consumerAsks(Rank &r);
    void take(Rank &r, std::int64_t ordinal, double readyTime);
    void deliver(Rank &r);
    void startCopyOrStep(Rank &r);
    void startStep(Rank &r);
    void stepEnded(Rank &r);
    void askAgain(Rank &r);
    void startIdleThreads(Rank &r);
    void startBatchLoad(Rank &r, int worker, std::int64_t ordinal);
    void batchLoaded(Rank &r, std::int64_t ordinal);
    void makeReady(Rank &r, std::int64_t ordinal);
    void handle(const ActivityTag &tag);
    // One thread's CPU `work`, after `fill` seconds of faulting work when positive.
    void startWork(double fill, double work, ActivityTag tag);
    double fillOf(bool fresh, int samples) const;

    double sampleCost(const Rank &r, std::int64_t position) const;
    double loadWork(const Rank &r, std::int64_t ordinal) const; // its samples, no collate
    std::int64_t firstSample(std::int64_t ordinal) const;

    const ModelCosts &m_costs;
    const ModelSetting &m_setting;
    ProcessorSharingClock m_clock;
    std::int64_t m_samplesPerRankEpoch = 0;
    std::int64_t m_poolBuffers = 1; // buffers a loader's pool grows to: W x prefetch + 1
    std::vector<Rank> m_ranks;
    std::vector<PredictedBatch> m_out;
    int m_atBarrier = 0;
    bool m_limitReached = false;
};

} // namespace loaderlab
