#pragma once

// ContentionProfile: how crowded a recorded run's cores were, so the calibration can
// turn measured (wall) times into work. Every CPU-busy stretch of the run is added
// with its number of threads (a worker's load: 1; a CPU step: its intra-op threads),
// and under processor sharing a thread busy over [start, end] on C cores did
//     work = integral over [start, end] of min(1, C / k(t)) dt
// seconds of one core's work, k(t) being the busy threads at t (itself included).
// With k <= C throughout, work = wall time; W workers always busy on C < W cores did
// C / W of their wall time. The same assumption as the model's: no memory-bandwidth
// or cache effects, every busy thread gets an equal share.

#include <cstdint>
#include <vector>

namespace loaderlab {

class ContentionProfile
{
public:
    // `loaders`: the most threads that can be loading at once (the run's workers, of
    // every rank), whatever the load spans add up to: sample-parallel batches overlap
    // while the same W workers move from one to the next.
    ContentionProfile(int cores, double loaders);

    // A stretch [startNs, endNs) with `threads` busy threads; empty ones are ignored.
    void addBusy(std::int64_t startNs, std::int64_t endNs, double threads);
    // The same for loading threads, which count up to `loaders` together.
    void addLoad(std::int64_t startNs, std::int64_t endNs, double threads);
    // Builds the profile; call once, after the last addBusy.
    void finish();

    // Seconds of one core's work a thread busy over [startNs, endNs) did.
    double workSeconds(std::int64_t startNs, std::int64_t endNs) const;
    // The mean busy threads over the stretches added, weighted by their length.
    double meanBusyThreads() const { return m_meanBusy; }

private:
    double integral(std::int64_t t) const; // of min(1, C / k) from the first change to t, s

    struct Change
    {
        std::int64_t time = 0;
        double threads = 0.0; // + at the start, - at the end
        bool load = false;
    };

    double m_cores;
    double m_loaders;
    std::vector<Change> m_changes;
    std::vector<std::int64_t> m_times; // where k changes, sorted
    std::vector<double> m_rates;       // min(1, C / k) on [m_times[i], m_times[i + 1])
    std::vector<double> m_prefix;      // the integral up to m_times[i], seconds
    double m_meanBusy = 0.0;
};

} // namespace loaderlab
