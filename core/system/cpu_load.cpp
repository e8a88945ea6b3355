#include "core/system/cpu_load.h"

#include "core/system/clock.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

namespace loaderlab {
namespace {

std::string_view nextLine(std::string_view &text)
{
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    return line;
}

// The whitespace-separated numbers after the line's first word; stops at the first
// word that is not one.
int readNumbers(std::string_view line, std::uint64_t *out, int most)
{
    int n = 0;
    std::size_t at = line.find(' ');
    while (at != std::string_view::npos && n < most) {
        at = line.find_first_not_of(' ', at);
        if (at == std::string_view::npos)
            break;
        const char *first = line.data() + at;
        const char *last = line.data() + line.size();
        const auto [ptr, ec] = std::from_chars(first, last, out[n]);
        if (ec != std::errc() || (ptr != last && *ptr != ' '))
            break;
        ++n;
        at = static_cast<std::size_t>(ptr - line.data());
    }
    return n;
}

bool isCoreLine(std::string_view line)
{
    return line.size() > 3 && line.substr(0, 3) == "cpu" && line[3] >= '0' && line[3] <= '9';
}

double secondsOf(const timeval &t)
{
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
}

double cpuSecondsOf(int who)
{
    rusage usage{};
    if (getrusage(who, &usage) != 0)
        return 0.0;
    return secondsOf(usage.ru_utime) + secondsOf(usage.ru_stime);
}

std::string_view trimmed(std::string_view text)
{
    const std::size_t first = text.find_first_not_of(" \n");
    if (first == std::string_view::npos)
        return {};
    return text.substr(first, text.find_last_not_of(" \n") - first + 1);
}

std::string groupOf(const std::string &proc, bool autogroups)
{
    return schedulingGroup(autogroups ? procFileText(proc + "/autogroup") : std::string(),
                           procFileText(proc + "/cgroup"));
}

// Every process's /proc/PID/stat, by PID; this process's own left out.
std::map<int, ProcessStat> processStats()
{
    std::map<int, ProcessStat> out;
    const int self = static_cast<int>(getpid());
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        int pid = 0;
        const auto [ptr, err] = std::from_chars(name.data(), name.data() + name.size(), pid);
        if (err != std::errc() || ptr != name.data() + name.size() || pid == self)
            continue;
        if (const auto stat = parseProcessStat(procFileText(it->path().string() + "/stat")))
            out[pid] = *stat;
    }
    return out;
}

// The CPU seconds of the processes below this one (with their waited-for children),
// and of every other process in its scheduling group, by PID.
void readProcesses(CpuSample &sample)
{
    const long ticksPerSecond = sysconf(_SC_CLK_TCK);
    if (ticksPerSecond <= 0)
        return;
    const auto seconds = [&](std::uint64_t ticks) {
        return static_cast<double>(ticks) / static_cast<double>(ticksPerSecond);
    };
    const std::map<int, ProcessStat> stats = processStats();
    std::map<int, int> parents;
    for (const auto &[pid, stat] : stats)
        parents[pid] = stat.parent;
    const std::set<int> below = descendantsOf(static_cast<int>(getpid()), parents);
    const bool autogroups = trimmed(procFileText("/proc/sys/kernel/sched_autogroup_enabled"))
                            == "1";
    const std::string ours = groupOf("/proc/self", autogroups);
    const auto self = stats.find(static_cast<int>(getpid()));
    const int ownNice = self != stats.end() ? self->second.nice : 0;
    for (const auto &[pid, stat] : stats) {
        if (below.contains(pid)) {
            sample.ownCpuSeconds += seconds(stat.ticks + stat.childTicks);
            continue;
        }
        if (groupOf("/proc/" + std::to_string(pid), autogroups) != ours)
            continue;
        (stat.nice >= ownNice + kYieldingNice ? sample.yieldingCpuSeconds
                                              : sample.groupCpuSeconds)[pid] = seconds(stat.ticks);
    }
}

} // namespace

std::optional<ProcessStat> parseProcessStat(std::string_view text)
{
    const std::size_t paren = text.rfind(')');
    if (paren == std::string_view::npos)
        return std::nullopt;
    // After ')': state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
    // cmajflt utime stime cutime cstime priority nice (fields 3 to 19 of proc(5)).
    std::string_view rest = text.substr(paren + 1);
    std::int64_t numbers[5] = {}; // ppid, utime, stime, cutime, cstime
    int nice = 0;
    for (int field = 3; field <= 19; ++field) {
        const std::size_t start = rest.find_first_not_of(' ');
        if (start == std::string_view::npos)
            return std::nullopt;
        rest.remove_prefix(start);
        const std::size_t end = std::min(rest.find(' '), rest.size());
        const int slot = field == 4 ? 0 : field >= 14 && field <= 17 ? field - 13 : -1;
        if (field == 19) {
            const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + end, nice);
            if (ec != std::errc() || ptr != rest.data() + end)
                return std::nullopt;
        }
        if (slot >= 0) {
            const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + end, numbers[slot]);
            if (ec != std::errc() || ptr != rest.data() + end || numbers[slot] < 0)
                return std::nullopt;
        }
        rest.remove_prefix(end);
    }
    ProcessStat stat;
    stat.parent = static_cast<int>(numbers[0]);
    stat.ticks = static_cast<std::uint64_t>(numbers[1] + numbers[2]);
    stat.childTicks = static_cast<std::uint64_t>(numbers[3] + numbers[4]);
    stat.nice = nice;
    return stat;
}

