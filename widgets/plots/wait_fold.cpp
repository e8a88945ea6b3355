#include "widgets/plots/wait_fold.h"

#include "core/stats/run_summary.h"
#include "core/trace/trace_log.h"
#include "widgets/plots/plot_units.h"

#include <algorithm>
#include <utility>

namespace loaderlab {

namespace {

using plotunits::kNsPerMs;

// One record of `log`, copied (the log may be read from any thread this way).
TraceRecord recordAt(const TraceLog &log, std::size_t i)
{
    const std::vector<TraceRecord> one = log.records(i, i + 1);
    return one.empty() ? TraceRecord{} : one.front();
}

} // namespace

int WaitFold::roundOf(int workers, int ranks)
{
    return std::max(workers, 1) * std::max(ranks, 1);
}

int WaitFold::roundsKeptFor(int round)
{
    const auto perPosition = kMaxWaits / static_cast<std::size_t>(std::max(round, 1));
    return static_cast<int>(std::clamp<std::size_t>(perPosition, 1, kRounds));
}

void WaitFold::setRounds(std::vector<int> workersByVersion, int ranks, int fallbackWorkers)
{
    m_workersByVersion = std::move(workersByVersion);
    m_ranks = std::max(ranks, 1);
    m_fallbackWorkers = fallbackWorkers;
}

int WaitFold::roundOfVersion(std::int32_t version) const
{
    const bool known = version >= 0
                       && static_cast<std::size_t>(version) < m_workersByVersion.size();
    return roundOf(
        known ? m_workersByVersion[static_cast<std::size_t>(version)] : m_fallbackWorkers, m_ranks);
}

void WaitFold::clear()
{
    m_round = 0;
    m_roundsKept = 0;
    m_version = 0;
    m_epoch = 0;
    m_epochNumber = 0;
    m_epochStart = 0;
    m_ring.clear();
    m_next = 0;
    m_held = 0;
    m_dirty = false;
    m_aligned.clear();
    m_positions.clear();
}

void WaitFold::begin(std::int32_t version, std::int32_t epoch, std::int64_t firstIndex)
{
    clear();
    m_round = roundOfVersion(version);
    m_roundsKept = roundsKeptFor(m_round);
    m_version = version;
    m_epoch = epoch;
    m_epochStart = firstIndex;
    m_ring.resize(static_cast<std::size_t>(m_roundsKept) * static_cast<std::size_t>(m_round));
    m_aligned.resize(static_cast<std::size_t>(m_round));
    m_positions.resize(static_cast<std::size_t>(m_round));
}

void WaitFold::add(const TraceRecord &r)
{
    if (m_round == 0 || r.configVersion > m_version)
        begin(r.configVersion, r.epoch, r.index);
    else if (r.configVersion < m_version)
        return; // a batch another rank took just before the change
    else if (r.epoch > m_epoch) {
        m_epoch = r.epoch;
        ++m_epochNumber;
        m_epochStart = r.index;
    }
    const std::int64_t offset = (r.index - m_epochStart) % m_round;
    const auto position = static_cast<std::int32_t>(offset < 0 ? offset + m_round : offset);
    m_ring[m_next] = {static_cast<double>(r.waitNs()) / kNsPerMs, position, r.worker,
                      m_epochNumber};
    m_next = (m_next + 1) % m_ring.size();
    m_held = std::min(m_held + 1, m_ring.size());
    m_dirty = true;
}

void WaitFold::foldTail(const TraceLog &log, int fallbackWorkers)
{
    clear();
    setRounds(log.workersByVersion(), log.ranks(), fallbackWorkers);
    const std::size_t end = log.size();
    std::size_t low = log.firstKept();
    if (end <= low)
        return;
    // Only the newest version's last rounds are kept: read those, not the whole log.
    const std::int32_t version = recordAt(log, end - 1).configVersion;
    std::size_t high = end - 1;
    while (low < high) { // the version's first batch
        const std::size_t mid = low + (high - low) / 2;
        if (recordAt(log, mid).configVersion < version)
            low = mid + 1;
        else
            high = mid;
    }
    const int round = roundOfVersion(version);
    const auto keep = static_cast<std::size_t>(roundsKeptFor(round))
                      * static_cast<std::size_t>(round);
    for (const TraceRecord &r : log.records(std::max(low, end > keep ? end - keep : 0), end))
        add(r);
    summarise();
}

const WaitFold::Wait &WaitFold::oldest(std::size_t k) const
{
    const std::size_t first = m_held < m_ring.size() ? 0 : m_next;
    return m_ring[(first + k) % m_ring.size()];
}

int WaitFold::rotationOf(std::size_t from, std::size_t to) const
{
    std::vector<std::vector<double>> byPosition(static_cast<std::size_t>(m_round));
    for (std::size_t k = from; k < to; ++k)
        byPosition[static_cast<std::size_t>(oldest(k).position)].push_back(oldest(k).ms);
    std::vector<double> medians;
    for (std::vector<double> &waits : byPosition) {
        if (!waits.empty())
            medians.push_back(percentile(waits, 50.0));
    }
    if (medians.size() < 2)
        return 0;
    int slowest = 0;
    double slowestMs = -1.0;
    for (std::size_t p = 0, m = 0; p < byPosition.size(); ++p) {
        if (byPosition[p].empty())
            continue;
        if (medians[m] > slowestMs) {
            slowestMs = medians[m];
            slowest = static_cast<int>(p);
        }
        ++m;
    }
    medians.erase(std::find(medians.begin(), medians.end(), slowestMs));
    const double others = percentile(medians, 50.0);
    return slowestMs >= 2.0 * others + kStandsOutMs ? slowest : 0;
}

void WaitFold::summarise()
{
    if (!m_dirty)
        return;
    m_dirty = false;
    for (std::vector<double> &waits : m_aligned)
        waits.clear();
    std::vector<std::int32_t> lastWorker(m_aligned.size(), 0);
    // Epochs are contiguous in the ring: each is turned by its own rotation.
    for (std::size_t from = 0; from < m_held;) {
        std::size_t to = from + 1;
        while (to < m_held && oldest(to).epoch == oldest(from).epoch)
            ++to;
        const int rotation = rotationOf(from, to);
        for (std::size_t k = from; k < to; ++k) {
            const Wait &w = oldest(k);
            const auto p = static_cast<std::size_t>((w.position - rotation + m_round) % m_round);
            m_aligned[p].push_back(w.ms);
            lastWorker[p] = w.worker;
        }
        from = to;
    }
    for (std::size_t p = 0; p < m_aligned.size(); ++p) {
        const std::vector<double> &values = m_aligned[p];
        m_positions[p] = {percentile(values, 50.0), percentile(values, 90.0),
                          static_cast<int>(values.size()), lastWorker[p]};
    }
}

} // namespace loaderlab
