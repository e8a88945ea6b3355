#pragma once

// RefreshGovernor: decides whether a refresh tick should redraw. The window aims
// for ~30 Hz, but when the machine has no idle CPU left (the engine saturates every
// core) each frame would take time from the engine. Then the governor stretches the
// interval until the window's own thread uses at most `budget` of one core (never
// below 2 frames per second), and returns to 30 Hz once the CPU has room again.

#include <cstdint>

namespace loaderlab {

class RefreshGovernor
{
public:
    static constexpr std::int64_t kMinIntervalNs = 33'000'000;  // ~30 Hz
    static constexpr std::int64_t kMaxIntervalNs = 500'000'000; // 2 Hz
    static constexpr double kBudget = 0.03;                     // of one core

    // True when the caller should redraw now. Call on every timer tick.
    bool shouldRefresh();

    std::int64_t intervalNs() const { return m_intervalNs; }

    // Feeds one measurement instead of reading the clocks (for tests): the window
    // thread's CPU share of one core and the machine's idle share over the last period.
    void adapt(double threadShare, double machineIdle);

private:
    void sample(std::int64_t now);

    std::int64_t m_intervalNs = kMinIntervalNs;
    std::int64_t m_lastRefreshNs = 0;
    std::int64_t m_lastSampleNs = 0;
    std::int64_t m_lastThreadCpuNs = 0;
    std::uint64_t m_lastIdleTicks = 0;
    std::uint64_t m_lastTotalTicks = 0;
};

} // namespace loaderlab
