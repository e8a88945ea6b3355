#include "core/predict/loader_simulation.h"

#include "core/predict/cost_deck.h"
#include "core/predict/loader_simulation_activities.h"
#include "core/stats/wait_pattern.h"
#include "core/system/splitmix64.h"

#include <algorithm>
#include <stdexcept>

namespace loaderlab {
using namespace simactivity;

LoaderSimulation::LoaderSimulation(const ModelCosts &costs, const ModelSetting &setting)
    : m_costs(costs)
    , m_setting(setting)
    , m_clock(setting.cores - setting.outsideCores, costs.faultLanes, setting.otherLoad,
              setting.nodes > 1 ? setting.devices : 0)
{
    // With W = 0 the consumer's batch goes back to the pool before it builds the next;
    // with workers, W x prefetch batches are in flight when the consumer, holding none,
    // takes one and dispatches the next (core/loader/loader.cpp).
    m_poolBuffers = loaderFirstFillBatches(setting.workers, setting.prefetchFactor);
    // Each rank's share of an epoch, as DistributedSampler pads it: ceil(n / N).
    const std::int64_t n = setting.samplesPerEpoch;
    const std::int64_t ranks = setting.ranks();
    m_samplesPerRankEpoch = (n + ranks - 1) / ranks;
    m_ranks.resize(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r)
        m_ranks[static_cast<std::size_t>(r)].rank = r;
}

std::vector<PredictedBatch> LoaderSimulation::run()
{
    for (Rank &r : m_ranks)
        beginEpoch(r, 0);
    while (true) {
        for (Rank &r : m_ranks) {
            consumerAsks(r);
            startIdleThreads(r);
        }
        if (m_limitReached)
            break;
        if (std::all_of(m_ranks.begin(), m_ranks.end(),
                        [](const Rank &r) { return r.consumer == Consumer::Done; }))
            break;
        const std::vector<ActivityTag> ended = m_clock.advance();
        if (ended.empty())
            throw std::logic_error("the loader model stalled at " + std::to_string(m_clock.now())
                                   + " s");
        for (const ActivityTag &tag : ended) {
            handle(tag);
            if (m_limitReached)
                break;
        }
    }
    return std::move(m_out);
}

std::int64_t LoaderSimulation::firstSample(std::int64_t ordinal) const
{
    return ordinal * m_setting.batchSize;
}

double LoaderSimulation::sampleCost(const Rank &r, std::int64_t position) const
{
    const auto &values = m_costs.sampleSeconds;
    const auto count = static_cast<std::uint64_t>(values.size());
    std::uint64_t pick = 0;
    if (m_costs.draw == SampleDraw::Cycle) {
        pick = static_cast<std::uint64_t>(position) % count;
    } else if (count > 1 && m_costs.draw == SampleDraw::PerBatch) {
        // A prediction of as many batches as were measured loads what they loaded, not
        // a random draw's mean.
        const std::int64_t perEpoch = (m_samplesPerRankEpoch + m_setting.batchSize - 1)
                                      / m_setting.batchSize;
        pick = dealtCost(
            m_costs.seed, r.rank,
            static_cast<std::uint64_t>(r.epoch * perEpoch + position / m_setting.batchSize), count);
    } else if (count > 1) {
        std::uint64_t h = splitmix64(m_costs.seed);
        h = splitmix64(h ^ static_cast<std::uint64_t>(r.rank));
        h = splitmix64(h ^ static_cast<std::uint64_t>(r.epoch));
        h = splitmix64(h ^ static_cast<std::uint64_t>(position));
        pick = h % count;
    }
    const auto rank = static_cast<std::size_t>(r.rank);
    const double factor = rank < m_costs.rankLoadFactor.size() ? m_costs.rankLoadFactor[rank] : 1.0;
    return values[pick] * factor;
}

double LoaderSimulation::loadWork(const Rank &r, std::int64_t ordinal) const
{
    const BatchState &b = r.batches[static_cast<std::size_t>(ordinal)];
    double work = 0.0;
    for (int s = 0; s < b.samples; ++s)
        work += sampleCost(r, firstSample(ordinal) + s);
    return work;
}

void LoaderSimulation::beginEpoch(Rank &r, int epoch)
{
    r.epoch = epoch;
    const std::int64_t n = m_samplesPerRankEpoch;
    const std::int64_t b = m_setting.batchSize;
    r.batchesInEpoch = m_setting.dropLast ? n / b : (n + b - 1) / b;
    r.batches.assign(static_cast<std::size_t>(r.batchesInEpoch), {});
    for (std::int64_t k = 0; k < r.batchesInEpoch; ++k) {
        BatchState &s = r.batches[static_cast<std::size_t>(k)];
        s.samples = static_cast<int>(std::min(b, n - k * b));
        s.slotsLeft = s.samples;
        s.record.epoch = epoch;
        s.record.rank = r.rank;
        s.record.ordinal = k;
        s.record.samples = s.samples;
    }
    r.deliveredFlags.assign(static_cast<std::size_t>(r.batchesInEpoch), 0);
    r.nextDispatch = 0;
    r.delivered = 0;
    r.nextInOrder = 0;
    r.ready.clear();
    const int w = m_setting.workers;
    if (w == 0)
        return;
    // Workers that are not persistent ended with the last epoch (they were idle: every
    // batch had been delivered) and start again now.
    if (!m_setting.persistentWorkers)
        r.workersUp = false;
    if (!r.workersUp && !r.workersStarting) {
        const double startup = r.workersEverStarted ? m_costs.restartSeconds
                                                    : m_costs.startupSeconds;
        r.workersEverStarted = true;
        r.workerQueues.assign(static_cast<std::size_t>(w), {});
        r.workerBusy.assign(static_cast<std::size_t>(w), 0);
        if (startup > 0.0) {
            r.workersStarting = true;
            m_clock.startDelay(startup, {kWorkersStarted, r.rank, 0, 0, 0});
        } else {
            r.workersUp = true;
        }
    }
    // The window: W x prefetch_factor batches are dispatched as the epoch begins.
    const std::int64_t window = static_cast<std::int64_t>(w) * m_setting.prefetchFactor;
    while (r.nextDispatch < r.batchesInEpoch && r.nextDispatch < window)
        dispatchOne(r);
}

void LoaderSimulation::dispatchOne(Rank &r)
{
    const std::int64_t ordinal = r.nextDispatch++;
    BatchState &b = r.batches[static_cast<std::size_t>(ordinal)];
    b.record.dispatch = m_clock.now();
    b.freshBuffer = r.buffersUsed++ < m_poolBuffers;
    if (m_setting.strategy == Strategy::PerWorkerBatch) {
        const auto worker = static_cast<std::size_t>(ordinal % m_setting.workers);
        r.workerQueues[worker].push_back(ordinal);
        b.record.worker = static_cast<int>(worker);
        return;
    }
    b.record.worker = kAllWorkers;
    for (int slot = 0; slot < b.samples; ++slot)
        r.slotQueue.emplace_back(ordinal, slot);
}

void LoaderSimulation::startIdleThreads(Rank &r)
{
    if (m_setting.workers == 0 || !r.workersUp)
        return;
    const double now = m_clock.now();
    for (int w = 0; w < m_setting.workers; ++w) {
        const auto wi = static_cast<std::size_t>(w);
        if (r.workerBusy[wi])
            continue;
        if (m_setting.strategy == Strategy::PerWorkerBatch) {
            auto &queue = r.workerQueues[wi];
            if (queue.empty())
                continue;
            const std::int64_t ordinal = queue.front();
            queue.pop_front();
            r.workerBusy[wi] = 1;
            if (m_costs.taskStartSeconds > 0.0)
                m_clock.startDelay(m_costs.taskStartSeconds, {kWorkerTakes, r.rank, w, ordinal, 0});
            else
                startBatchLoad(r, w, ordinal);
            continue;
        }
        if (r.slotQueue.empty())
            break;
        const auto [ordinal, slot] = r.slotQueue.front();
        r.slotQueue.pop_front();
        BatchState &b = r.batches[static_cast<std::size_t>(ordinal)];
        if (!b.started) {
            b.started = true;
            b.record.loadStart = now;
        }
        r.workerBusy[wi] = 1;
        // A fresh buffer's faults are spread over its samples.
        const double fill = fillOf(b.freshBuffer, b.samples) / b.samples;
        startWork(fill, sampleCost(r, firstSample(ordinal) + slot),
                  {kWorkerSlot, r.rank, w, ordinal, slot});
    }
    if (m_setting.pinMemory && !r.pinBusy && !r.pinQueue.empty()) {
        const std::int64_t ordinal = r.pinQueue.front();
        r.pinQueue.pop_front();
        BatchState &b = r.batches[static_cast<std::size_t>(ordinal)];
        b.record.pinStart = now;
        r.pinBusy = true;
        startWork(fillOf(r.pinnedUsed++ < m_poolBuffers, b.samples), m_costs.pin.at(b.samples),
                  {kPinThread, r.rank, 0, ordinal, 0});
    }
}

void LoaderSimulation::startBatchLoad(Rank &r, int worker, std::int64_t ordinal)
{
    BatchState &b = r.batches[static_cast<std::size_t>(ordinal)];
    b.record.loadStart = m_clock.now();
    startWork(fillOf(b.freshBuffer, b.samples),
              loadWork(r, ordinal) + m_costs.collate.at(b.samples),
              {kWorkerBatch, r.rank, worker, ordinal, 0});
}

void LoaderSimulation::startWork(double fill, double work, ActivityTag tag)
{
    if (fill <= 0.0) {
        m_clock.startWork(work, 1.0, tag);
        return;
    }
    tag.fill = true;
    tag.then = work;
    m_clock.startFaultingWork(fill, tag);
}

double LoaderSimulation::fillOf(bool fresh, int samples) const
{
    return fresh ? m_costs.firstFill.at(samples) : 0.0;
}

void LoaderSimulation::batchLoaded(Rank &r, std::int64_t ordinal)
{
    r.batches[static_cast<std::size_t>(ordinal)].record.loadEnd = m_clock.now();
    if (m_setting.pinMemory)
        r.pinQueue.push_back(ordinal);
    else
        makeReady(r, ordinal);
}

void LoaderSimulation::makeReady(Rank &r, std::int64_t ordinal)
{
    r.batches[static_cast<std::size_t>(ordinal)].record.ready = m_clock.now();
    r.ready[ordinal] = m_clock.now();
}

void LoaderSimulation::handle(const ActivityTag &tag)
{
    if (tag.fill) { // the fresh pages are in: the work itself
        ActivityTag work = tag;
        work.fill = false;
        m_clock.startWork(tag.then, 1.0, work);
        return;
    }
    Rank &r = m_ranks[static_cast<std::size_t>(tag.rank)];
    const double now = m_clock.now();
    const auto worker = static_cast<std::size_t>(tag.worker);
    BatchState *b = tag.kind == kWorkersStarted ? nullptr
                                                : &r.batches[static_cast<std::size_t>(tag.ordinal)];
    switch (tag.kind) {
    case kWorkersStarted:
        r.workersStarting = false;
        r.workersUp = true;
        break;
    case kWorkerTakes:
        startBatchLoad(r, tag.worker, tag.ordinal);
        break;
    case kWorkerBatch:
        r.workerBusy[worker] = 0;
        batchLoaded(r, tag.ordinal);
        break;
    case kWorkerSlot:
        r.workerBusy[worker] = 0;
        if (--b->slotsLeft == 0) {
            // The worker that loaded the batch's last sample collates it.
            r.workerBusy[worker] = 1;
            m_clock.startWork(m_costs.collate.at(b->samples), 1.0,
                              {kWorkerCollate, r.rank, tag.worker, tag.ordinal, 0});
        }
        break;
    case kWorkerCollate:
        r.workerBusy[worker] = 0;
        batchLoaded(r, tag.ordinal);
        break;
    case kPinThread:
        r.pinBusy = false;
        b->record.pinEnd = now;
        makeReady(r, tag.ordinal);
        break;
    case kConsumerLoad:
        b->record.loadEnd = now;
        b->record.ready = now;
        if (m_setting.pinMemory) {
            b->record.pinStart = now;
            r.consumer = Consumer::Pinning;
            startWork(fillOf(r.pinnedUsed++ < m_poolBuffers, b->samples),
                      m_costs.pin.at(b->samples), {kConsumerPin, r.rank, 0, tag.ordinal, 0});
            break;
        }
        [[fallthrough]];
    case kConsumerPin:
        if (m_setting.pinMemory)
            b->record.pinEnd = now;
        b->record.request = r.request;
        b->record.delivery = now;
        r.deliveredFlags[static_cast<std::size_t>(tag.ordinal)] = 1;
        ++r.delivered;
        startCopyOrStep(r);
        break;
    case kHandoff:
        deliver(r);
        break;
    case kCopy:
        b->record.copyEnd = now;
        startStep(r);
        break;
    case kStep:
        stepEnded(r);
        break;
    case kRecorded:
        askAgain(r);
        break;
    case kExchanged:
        r.consumer = Consumer::Asking;
        r.request = now;
        break;
    default:
        throw std::logic_error("the loader model met an unknown activity");
    }
}

} // namespace loaderlab
