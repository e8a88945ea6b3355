#pragma once

// StepBarrier: the data-parallel ranks' per-step synchronisation, as the gradient
// all-reduce of distributed training makes every rank wait for the slowest. Unlike
// std::barrier a wait ends early on a stop request, and a rank that ends (its epochs
// done, a failure) drops out so the others never wait for it.
//
// It also decides whether the ranks may start a collective (the gradient exchange)
// after the wait: only when every rank of the run arrived (Complete). A collective
// cannot be left halfway, so the decision is made once, under the barrier's lock: a
// wait that a stop ends before every rank arrived breaks the barrier, and every later
// arrival returns Stopped too, so no rank ever enters a collective its peers skip.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stop_token>

namespace loaderlab {

enum class StepSync {
    Complete, // every rank of the run arrived: a collective may start
    Partial,  // the ranks still in arrived, but a rank has dropped out: no collective
    Stopped,  // a stop ended the wait (or an earlier one): leave the step
};

class StepBarrier
{
public:
    // `parties` 0 or 1: every call returns Complete at once.
    explicit StepBarrier(int parties)
        : m_parties(parties)
    {
    }

    // Waits until every party still in has arrived.
    StepSync arriveAndWait(std::stop_token stop)
    {
        std::unique_lock lock(m_mutex);
        if (m_parties <= 1 && !m_dropped)
            return StepSync::Complete;
        if (m_broken)
            return StepSync::Stopped;
        const std::uint64_t generation = m_generation;
        if (++m_arrived >= m_parties) {
            release();
            return m_dropped ? StepSync::Partial : StepSync::Complete;
        }
        if (m_cv.wait(lock, stop, [&] { return m_generation != generation; }))
            return m_releasedWhole ? StepSync::Complete : StepSync::Partial;
        // Stopped before the last rank arrived: nobody passes this step any more.
        m_broken = true;
        --m_arrived;
        return StepSync::Stopped;
    }

    // The calling party leaves for good; the others no longer wait for it.
    void drop()
    {
        std::lock_guard lock(m_mutex);
        if (m_parties <= 0)
            return;
        --m_parties;
        m_dropped = true;
        if (m_arrived > 0 && m_arrived >= m_parties)
            release();
    }

private:
    void release()
    {
        m_releasedWhole = !m_dropped;
        m_arrived = 0;
        ++m_generation;
        m_cv.notify_all();
    }

    std::mutex m_mutex;
    std::condition_variable_any m_cv;
    int m_parties;
    int m_arrived = 0;
    std::uint64_t m_generation = 0;
    bool m_dropped = false;       // a party has left: no step is whole any more
    bool m_broken = false;        // a stop ended a wait before its step was whole
    bool m_releasedWhole = false; // the last release had every party of the run
};

} // namespace loaderlab
