#include "core/autotune/autotune_search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace loaderlab {

AutotuneSearch::AutotuneSearch(AutotuneSettings start, AutotuneLimits limits)
    : m_limits(limits)
    , m_incumbent(start)
    , m_next(start)
{
    m_limits.maxWorkers = std::max(1, m_limits.maxWorkers);
    m_incumbent.workers = std::clamp(m_incumbent.workers, 0, m_limits.maxWorkers);
    m_next = m_incumbent; // the first window measures where the run is
}

std::vector<AutotuneSettings> AutotuneSearch::neighbours() const
{
    std::vector<AutotuneSettings> out;
    const AutotuneSettings &c = m_incumbent;
    if (c.workers + 1 <= m_limits.maxWorkers)
        out.push_back({c.workers + 1, c.prefetch, c.batchSize});
    if (c.workers > 1)
        out.push_back({c.workers - 1, c.prefetch, c.batchSize});
    if (c.workers > 0) {
        if (c.prefetch * 2 <= m_limits.maxPrefetch)
            out.push_back({c.workers, c.prefetch * 2, c.batchSize});
        if (c.prefetch > 1)
            out.push_back({c.workers, c.prefetch / 2, c.batchSize});
    }
    if (m_limits.tuneBatch) {
        if (c.batchSize * 2 <= m_limits.maxBatch)
            out.push_back({c.workers, c.prefetch, c.batchSize * 2});
        if (c.batchSize / 2 >= m_limits.minBatch)
            out.push_back({c.workers, c.prefetch, c.batchSize / 2});
    }
    if (m_movedFrom) {
        // The change that paid last, once more, first; the way back last.
        const AutotuneSettings &from = *m_movedFrom;
        const auto sign = [](int d) { return (d > 0) - (d < 0); };
        const auto continues = [&](const AutotuneSettings &n) {
            const int dw = sign(n.workers - c.workers), dp = sign(n.prefetch - c.prefetch),
                      db = sign(n.batchSize - c.batchSize);
            return (dw != 0 && dw == sign(c.workers - from.workers))
                   || (dp != 0 && dp == sign(c.prefetch - from.prefetch))
                   || (db != 0 && db == sign(c.batchSize - from.batchSize));
        };
        std::stable_partition(out.begin(), out.end(), continues);
        std::stable_partition(out.begin(), out.end(),
                              [&](const AutotuneSettings &n) { return !(n == from); });
    }
    return out;
}

double AutotuneSearch::noise() const
{
    return recentSpread(m_incumbentRates);
}

void AutotuneSearch::nextCandidate()
{
    if (m_queue.empty()) {
        m_holding = true;
        m_heldRate = 0.0; // the next window of the incumbent sets it
        m_next = m_incumbent;
        return;
    }
    m_candidate = m_queue.front();
    m_queue.erase(m_queue.begin());
    m_next = m_candidate;
    m_loadSkips = 0;
}

