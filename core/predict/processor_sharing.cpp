#include "core/predict/processor_sharing.h"

#include <algorithm>
#include <limits>

namespace loaderlab {

ProcessorSharingClock::ProcessorSharingClock(int cores, double faultLanes)
    : m_cores(std::max(1, cores))
    , m_faultLanes(std::max(0.0, faultLanes))
{
}

double ProcessorSharingClock::rate() const
{
    return m_weight <= m_cores ? 1.0 : m_cores / m_weight;
}

double ProcessorSharingClock::faultShare() const
{
    return m_faultLanes > 0.0 && m_faulting > m_faultLanes ? m_faultLanes / m_faulting : 1.0;
}

void ProcessorSharingClock::addActivity(Activity a)
{
    a.order = m_started++;
    m_active.push_back(a);
    sumWeights();
}

void ProcessorSharingClock::sumWeights()
{
    // Summed again rather than updated, so rounding never leaves a weight behind.
    m_weight = 0.0;
    m_faulting = 0.0;
    for (const Activity &a : m_active) {
        if (a.faulting)
            m_faulting += 1.0;
        else if (a.cpu)
            m_weight += a.weight;
    }
    m_weight += m_faultLanes > 0.0 ? std::min(m_faulting, m_faultLanes) : m_faulting;
}

void ProcessorSharingClock::startWork(double workSeconds, double weight, ActivityTag tag)
{
    Activity a;
    a.cpu = true;
    a.weight = weight;
    a.remaining = std::max(0.0, workSeconds);
    a.tag = tag;
    addActivity(a);
}

void ProcessorSharingClock::startFaultingWork(double workSeconds, ActivityTag tag)
{
    Activity a;
    a.cpu = true;
    a.faulting = true;
    a.weight = 1.0;
    a.remaining = std::max(0.0, workSeconds);
    a.tag = tag;
    addActivity(a);
}

void ProcessorSharingClock::startDelay(double seconds, ActivityTag tag)
{
    Activity a;
    a.end = m_now + std::max(0.0, seconds);
    a.tag = tag;
    addActivity(a);
}

std::vector<ActivityTag> ProcessorSharingClock::advance()
{
    if (m_active.empty())
        return {};
    const double plain = rate();
    const double faulting = plain * faultShare();
    const auto speedOf = [&](const Activity &a) { return a.faulting ? faulting : plain; };
    // The next end: the first delay's end or the CPU activity with the least time left.
    double next = std::numeric_limits<double>::infinity();
    for (const Activity &a : m_active)
        next = std::min(next, a.cpu ? m_now + a.remaining / speedOf(a) : a.end);
    const double elapsed = next - m_now;
    m_now = next;
    std::vector<ActivityTag> ended;
    std::vector<Activity> going;
    going.reserve(m_active.size());
    for (Activity &a : m_active) {
        bool ends = false;
        if (a.cpu) {
            const double speed = speedOf(a);
            a.remaining -= elapsed * speed;
            ends = a.remaining / speed <= kSimultaneousSeconds;
        } else {
            ends = a.end - m_now <= kSimultaneousSeconds;
        }
        if (ends)
            ended.push_back(a.tag);
        else
            going.push_back(a);
    }
    m_active = std::move(going);
    sumWeights();
    return ended;
}

} // namespace loaderlab