std::set<int> descendantsOf(int root, const std::map<int, int> &parents)
{
    std::map<int, std::vector<int>> children;
    for (const auto &[pid, parent] : parents)
        if (pid != parent)
            children[parent].push_back(pid);
    std::set<int> out;
    std::vector<int> todo{root};
    while (!todo.empty()) {
        const int pid = todo.back();
        todo.pop_back();
        const auto it = children.find(pid);
        if (it == children.end())
            continue;
        for (const int child : it->second)
            if (child != root && out.insert(child).second)
                todo.push_back(child);
    }
    return out;
}

std::string procFileText(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return {};
    std::string text;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n > 0) {
            text.append(buffer, static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            text.clear(); // gone (ESRCH), a directory (EISDIR), ...: nothing read
        break;
    }
    ::close(fd);
    return text;
}

std::string schedulingGroup(std::string_view autogroup, std::string_view cgroup)
{
    // "/autogroup-12 nice 0": the name; the nice value is the group's weight, not it.
    std::string_view name = trimmed(autogroup);
    name = name.substr(0, name.find(' '));
    std::string_view cpu, unified;
    while (!cgroup.empty()) {
        const std::string_view line = nextLine(cgroup);
        // "ID:CONTROLLERS:PATH"
        const std::size_t first = line.find(':');
        const std::size_t second = first == std::string_view::npos ? first
                                                                   : line.find(':', first + 1);
        if (second == std::string_view::npos)
            continue;
        const std::string_view controllers = line.substr(first + 1, second - first - 1);
        const std::string_view path = line.substr(second + 1);
        if (controllers.empty() && line.substr(0, first) == "0")
            unified = path;
        std::string_view list = controllers;
        while (!list.empty()) {
            const std::size_t comma = std::min(list.find(','), list.size());
            if (list.substr(0, comma) == "cpu")
                cpu = path;
            list.remove_prefix(std::min(comma + 1, list.size()));
        }
    }
    return std::string(name) + "|" + std::string(cpu.empty() ? unified : cpu);
}

std::optional<ProcStatTimes> parseProcStat(std::string_view text)
{
    std::optional<ProcStatTimes> times;
    while (!text.empty()) {
        const std::string_view line = nextLine(text);
        if (line.substr(0, 4) == "cpu ") {
            std::uint64_t v[8] = {};
            if (readNumbers(line, v, 8) < 4)
                return std::nullopt;
            times = ProcStatTimes{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], 0};
        } else if (times && isCoreLine(line)) {
            ++times->cores;
        }
    }
    return times;
}

CpuSample sampleCpu()
{
    CpuSample sample;
    sample.wallSeconds = static_cast<double>(steadyNowNs()) / 1e9;
    sample.ownCpuSeconds = cpuSecondsOf(RUSAGE_SELF) + cpuSecondsOf(RUSAGE_CHILDREN);
    sample.machine = parseProcStat(procFileText("/proc/stat"));
    if (sample.machine)
        readProcesses(sample);
    return sample;
}

MachineLoad machineLoadBetween(const CpuSample &start, const CpuSample &end)
{
    if (!start.machine || !end.machine)
        return {};
    const ProcStatTimes &a = *start.machine;
    const ProcStatTimes &b = *end.machine;
    const double wall = end.wallSeconds - start.wallSeconds;
    if (b.busy() < a.busy() || b.steal < a.steal || b.total() <= a.total() || wall <= 0.0)
        return {};
    const int cores = std::max(b.cores, 1);
    const auto ticks = static_cast<double>(b.total() - a.total());
    const double busy = cores * static_cast<double>(b.busy() - a.busy()) / ticks;
    MachineLoad load;
    load.cores = cores;
    load.seconds = wall;
    load.stealCores = cores * static_cast<double>(b.steal - a.steal) / ticks;
    load.ownBusyCores = std::clamp((end.ownCpuSeconds - start.ownCpuSeconds) / wall, 0.0,
                                   static_cast<double>(cores));
    // CPU seconds of the processes in both samples' table.
    const auto used = [](const std::map<int, double> &from, const std::map<int, double> &to) {
        double sum = 0.0;
        for (const auto &[pid, seconds] : to) {
            const auto before = from.find(pid);
            if (before != from.end() && seconds >= before->second)
                sum += seconds - before->second;
        }
        return sum;
    };
    const double other = std::clamp(busy - load.ownBusyCores, 0.0, static_cast<double>(cores));
    load.yieldingCores = std::clamp(used(start.yieldingCpuSeconds, end.yieldingCpuSeconds) / wall,
                                    0.0, other);
    load.otherBusyCores = other - load.yieldingCores;
    load.groupBusyCores = std::clamp(used(start.groupCpuSeconds, end.groupCpuSeconds) / wall, 0.0,
                                     load.otherBusyCores);
    load.availableCores = std::clamp(cores - load.otherBusyCores - load.stealCores, 0.0,
                                     static_cast<double>(cores));
    return load;
}

void CpuLoadMeter::begin(const CpuSample &start)
{
    const std::lock_guard lock(m_mutex);
    m_start = start;
    m_end.reset();
}

void CpuLoadMeter::end()
{
    const CpuSample now = sampleCpu();
    const std::lock_guard lock(m_mutex);
    if (m_start && !m_end)
        m_end = now;
}

bool CpuLoadMeter::ended() const
{
    const std::lock_guard lock(m_mutex);
    return m_end.has_value();
}

MachineLoad CpuLoadMeter::load() const
{
    std::optional<CpuSample> start, end;
    {
        const std::lock_guard lock(m_mutex);
        start = m_start;
        end = m_end;
    }
    if (!start)
        return {};
    return machineLoadBetween(*start, end ? *end : sampleCpu());
}

} // namespace loaderlab
