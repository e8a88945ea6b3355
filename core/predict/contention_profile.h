#pragma once

// ContentionProfile: how crowded a recorded run's cores were, so the calibration can
// turn measured (wall) times into work. Every CPU-busy stretch of the run is added
// with its number of threads (a worker's load: 1; a CPU step: its intra-op threads),
// and under processor sharing a thread busy over [start, end] on C cores did
//     work = integral over [start, end] of min(1, C / k(t)) dt
// seconds of one core's work, k(t) being the busy threads at t (itself included).
// With k <= C throughout, work = wall time; W workers always busy on C < W cores did
// C / W of their wall time. On a busy machine (shareMachine, core/predict/
// busy_machine.h) the run's threads had C' cores, C less what other scheduling groups
// held, shared with B busy threads of other programs in its own group: the rate is
// then the run's rate for k(t) threads beside B (core/predict/core_sharing.h). The
// same assumptions as the model's: no memory-bandwidth or cache effects, and threads
// on one core share it evenly.

#include <cstdint>
#include <utility>
#include <vector>

namespace loaderlab {

class ContentionProfile
{
public:
    static constexpr double kLeastCores = 0.01; // of a machine other programs all but filled

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
    // The cores the run's threads had (the constructor's by default) and other
    // programs' busy threads sharing them (0 by default); after finish().
    void shareMachine(double cores, double otherLoad);

    // Seconds of one core's work a thread busy over [startNs, endNs) did.
    double workSeconds(std::int64_t startNs, std::int64_t endNs) const;
    // The mean busy threads over the stretches added, weighted by their length.
    double meanBusyThreads() const { return m_meanBusy; }
    // The cores `otherLoad` busy threads of other programs would have had beside the
    // run's threads on `cores` cores, on average from the first stretch's start to the
    // last one's end: B x their rate beside k(t) (core_sharing.h), also where k(t) is
    // 0. 0 without a stretch.
    double otherBusyCores(double cores, double otherLoad) const;

private:
    double integral(std::int64_t t) const; // of min(1, C / k) from the first change to t, s
    void computeRates();

    struct Change
    {
        std::int64_t time = 0;
        double threads = 0.0; // + at the start, - at the end
        bool load = false;
    };

    double m_cores;
    double m_loaders;
    double m_other = 0.0; // other programs' busy threads
    std::vector<Change> m_changes;
    std::vector<std::int64_t> m_times; // where k changes, sorted
    std::vector<double> m_threads;     // k on [m_times[i], m_times[i + 1])
    std::vector<double> m_rates;       // the run's rate (core_sharing.h) on the same
    std::vector<double> m_prefix;      // the integral up to m_times[i], seconds
    // Seconds with k busy threads, by k (0 included), from the first change to the last.
    std::vector<std::pair<double, double>> m_timeAt;
    double m_meanBusy = 0.0;
};

} // namespace loaderlab
