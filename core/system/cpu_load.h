#pragma once

// CPU load: how much CPU a run got, and how much other programs took from the same
// machine meanwhile. A sample holds the machine's CPU time counters (the aggregate
// "cpu" line of /proc/stat), this process's own CPU time (all its threads, plus the
// children it has waited for: the PyTorch engine's Python process and the workers
// that process waited for), the CPU time of every other process in this process's
// scheduling group, and the steady clock; two samples give the load over the interval
// between them (MachineLoad, the run report's "machine_load", docs/metrics.md).
//
// The scheduling group matters because Linux shares the CPU fairly between groups
// first (a session's autogroup, a cgroup with the cpu controller: another terminal's
// build, a desktop application) and between threads only within a group: a busy
// loop started from LoaderLab's own shell competes with each of its threads, one in
// another session with LoaderLab as a whole. A process is in our group when its
// autogroup (where the kernel has them switched on) and its cpu cgroup are ours.
//
// The parsing and the arithmetic take text and numbers, so they have known answers;
// sampleCpu() is the thin layer that reads the real files. Where there is no
// /proc/stat (not Linux) the load is unknown, never an error.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace loaderlab {

// The aggregate "cpu" line of /proc/stat: clock ticks summed over every core since
// boot. Guest time is already counted in user and nice, so it is not read.
struct ProcStatTimes
{
    std::uint64_t user = 0;
    std::uint64_t nice = 0;
    std::uint64_t system = 0;
    std::uint64_t idle = 0;
    std::uint64_t iowait = 0;
    std::uint64_t irq = 0;
    std::uint64_t softirq = 0;
    std::uint64_t steal = 0;
    int cores = 0; // the "cpuN" lines that follow it

    std::uint64_t busy() const { return user + nice + system + irq + softirq; }
    std::uint64_t total() const { return busy() + idle + iowait + steal; }
};

// Parses the text of /proc/stat. Nothing when it has no "cpu" line with at least its
// first four fields (user nice system idle); fields an old kernel lacks are 0.
std::optional<ProcStatTimes> parseProcStat(std::string_view text);

// What /proc/PID/stat says of a process: its parent, and its CPU time in clock ticks
// (user + system, fields 14 and 15 of proc(5)) and that of its children it has waited
// for (16 and 17), counted after the command name's last ')'. Nothing when the text is
// not such a line.
struct ProcessStat
{
    int parent = 0;
    std::uint64_t ticks = 0;
    std::uint64_t childTicks = 0;
    int nice = 0; // -20..19
};
std::optional<ProcessStat> parseProcessStat(std::string_view text);

// The processes below `root` (children, their children, ...) in a table of each
// process's parent, by PID.
std::set<int> descendantsOf(int root, const std::map<int, int> &parents);

// The scheduling group named by the texts of a process's /proc/PID/autogroup (empty:
// none, or autogroups switched off) and /proc/PID/cgroup: the autogroup's name
// ("/autogroup-12") and the cgroup of the cpu controller (cgroup v1's line naming
// "cpu", else v2's "0::" line); the same text for processes of the same group.
std::string schedulingGroup(std::string_view autogroup, std::string_view cgroup);

// The whole text of a small file such as /proc/PID/stat; empty when it cannot be
// opened or read. Never throws: a process that exits between the listing of /proc
// and the read fails the read with ESRCH, which a std::ifstream turns into an
// exception out of its buffer.
std::string procFileText(const std::string &path);

struct CpuSample
{
    std::optional<ProcStatTimes> machine; // nothing: unknown (no /proc/stat)
    // User + system of this process, of its children it has waited for, and of every
    // live process below it (the PyTorch engine's Python process and its workers),
    // with the children each of those has waited for. CPU time moves from a process
    // to its parent's waited-for children when the parent reaps it, so the sum only
    // grows, whichever of them ends between two samples.
    double ownCpuSeconds = 0.0;
    double wallSeconds = 0.0; // the steady clock
    // CPU seconds of each other process (by PID) in this process's scheduling group,
    // the processes below it left out (they are ownCpuSeconds').
    std::map<int, double> groupCpuSeconds;
    // The same for the processes of the group niced kYieldingNice or more below this
    // one (a background build at `nice -n 19`): beside a thread of this process a
    // thread of theirs gets under a tenth of the core they share, so the cores they
    // use are free to the run, and they are counted apart from groupCpuSeconds.
    std::map<int, double> yieldingCpuSeconds;
};

// Nice levels below this process's at which a process of its group yields its cores:
// CFS weighs each level by about 1.25, so 10 levels give under a tenth of a shared core.
inline constexpr int kYieldingNice = 10;

// Reads /proc/stat, getrusage(RUSAGE_SELF) and getrusage(RUSAGE_CHILDREN) and every
// process's /proc/PID/stat now.
CpuSample sampleCpu();

// The load over an interval, in cores (1.0: one core busy all the time).
struct MachineLoad
{
    int cores = 0;               // logical cores; 0: the load is unknown
    double seconds = 0.0;        // the interval's length
    double ownBusyCores = 0.0;   // this process (and its waited-for children)
    double otherBusyCores = 0.0; // the machine's busy cores less ours, at least 0
    // Of otherBusyCores: other processes in this process's scheduling group that ran
    // through the whole interval; they compete with each of its threads.
    double groupBusyCores = 0.0;
    double stealCores = 0.0; // taken by the hypervisor for other virtual machines
    // Used by processes of this process's group niced kYieldingNice or more below it,
    // and left out of otherBusyCores: they yield whatever core the run's threads want.
    double yieldingCores = 0.0;
    // What the run could have had: cores - otherBusyCores - stealCores, at least 0.
    double availableCores = 0.0;

    bool known() const { return cores > 0; }
};

// The load between two samples: the machine's busy, idle and steal ticks as shares
// of all its ticks over the interval, times its cores; ours and our group's from
// their CPU time over the wall time (a process of the group counts when it is in
// both samples with a time that did not go back). Unknown when either sample has no
// machine counters, no tick or no time passed between them, or a counter went
// backwards.
MachineLoad machineLoadBetween(const CpuSample &start, const CpuSample &end);

// The load over one run: begin() with a sample taken when it started, end() when it
// ended. Any thread may call any method.
class CpuLoadMeter
{
public:
    void begin(const CpuSample &start);
    // Ends the interval now; a second call before the next begin() changes nothing.
    void end();
    bool ended() const;
    // Over the interval; up to now while it has not ended; unknown before begin().
    MachineLoad load() const;

private:
    mutable std::mutex m_mutex;
    std::optional<CpuSample> m_start;
    std::optional<CpuSample> m_end;
};

} // namespace loaderlab
