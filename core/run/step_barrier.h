#pragma once

// StepBarrier: the data-parallel ranks' per-step synchronisation, as the gradient
// all-reduce of distributed training makes every rank wait for the slowest. Unlike
// std::barrier a wait ends early on a stop request, and a rank that ends (its epochs
// done, a failure) drops out so the others never wait for it.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stop_token>

namespace loaderlab {

class StepBarrier
{
public:
    // `parties` 0 or 1: every call returns at once.
    explicit StepBarrier(int parties)
        : m_parties(parties)
    {
    }

    // Waits until every party still in has arrived; false when `stop` ends the wait.
    bool arriveAndWait(std::stop_token stop)
    {
        std::unique_lock lock(m_mutex);
        if (m_parties <= 1)
            return true;
        const std::uint64_t generation = m_generation;
        if (++m_arrived >= m_parties) {
            release();
            return true;
        }
        return m_cv.wait(lock, stop, [&] { return m_generation != generation; });
    }

    // The calling party leaves for good; the others no longer wait for it.
    void drop()
    {
        std::lock_guard lock(m_mutex);
        if (m_parties <= 0)
            return;
        --m_parties;
        if (m_arrived > 0 && m_arrived >= m_parties)
            release();
    }

private:
    void release()
    {
        m_arrived = 0;
        ++m_generation;
        m_cv.notify_all();
    }

    std::mutex m_mutex;
    std::condition_variable_any m_cv;
    int m_parties;
    int m_arrived = 0;
    std::uint64_t m_generation = 0;
};

} // namespace loaderlab
