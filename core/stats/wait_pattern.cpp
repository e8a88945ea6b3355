#include "core/stats/wait_pattern.h"

#include <algorithm>
#include <cmath>

namespace loaderlab {
namespace {

double quantile(std::vector<double> v, double q)
{
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    const double at = q * static_cast<double>(v.size() - 1);
    const auto below = static_cast<std::size_t>(at);
    const std::size_t above = std::min(below + 1, v.size() - 1);
    return v[below] + (v[above] - v[below]) * (at - static_cast<double>(below));
}

double ms(std::int64_t ns)
{
    return static_cast<double>(ns) / 1e6;
}

} // namespace

int longestReadablePeriod(const std::vector<std::vector<double>> &stretches, int maxLag)
{
    std::size_t longest = 0;
    for (const auto &s : stretches)
        longest = std::max(longest, s.size());
    return std::max(0, std::min<int>(maxLag, static_cast<int>(longest / 3)));
}

int dominantPeriod(const std::vector<std::vector<double>> &stretches, int maxLag,
                   double minStrength, double *strength)
{
    if (strength)
        *strength = 0.0;
    maxLag = longestReadablePeriod(stretches, maxLag);
    if (maxLag < 1)
        return 0;
    std::size_t n = 0;
    double mean = 0.0;
    for (const auto &s : stretches) {
        for (const double x : s)
            mean += x;
        n += s.size();
    }
    mean /= static_cast<double>(n);
    double variance = 0.0;
    for (const auto &s : stretches) {
        for (const double x : s)
            variance += (x - mean) * (x - mean);
    }
    // A flat series has no period: its variation is noise around the mean.
    if (variance <= 1e-12 * static_cast<double>(n) * std::max(1.0, mean * mean))
        return 0;
    std::vector<double> r(static_cast<std::size_t>(maxLag) + 1, 0.0);
    for (int k = 1; k <= maxLag; ++k) {
        const auto lag = static_cast<std::size_t>(k);
        double sum = 0.0;
        for (const auto &s : stretches) {
            for (std::size_t i = 0; i + lag < s.size(); ++i)
                sum += (s[i] - mean) * (s[i + lag] - mean);
        }
        r[lag] = sum / variance;
    }
    int best = 1;
    for (int k = 2; k <= maxLag; ++k) {
        if (r[static_cast<std::size_t>(k)] > r[static_cast<std::size_t>(best)])
            best = k;
    }
    const double top = r[static_cast<std::size_t>(best)];
    if (top < minStrength)
        return 0;
    // The smallest lag nearly as strong: W rather than 2W or 3W.
    for (int k = 1; k < best; ++k) {
        if (r[static_cast<std::size_t>(k)] >= 0.85 * top && best % k == 0) {
            best = k;
            break;
        }
    }
    if (strength)
        *strength = r[static_cast<std::size_t>(best)];
    return best;
}

int dominantPeriod(const std::vector<double> &series, int maxLag, double minStrength,
                   double *strength)
{
    return dominantPeriod(std::vector<std::vector<double>>{series}, maxLag, minStrength, strength);
}

std::int64_t loaderFirstFillBatches(int workers, int prefetch)
{
    return workers > 0 ? static_cast<std::int64_t>(workers) * std::max(1, prefetch) + 1 : 1;
}

WaitPattern analyzeWaits(const std::vector<TraceRecord> &records, std::int64_t skip,
                         std::int64_t firstFill)
{
    WaitPattern p;
    p.batches = static_cast<std::int64_t>(records.size());
    if (records.empty())
        return p;
    p.firstMs = ms(records.front().waitNs());
    std::vector<double> later;
    std::vector<std::vector<double>> stretches; // per epoch, its start-up round left out
    std::vector<double> steady;                 // ... and the loader's first fill
    const auto roundSize = std::max<std::int64_t>(skip, 1);
    double step = 0.0, load = 0.0;
    std::int64_t inEpoch = 0;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const TraceRecord &r = records[i];
        step += ms(r.computeNs());
        load += ms(r.loadNs());
        p.samples += r.samples;
        p.skipped += r.skipped;
        const bool newEpoch = i == 0 || r.epoch != records[i - 1].epoch;
        inEpoch = newEpoch ? 0 : inEpoch + 1;
        if (newEpoch) {
            ++p.epochs;
            stretches.emplace_back();
        }
        const double wait = ms(r.waitNs());
        if (inEpoch >= roundSize)
            stretches.back().push_back(wait);
        if (inEpoch >= (p.epochs == 1 ? std::max(roundSize, firstFill) : roundSize))
            steady.push_back(wait);
        if (newEpoch) {
            // Batch 0, or the first batch of a later epoch: the workers start again.
            if (i > 0)
                p.epochStartMaxMs = std::max(p.epochStartMaxMs, wait);
            continue;
        }
        later.push_back(wait);
        if (wait > p.laterMaxMs) {
            p.laterMaxMs = wait;
            p.laterMaxBatch = r.index;
        }
    }
    const auto count = static_cast<double>(records.size());
    p.meanStepMs = step / count;
    p.meanLoadMs = load / count;
    if (!later.empty()) {
        p.medianMs = quantile(later, 0.5);
        p.p95Ms = quantile(later, 0.95);
        double sum = 0.0;
        for (const double w : later)
            sum += w;
        p.meanMs = sum / static_cast<double>(later.size());
    }
    if (!steady.empty()) {
        p.steadyMedianMs = quantile(steady, 0.5);
        p.steadyP95Ms = quantile(steady, 0.95);
    }
    constexpr int kMaxLag = 16;
    p.longestPeriod = longestReadablePeriod(stretches, kMaxLag);
    p.period = dominantPeriod(stretches, kMaxLag, 0.3, &p.periodStrength);
    // Spikes of a fraction of a millisecond are scheduling noise, not a pattern; a
    // "period" of 1 is a drift (neighbours alike), not spikes.
    if (p.p95Ms - p.medianMs < 0.5 || p.period < 2) {
        p.period = 0;
        p.periodStrength = 0.0;
    }
    return p;
}

} // namespace loaderlab
