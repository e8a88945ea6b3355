#include "core/predict/processor_sharing.h"

#include <algorithm>
#include <limits>

namespace loaderlab {

ProcessorSharingClock::ProcessorSharingClock(int cores)
    : m_cores(std::max(1, cores))
{
}

double ProcessorSharingClock::rate() const
{
    return m_weight <= m_cores ? 1.0 : m_cores / m_weight;
}

void ProcessorSharingClock::startWork(double workSeconds, double weight, ActivityTag tag)
{
    Activity a;
    a.order = m_started++;
    a.cpu = true;
    a.weight = weight;
    a.remaining = std::max(0.0, workSeconds);
    a.tag = tag;
    m_weight += weight;
    m_active.push_back(a);
}

void ProcessorSharingClock::startDelay(double seconds, ActivityTag tag)
{
    Activity a;
    a.order = m_started++;
    a.end = m_now + std::max(0.0, seconds);
    a.tag = tag;
    m_active.push_back(a);
}

std::vector<ActivityTag> ProcessorSharingClock::advance()
{
    if (m_active.empty())
        return {};
    const double speed = rate();
    // The next end: the first delay's end or the CPU activity with the least work left.
    double next = std::numeric_limits<double>::infinity();
    for (const Activity &a : m_active)
        next = std::min(next, a.cpu ? m_now + a.remaining / speed : a.end);
    const double elapsed = next - m_now;
    m_now = next;
    std::vector<ActivityTag> ended;
    std::vector<Activity> going;
    going.reserve(m_active.size());
    for (Activity &a : m_active) {
        bool ends = false;
        if (a.cpu) {
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
    // Summed again rather than decremented, so rounding never leaves a weight behind.
    m_weight = 0.0;
    for (const Activity &a : m_active)
        m_weight += a.cpu ? a.weight : 0.0;
    return ended;
}

} // namespace loaderlab
