#include "widgets/session/refresh_governor.h"

#include "core/system/clock.h"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <string>

namespace loaderlab {

namespace {

std::int64_t threadCpuNs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Idle and total jiffies of all CPUs, from the first line of /proc/stat.
bool machineTicks(std::uint64_t &idle, std::uint64_t &total)
{
    std::ifstream in("/proc/stat");
    std::string cpu;
    std::uint64_t user = 0, nice = 0, system = 0, idleTicks = 0, iowait = 0, irq = 0, softirq = 0,
                  steal = 0;
    if (!(in >> cpu >> user >> nice >> system >> idleTicks >> iowait >> irq >> softirq >> steal))
        return false;
    idle = idleTicks + iowait;
    total = user + nice + system + idleTicks + iowait + irq + softirq + steal;
    return true;
}

} // namespace

bool RefreshGovernor::shouldRefresh()
{
    const std::int64_t now = loaderlab::steadyNowNs();
    if (now - m_lastSampleNs >= 1'000'000'000)
        sample(now);
    // A little slack so a 33 ms timer is not skipped for arriving 1 ms early.
    if (now - m_lastRefreshNs < m_intervalNs - 5'000'000)
        return false;
    m_lastRefreshNs = now;
    return true;
}

void RefreshGovernor::sample(std::int64_t now)
{
    const std::int64_t cpu = threadCpuNs();
    std::uint64_t idle = 0;
    std::uint64_t total = 0;
    const bool haveTicks = machineTicks(idle, total);
    if (m_lastSampleNs != 0 && haveTicks && total > m_lastTotalTicks) {
        const double threadShare = static_cast<double>(cpu - m_lastThreadCpuNs)
                                   / static_cast<double>(now - m_lastSampleNs);
        const double machineIdle = static_cast<double>(idle - m_lastIdleTicks)
                                   / static_cast<double>(total - m_lastTotalTicks);
        adapt(threadShare, machineIdle);
    }
    m_lastSampleNs = now;
    m_lastThreadCpuNs = cpu;
    m_lastIdleTicks = idle;
    m_lastTotalTicks = total;
}

void RefreshGovernor::adapt(double threadShare, double machineIdle)
{
    if (machineIdle < 0.05 && threadShare > kBudget) {
        // Saturated and over budget: stretch in proportion to the overshoot.
        const double factor = std::min(threadShare / kBudget, 4.0);
        m_intervalNs = std::min(kMaxIntervalNs, static_cast<std::int64_t>(m_intervalNs * factor));
    } else if (machineIdle > 0.15) {
        m_intervalNs = std::max(kMinIntervalNs, m_intervalNs / 2);
    }
}

} // namespace loaderlab
