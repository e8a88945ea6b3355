#pragma once

// ProcessorSharingClock: the time base of the loader model (loader_model.h). It runs
// two kinds of activity and says which end next:
//   - CPU work: seconds of one core's work done by `weight` threads at once (a worker
//     loading a batch has weight 1, a CPU step with T intra-op threads weight T). All
//     CPU work shares `cores` cores by processor sharing: with a total weight k, every
//     activity progresses at min(1, cores / k) seconds of work per second, so work
//     started together with equal amounts ends together. Other programs' load, B busy
//     threads that are always there (`otherLoad`: a machine that was busy while the
//     run was recorded, core/predict/busy_machine.h), shares the cores too, and not
//     evenly: the run's threads gather on the cores those leave free, and every CPU
//     activity progresses at the run's rate of core/predict/core_sharing.h.
//   - delays: wall time that takes no CPU (a simulated or GPU step, a copy to a device,
//     a worker process starting).
//   - faulting work: CPU work of a thread faulting in fresh pages (the first fill of a
//     new buffer). Where the machine serves page faults for only `faultLanes` threads at
//     once (a virtual machine whose host backs every fault), k > faultLanes faulting
//     threads count as faultLanes busy threads and share their progress: each makes
//     faultLanes / k of what one busy thread makes. faultLanes 0: no such limit, a
//     faulting thread is a CPU-busy thread like any other.
//   - hosts: with `ranksPerHost` > 0, CPU work belongs to host tag.rank / ranksPerHost,
//     and each host has its own `cores` (identical machines, each with its share of
//     the ranks): processor sharing, other programs' load and fault lanes apply per
//     host. 0: one host.
// Activities that end within kSimultaneousSeconds of each other (or, at large times,
// within kUlpsTogether units in the last place of the time) end together, so that
// floating-point rounding never splits what the model's arithmetic makes simultaneous,
// and the activity that ends next always ends, however large the time: a step of an
// hour or a year is simulated like one of a millisecond.

#include <cstdint>
#include <vector>

namespace loaderlab {

// What an activity belongs to: the model's own labels, handed back when it ends.
struct ActivityTag
{
    int kind = 0;
    int rank = 0;
    int worker = 0;
    std::int64_t ordinal = 0;
    int slot = 0;
    // A fill (faulting work) that is followed by `then` seconds of plain CPU work with
    // the same tag; the model starts that work when the fill ends.
    bool fill = false;
    double then = 0.0;
};

class ProcessorSharingClock
{
public:
    static constexpr double kSimultaneousSeconds = 1e-12;
    static constexpr double kUlpsTogether = 16.0;
    static constexpr double kLeastCores = 0.01; // of a machine other programs all but filled

    // `cores` may be a fraction: the share of the machine the run's scheduling group
    // gets beside other groups (ModelSetting::outsideCores).
    explicit ProcessorSharingClock(double cores, double faultLanes = 0.0, double otherLoad = 0.0,
                                   int ranksPerHost = 0);

    double now() const { return m_now; }
    bool idle() const { return m_active.empty(); }
    // Seconds of work per second each CPU activity of `host` makes right now (a
    // faulting one: rate() x faultShare()).
    double rate(int host = 0) const;
    double faultShare(int host = 0) const;

    void startWork(double workSeconds, double weight, ActivityTag tag);
    // One thread's faulting work (weight 1).
    void startFaultingWork(double workSeconds, ActivityTag tag);
    void startDelay(double seconds, ActivityTag tag);

    // Moves time to the next end and returns the tags of every activity ending then,
    // in the order they were started; empty (time unchanged) when nothing is active.
    std::vector<ActivityTag> advance();

private:
    struct Activity
    {
        std::uint64_t order = 0;
        bool cpu = false;
        bool faulting = false;
        double weight = 0.0;
        double remaining = 0.0; // CPU work left
        double end = 0.0;       // a delay's end
        std::size_t host = 0;
        ActivityTag tag;
    };

    struct Host
    {
        double weight = 0.0;   // of the CPU activities, the faulting ones as they count
        double faulting = 0.0; // faulting activities
    };

    void addActivity(Activity a);
    void sumWeights();

    double m_cores;
    double m_faultLanes; // 0: no limit
    double m_otherLoad;  // other programs' busy threads
    int m_ranksPerHost;  // 0: one host
    double m_now = 0.0;
    std::vector<Host> m_hosts{1};
    std::uint64_t m_started = 0;
    std::vector<Activity> m_active;
};

} // namespace loaderlab