std::optional<AutotuneMove> AutotuneSearch::report(double rate, std::optional<double> otherCores)
{
    ++m_windows;
    const std::optional<double> previousLoad = m_lastLoad;
    m_lastLoad = otherCores;
    if (m_next == m_incumbent) {
        if (m_waitingForLoad) {
            // The incumbent alone until two windows in a row ran on one load; then the
            // candidate's pair again.
            m_incumbentRates = {rate};
            if (previousLoad && sameMachineLoad(previousLoad, otherCores)) {
                m_waitingForLoad = false;
                m_loadSkips = 0;
                m_next = m_candidate;
            }
            return std::nullopt;
        }
        if (m_candidateRate && !sameMachineLoad(m_candidateLoad, otherCores)) {
            // Other programs' load changed between the pair's windows: measure it again,
            // or after kAutotuneLoadSkips such pairs, wait for the load to settle.
            m_candidateRate.reset();
            m_incumbentRates = {rate}; // the old windows ran on another machine load
            if (++m_loadSkips < kAutotuneLoadSkips)
                m_next = m_candidate;
            else
                m_waitingForLoad = true;
            return std::nullopt;
        }
        m_incumbentRates.push_back(rate);
        if (m_incumbentRates.size() > 8)
            m_incumbentRates.erase(m_incumbentRates.begin());
        if (m_holding) {
            // Watching: a lasting change of throughput, or a while gone by, starts the
            // search again; other programs' load changing sets a new baseline instead.
            ++m_heldWindows;
            if (m_heldRate <= 0 || !sameMachineLoad(m_heldLoad, otherCores)) {
                m_heldRate = rate;
                m_heldLoad = otherCores;
            } else if (const bool drifted = std::abs(rate - m_heldRate)
                                            > m_limits.driftShare * m_heldRate;
                       drifted || m_heldWindows >= m_limits.reprobeWindows) {
                m_holding = false;
                m_heldRate = 0.0;
                m_heldWindows = 0;
                if (drifted)
                    m_incumbentRates = {rate}; // the old windows no longer say how noisy
                m_queue = neighbours();
                nextCandidate();
            }
            return std::nullopt;
        }
        if (m_candidateRate) {
            // The incumbent again, right after the candidate: decide.
            const double incumbentRate = rate;
            const double gain = (*m_candidateRate - incumbentRate) / incumbentRate;
            const double threshold = std::max(m_limits.minGain, noise());
            const double measuredNoise = noise();
            m_candidateRate.reset();
            if (incumbentRate > 0 && gain > threshold && ++m_wins < 2) {
                m_next = m_candidate; // once more, to rule out a lucky window
                return std::nullopt;
            }
            if (incumbentRate > 0 && gain > threshold) {
                m_wins = 0;
                AutotuneMove move{m_incumbent, m_candidate, gain, measuredNoise, {}, {}};
                char text[64];
                std::snprintf(text, sizeof text, "%+.0f %%, noise %.0f %%", gain * 100,
                              measuredNoise * 100);
                move.detail = text;
                move.reason = autotuneChangeText(m_incumbent, m_candidate) + ": " + move.detail;
                m_movedFrom = m_incumbent;
                m_incumbent = m_candidate;
                m_incumbentRates.clear(); // measured anew at the new settings
                m_queue.clear();
                m_next = m_incumbent; // one window at the new incumbent, then its neighbours
                return move;
            }
            m_wins = 0;
            nextCandidate();
            return std::nullopt;
        }
        // A window of the incumbent alone: the first one, or after a move.
        if (m_queue.empty())
            m_queue = neighbours();
        nextCandidate();
        return std::nullopt;
    }
    // A candidate's window: the incumbent is measured again next.
    m_candidateRate = rate;
    m_candidateLoad = otherCores;
    m_next = m_incumbent;
    return std::nullopt;
}

namespace {

// Every value reachable from `start` by doubling while at most `hi` and halving
// (integer division, as neighbours() does) while at least `lo` and above 1; ascending.
std::vector<int> doublings(int start, int lo, int hi)
{
    std::set<int> seen{start};
    std::vector<int> todo{start};
    while (!todo.empty()) {
        const int v = todo.back();
        todo.pop_back();
        for (const int next : {v * 2 <= hi ? v * 2 : 0, v > 1 && v / 2 >= lo ? v / 2 : 0}) {
            if (next > 0 && seen.insert(next).second)
                todo.push_back(next);
        }
    }
    return {seen.begin(), seen.end()};
}

} // namespace

AutotuneSpace autotuneSpace(const AutotuneSettings &start, const AutotuneLimits &limits)
{
    AutotuneSpace space;
    const int maxWorkers = std::max(1, limits.maxWorkers);
    for (int w = std::clamp(start.workers, 0, 1); w <= maxWorkers; ++w)
        space.workers.push_back(w);
    space.prefetch = doublings(start.prefetch, 1, limits.maxPrefetch);
    space.batchSizes = limits.tuneBatch
                           ? doublings(start.batchSize, limits.minBatch, limits.maxBatch)
                           : std::vector<int>{start.batchSize};
    return space;
}

double recentSpread(const std::vector<double> &rates)
{
    const std::size_t n = std::min<std::size_t>(3, rates.size());
    if (n < 2)
        return 0.0;
    const auto first = rates.end() - static_cast<std::ptrdiff_t>(n);
    const auto [lo, hi] = std::minmax_element(first, rates.end());
    double mean = 0.0;
    for (auto it = first; it != rates.end(); ++it)
        mean += *it;
    mean /= static_cast<double>(n);
    return mean > 0 ? (*hi - *lo) / mean : 0.0;
}

std::string autotuneChangeText(const AutotuneSettings &from, const AutotuneSettings &to)
{
    std::string text;
    const auto add = [&](const char *name, int a, int b) {
        if (a == b)
            return;
        text += (text.empty() ? "" : ", ") + std::string(name) + " " + std::to_string(a) + " -> "
                + std::to_string(b);
    };
    add("workers", from.workers, to.workers);
    add("prefetch", from.prefetch, to.prefetch);
    add("batch size", from.batchSize, to.batchSize);
    return text;
}

} // namespace loaderlab
