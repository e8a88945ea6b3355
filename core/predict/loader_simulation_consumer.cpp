// LoaderSimulation, the consumer's side of each rank: asking for a batch, taking it,
// the copy and the step, and the barrier and gradient exchange of synchronised ranks.

#include "core/predict/loader_simulation.h"

#include "core/predict/loader_simulation_activities.h"

#include <algorithm>

namespace loaderlab {

using namespace simactivity;

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
    const bool barrier = m_setting.syncDevices && m_setting.ranks() > 1;
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
    // Then the gradient all-reduce among the ranks still running, each waiting for it:
    // on one node a ring, across nodes in two levels (the running ranks taken to fill
    // whole nodes).
    const int running = static_cast<int>(waiting);
    const int perNode = std::min(running, m_setting.devices);
    const double exchange = hierarchicalAllreduceSeconds(
        m_costs.network, m_costs.betweenNodes, m_costs.gradientBytes, perNode,
        (running + perNode - 1) / perNode, m_setting.cores - m_setting.outsideCores);
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

} // namespace loaderlab
