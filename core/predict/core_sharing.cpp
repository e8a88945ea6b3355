#include "core/predict/core_sharing.h"

#include <algorithm>
#include <cmath>

namespace loaderlab {
namespace {

// The cores the run's threads and other programs' threads have in all.
struct Capacity
{
    double run = 0.0;
    double other = 0.0;
};

// Whole counts: `others` threads spread evenly over `cores` cores (q on each, one more
// on m of them), then the run's threads placed one by one on the core with the fewest
// threads, a tie going to the core with fewer others. The run's first cores - m threads
// take the cores with q others; after them every round of `cores` threads adds one to
// every core, those with q others first.
Capacity placed(long cores, long run, long others)
{
    const long q = others / cores;
    const long m = others % cores;
    const long low = cores - m; // cores with q others
    Capacity out;
    // n cores with o others and r of the run's threads each.
    const auto add = [&](long n, long o, long r) {
        if (n <= 0 || o + r == 0)
            return;
        const double all = static_cast<double>(o + r);
        out.run += static_cast<double>(n * r) / all;
        out.other += static_cast<double>(n * o) / all;
    };
    if (run <= low) {
        add(run, q, 1);
        add(low - run, q, 0);
        add(m, q + 1, 0);
        return out;
    }
    const long rounds = (run - low) / cores;
    const long left = (run - low) % cores;
    const long lowExtra = std::min(left, low);
    const long highExtra = left - lowExtra;
    add(lowExtra, q, rounds + 2);
    add(low - lowExtra, q, rounds + 1);
    add(highExtra, q + 1, rounds + 1);
    add(m - highExtra, q + 1, rounds);
    return out;
}

Capacity mix(const Capacity &a, const Capacity &b, double weightOfB)
{
    return {a.run + weightOfB * (b.run - a.run), a.other + weightOfB * (b.other - a.other)};
}

// Whole counts: placed() while every thread of the run has a core with the fewest
// others; beyond that, halfway between placed() and even sharing.
Capacity shared(long cores, long run, long others)
{
    const Capacity place = placed(cores, run, others);
    const long low = cores - others % cores;
    if (run <= low)
        return place;
    const double all = static_cast<double>(run + others);
    const double each = std::min(1.0, static_cast<double>(cores) / all);
    const Capacity even{static_cast<double>(run) * each, static_cast<double>(others) * each};
    return mix(place, even, 0.5);
}

// Whole cores, counts of threads interpolated between whole ones.
Capacity onWholeCores(long cores, double run, double others)
{
    const double k0 = std::floor(run), b0 = std::floor(others);
    const long k = static_cast<long>(k0), b = static_cast<long>(b0);
    const double fk = run - k0, fb = others - b0;
    const Capacity low = mix(shared(cores, k, b), shared(cores, k + 1, b), fk);
    const Capacity high = mix(shared(cores, k, b + 1), shared(cores, k + 1, b + 1), fk);
    return mix(low, high, fb);
}

} // namespace

CoreShares coreShares(double cores, double runThreads, double otherThreads)
{
    const double c = std::max(0.0, cores);
    const double k = std::max(0.0, runThreads);
    const double b = std::max(0.0, otherThreads);
    CoreShares out;
    if (c <= 0.0)
        return out;
    if (b <= 0.0 || k <= 0.0) {
        const double all = k + b;
        out.run = out.other = all <= c ? 1.0 : c / all;
        return out;
    }
    Capacity capacity;
    if (c < 1.0) {
        const Capacity one = onWholeCores(1, k, b);
        capacity = {c * one.run, c * one.other};
    } else {
        const double c0 = std::floor(c);
        const long whole = static_cast<long>(c0);
        capacity = onWholeCores(whole, k, b);
        if (c > c0)
            capacity = mix(capacity, onWholeCores(whole + 1, k, b), c - c0);
    }
    out.run = std::min(1.0, capacity.run / k);
    out.other = std::min(1.0, capacity.other / b);
    return out;
}

} // namespace loaderlab
