#include "core/predict/contention_profile.h"

#include "core/predict/core_sharing.h"

#include <algorithm>
#include <map>

namespace loaderlab {

ContentionProfile::ContentionProfile(int cores, double loaders)
    : m_cores(std::max(1, cores))
    , m_loaders(std::max(1.0, loaders))
{
}

void ContentionProfile::addBusy(std::int64_t startNs, std::int64_t endNs, double threads)
{
    if (endNs <= startNs || threads <= 0.0)
        return;
    m_changes.push_back({startNs, threads, false});
    m_changes.push_back({endNs, -threads, false});
}

void ContentionProfile::addLoad(std::int64_t startNs, std::int64_t endNs, double threads)
{
    if (endNs <= startNs || threads <= 0.0)
        return;
    m_changes.push_back({startNs, threads, true});
    m_changes.push_back({endNs, -threads, true});
}

void ContentionProfile::finish()
{
    std::sort(m_changes.begin(), m_changes.end(),
              [](const Change &a, const Change &b) { return a.time < b.time; });
    m_times.clear();
    m_threads.clear();
    double loading = 0.0, other = 0.0, busy = 0.0, busyTime = 0.0, weighted = 0.0;
    for (std::size_t i = 0; i < m_changes.size();) {
        const std::int64_t t = m_changes[i].time;
        if (!m_times.empty() && busy > 1e-9) {
            const double span = static_cast<double>(t - m_times.back()) / 1e9;
            busyTime += span;
            weighted += span * busy;
        }
        for (; i < m_changes.size() && m_changes[i].time == t; ++i)
            (m_changes[i].load ? loading : other) += m_changes[i].threads;
        busy = std::min(loading, m_loaders) + other;
        m_times.push_back(t);
        // Rounding of fractional thread counts must not leave a phantom thread.
        m_threads.push_back(busy > 1e-9 ? busy : 0.0);
    }
    m_meanBusy = busyTime > 0.0 ? weighted / busyTime : 0.0;
    std::map<double, double> timeAt;
    for (std::size_t i = 0; i + 1 < m_times.size(); ++i)
        timeAt[m_threads[i]] += static_cast<double>(m_times[i + 1] - m_times[i]) / 1e9;
    m_timeAt.assign(timeAt.begin(), timeAt.end());
    computeRates();
}

void ContentionProfile::shareMachine(double cores, double otherLoad)
{
    m_cores = std::max(kLeastCores, cores);
    m_other = std::max(0.0, otherLoad);
    computeRates();
}

void ContentionProfile::computeRates()
{
    m_rates.clear();
    m_prefix.clear();
    for (std::size_t i = 0; i < m_times.size(); ++i) {
        if (i == 0) {
            m_prefix.push_back(0.0);
        } else {
            const double span = static_cast<double>(m_times[i] - m_times[i - 1]) / 1e9;
            m_prefix.push_back(m_prefix.back() + span * m_rates.back());
        }
        // A stretch where none of the run's threads is busy has no rate to speak of.
        m_rates.push_back(m_threads[i] > 0.0 ? coreShares(m_cores, m_threads[i], m_other).run
                                             : 1.0);
    }
}

double ContentionProfile::otherBusyCores(double cores, double otherLoad) const
{
    if (m_timeAt.empty() || otherLoad <= 0.0)
        return 0.0;
    const double c = std::max(kLeastCores, cores);
    double sum = 0.0, all = 0.0;
    for (const auto &[threads, seconds] : m_timeAt) {
        sum += seconds * otherLoad * coreShares(c, threads, otherLoad).other;
        all += seconds;
    }
    return all > 0.0 ? sum / all : 0.0;
}

double ContentionProfile::integral(std::int64_t t) const
{
    if (m_times.empty() || t <= m_times.front())
        return 0.0;
    const auto it = std::upper_bound(m_times.begin(), m_times.end(), t);
    const auto i = static_cast<std::size_t>(it - m_times.begin()) - 1;
    return m_prefix[i] + static_cast<double>(t - m_times[i]) / 1e9 * m_rates[i];
}

double ContentionProfile::workSeconds(std::int64_t startNs, std::int64_t endNs) const
{
    if (endNs <= startNs)
        return 0.0;
    return integral(endNs) - integral(startNs);
}

} // namespace loaderlab
