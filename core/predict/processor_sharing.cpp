#include "core/predict/processor_sharing.h"

#include "core/predict/core_sharing.h"

#include <algorithm>
#include <limits>

namespace loaderlab {

ProcessorSharingClock::ProcessorSharingClock(double cores, double faultLanes, double otherLoad,
                                             int ranksPerHost)
    : m_cores(std::max(kLeastCores, cores))
    , m_faultLanes(std::max(0.0, faultLanes))
    , m_otherLoad(std::max(0.0, otherLoad))
    , m_ranksPerHost(std::max(0, ranksPerHost))
{
}

double ProcessorSharingClock::rate(int host) const
{
    const auto h = static_cast<std::size_t>(host);
    return coreShares(m_cores, h < m_hosts.size() ? m_hosts[h].weight : 0.0, m_otherLoad).run;
}

double ProcessorSharingClock::faultShare(int host) const
{
    const auto h = static_cast<std::size_t>(host);
    const double faulting = h < m_hosts.size() ? m_hosts[h].faulting : 0.0;
    return m_faultLanes > 0.0 && faulting > m_faultLanes ? m_faultLanes / faulting : 1.0;
}

void ProcessorSharingClock::addActivity(Activity a)
{
    a.order = m_started++;
    a.host = m_ranksPerHost > 0 ? static_cast<std::size_t>(std::max(0, a.tag.rank) / m_ranksPerHost)
                                : 0;
    if (a.host >= m_hosts.size())
        m_hosts.resize(a.host + 1);
    m_active.push_back(a);
    sumWeights();
}

void ProcessorSharingClock::sumWeights()
{
    // Summed again rather than updated, so rounding never leaves a weight behind.
    for (Host &h : m_hosts)
        h = Host{};
    for (const Activity &a : m_active) {
        if (a.faulting)
            m_hosts[a.host].faulting += 1.0;
        else if (a.cpu)
            m_hosts[a.host].weight += a.weight;
    }
    for (Host &h : m_hosts)
        h.weight += m_faultLanes > 0.0 ? std::min(h.faulting, m_faultLanes) : h.faulting;
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
    std::vector<double> plain(m_hosts.size());
    std::vector<double> faulting(m_hosts.size());
    for (std::size_t h = 0; h < m_hosts.size(); ++h) {
        plain[h] = rate(static_cast<int>(h));
        faulting[h] = plain[h] * faultShare(static_cast<int>(h));
    }
    const auto speedOf = [&](const Activity &a) {
        return a.faulting ? faulting[a.host] : plain[a.host];
    };
    // Wall seconds from now to an activity's end.
    const auto leftOf = [&](const Activity &a) {
        return a.cpu ? a.remaining / speedOf(a) : a.end - m_now;
    };
    // The next end: the first delay's end or the CPU activity with the least time left.
    double step = std::numeric_limits<double>::infinity();
    for (const Activity &a : m_active)
        step = std::min(step, leftOf(a));
    step = std::max(0.0, step);
    const double next = m_now + step;
    // Activities whose ends rounding alone keeps apart end together: within
    // kSimultaneousSeconds, or, once the time is large, within a few units in the last
    // place of `next` (at 36,000 s one is 7e-12 s: an hour's steps must not stall).
    const double together = std::max(kSimultaneousSeconds,
                                     kUlpsTogether * std::numeric_limits<double>::epsilon() * next);
    std::vector<ActivityTag> ended;
    std::vector<Activity> going;
    going.reserve(m_active.size());
    for (Activity &a : m_active) {
        // The activity that sets `step` always ends (its left - step is 0), so time
        // never stands still while something is active.
        if (leftOf(a) - step <= together) {
            ended.push_back(a.tag);
            continue;
        }
        if (a.cpu)
            a.remaining = std::max(0.0, a.remaining - step * speedOf(a));
        going.push_back(a);
    }
    m_now = next;
    m_active = std::move(going);
    sumWeights();
    return ended;
}

} // namespace loaderlab
