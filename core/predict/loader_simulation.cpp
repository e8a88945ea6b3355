#include "core/predict/loader_simulation.h"

#include "core/predict/cost_deck.h"
#include "core/stats/wait_pattern.h"
#include "core/system/splitmix64.h"

#include <algorithm>
#include <stdexcept>

namespace loaderlab {
namespace {

// What a clock activity is, in ActivityTag::kind.
enum SimActivity : int {
    kWorkersStarted, // delay: the rank's workers (re)starting
    kWorkerTakes,    // delay: a per-worker worker taking its next task
    kWorkerBatch,    // CPU: a per-worker batch, its samples and its collate
    kWorkerSlot,     // CPU: one sample of a sample-parallel batch
    kWorkerCollate,  // CPU: the collate of a sample-parallel batch, by its last worker
    kPinThread,      // CPU: the pin thread copying a batch into pinned memory
    kConsumerLoad,   // CPU: W = 0, the consumer loading its batch
    kConsumerPin,    // CPU: W = 0, the consumer pinning it
    kHandoff,        // delay: a ready batch handed to the waiting consumer
    kCopy,           // delay: host-to-device copy
    kStep,           // CPU (consumer threads) or delay: the step
    kRecorded,       // delay: the consumer's work after the step
    kExchanged,      // delay: the gradient all-reduce after the step's barrier
};

} // namespace

LoaderSimulation::LoaderSimulation(const ModelCosts &costs, const ModelSetting &setting)
    : m_costs(costs)
    , m_setting(setting)
    , m_clock(setting.cores - setting.outsideCores, costs.faultLanes, setting.otherLoad)
{
    // With W = 0 the consumer's batch goes back to the pool before it builds the next;
    // with workers, W x prefetch batches are in flight when the consumer, holding none,
    // takes one and dispatches the next (core/loader/loader.cpp).
    m_poolBuffers = loaderFirstFillBatches(setting.workers, setting.prefetchFactor);
    // Each rank's share of an epoch, as DistributedSampler pads it: ceil(n / N).
    const std::int64_t n = setting.samplesPerEpoch;
    const std::int64_t ranks = setting.devices;
    m_samplesPerRankEpoch = (n + ranks - 1) / ranks;
    m_ranks.resize(static_cast<std::size_t>(setting.devices));
    for (int r = 0; r < setting.devices; ++r)
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

void LoaderSimulation::consumerAsks(Rank &r)
{
    if (r.consumer != Consumer::Asking)
        return;
    if (r.delivered >= r.batchesInEpoch) {
        // The epoch is over: the next one begins when the consumer asks again.
        if (m_setting.epochs > 0 && r.epoch + 1 >= m_setting.epochs) {
            r.consumer = Consumer::Done;
            return;
        }
        beginEpoch(r, r.epoch + 1);
    }
    const double now = m_clock.now();
    if (m_setting.workers == 0) {
        // The consumer builds the batch itself when it asks for it.
        const std::int64_t ordinal = r.nextDispatch++;
        BatchState &b = r.batches[static_cast<std::size_t>(ordinal)];
        b.record.dispatch = now;
        b.record.loadStart = now;
        b.record.worker = kConsumerThread;
        b.freshBuffer = r.buffersUsed++ < m_poolBuffers;
        r.current = ordinal;
        r.consumer = Consumer::Loading;
        startWork(fillOf(b.freshBuffer, b.samples),
                  loadWork(r, ordinal) + m_costs.collate.at(b.samples),
                  {kConsumerLoad, r.rank, 0, ordinal, 0});
        return;
    }
    if (r.ready.empty())
        return;
    if (m_setting.inOrder) {
        if (const auto it = r.ready.find(r.nextInOrder); it != r.ready.end())
            take(r, it->first, it->second);
        return;
    }
    // Out of order: whichever batch became ready first.
    auto first = r.ready.begin();
    for (auto it = r.ready.begin(); it != r.ready.end(); ++it) {
        if (it->second < first->second)
            first = it;
    }
    take(r, first->first, first->second);
}

void LoaderSimulation::take(Rank &r, std::int64_t ordinal, double readyTime)
{
    r.ready.erase(ordinal);
    r.deliveredFlags[static_cast<std::size_t>(ordinal)] = 1;
    ++r.delivered;
    while (r.nextInOrder < r.batchesInEpoch
           && r.deliveredFlags[static_cast<std::size_t>(r.nextInOrder)])
        ++r.nextInOrder;
    r.current = ordinal;
    const BatchState &b = r.batches[static_cast<std::size_t>(ordinal)];
    const double handoff = m_costs.handoff.at(b.samples);
    // A consumer that waited for the batch is woken; one that found it there takes it.
    if (readyTime > r.request && handoff > 0.0) {
        r.consumer = Consumer::Handing;
        m_clock.startDelay(handoff, {kHandoff, r.rank, 0, ordinal, 0});
        return;
    }
    deliver(r);
}

void LoaderSimulation::deliver(Rank &r)
{
    BatchState &b = r.batches[static_cast<std::size_t>(r.current)];
    b.record.request = r.request;
    b.record.delivery = m_clock.now();
    // One more batch goes out before this one is handed over (PyTorch's _try_put_index).
    if (r.nextDispatch < r.batchesInEpoch)
        dispatchOne(r);
    startCopyOrStep(r);
}

void LoaderSimulation::startCopyOrStep(Rank &r)
{
    BatchState &b = r.batches[static_cast<std::size_t>(r.current)];
    const double copy = m_costs.copy.at(b.samples);
    if (copy > 0.0) {
        r.consumer = Consumer::Copying;
        m_clock.startDelay(copy, {kCopy, r.rank, 0, r.current, 0});
        return;
    }
    b.record.copyEnd = b.record.delivery;
    startStep(r);
}

void LoaderSimulation::startStep(Rank &r)
{
    BatchState &b = r.batches[static_cast<std::size_t>(r.current)];
    b.record.computeStart = m_clock.now();
    r.consumer = Consumer::Stepping;
    const double step = m_costs.step.at(b.samples);
    const ActivityTag tag{kStep, r.rank, 0, r.current, 0};
    if (m_costs.consumerThreads > 0.0)
        m_clock.startWork(step, m_costs.consumerThreads, tag);
    else
        m_clock.startDelay(step, tag);
}

void LoaderSimulation::stepEnded(Rank &r)
{
    BatchState &b = r.batches[static_cast<std::size_t>(r.current)];
    b.record.computeEnd = m_clock.now();
    b.record.index = static_cast<std::int64_t>(m_out.size());
    m_out.push_back(b.record);
    if (m_setting.batches > 0 && static_cast<std::int64_t>(m_out.size()) >= m_setting.batches) {
        m_limitReached = true;
        return;
    }
    if (m_costs.afterStepSeconds > 0.0) {
        r.consumer = Consumer::Recording;
        m_clock.startDelay(m_costs.afterStepSeconds, {kRecorded, r.rank, 0, r.current, 0});
        return;
    }
    askAgain(r);
}

void LoaderSimulation::askAgain(Rank &r)
{
    const bool barrier = m_setting.syncDevices && m_setting.devices > 1;
    if (!barrier) {
        r.consumer = Consumer::Asking;
        r.request = m_clock.now();
        return;
    }
    // The step's barrier: every rank asks again when the last one has ended its step.
    r.consumer = Consumer::AtBarrier;
    ++m_atBarrier;
    const auto waiting = std::count_if(m_ranks.begin(), m_ranks.end(),
                                       [](const Rank &x) { return x.consumer != Consumer::Done; });
    if (m_atBarrier < waiting)
        return;
    m_atBarrier = 0;
    // Then the gradient all-reduce among the ranks still running, each waiting for it.
    const double exchange =
        ringAllreduceSeconds(m_costs.network, m_costs.gradientBytes, static_cast<int>(waiting),
                             m_setting.cores - m_setting.outsideCores);
    for (Rank &x : m_ranks) {
        if (x.consumer != Consumer::AtBarrier)
            continue;
        if (exchange > 0.0) {
            x.consumer = Consumer::Exchanging;
            m_clock.startDelay(exchange, {kExchanged, x.rank, 0, x.current, 0});
        } else {
            x.consumer = Consumer::Asking;
            x.request = m_clock.now();
        }
    }
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
