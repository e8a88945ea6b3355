// Memory budget and thread limit: the usable memory of this process (physical
// memory, the limits of its own cgroup and of the cgroups above it, the
// address-space limit), the default share of it a run may plan to use, and the
// most threads a run may start.

#include "core/system/memory_budget.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>

namespace loaderlab {
namespace {

namespace fs = std::filesystem;

// cgroup v1 writes a page-rounded 2^63 for "no limit"; anything this large is none.
constexpr std::int64_t kNoLimitAbove = std::int64_t{1} << 62;

// A limit file holding a number, or "max" (cgroup v2) for none. 0: no limit, or no
// such file.
std::int64_t readLimitFile(const fs::path &path)
{
    std::ifstream in(path);
    std::string value;
    if (!(in >> value) || value == "max")
        return 0;
    try {
        const long long parsed = std::stoll(value);
        return parsed > 0 && parsed < kNoLimitAbove ? parsed : 0;
    } catch (const std::exception &) {
        return 0; // not a number, or out of range: no limit we can use
    }
}

// Keeps the smaller of two limits; a limit of 0 is none.
void keepSmaller(SystemLimit &best, std::int64_t value, const std::string &source)
{
    if (value > 0 && (best.value == 0 || value < best.value))
        best = {value, source};
}

// The process's place in each hierarchy, from <proc>/self/cgroup
// ("hierarchy-id:controllers:path"): the v2 path ("0::/a/b"), and per v1
// controller its path.
struct CgroupPaths
{
    std::optional<std::string> unified;
    std::optional<std::string> memory; // v1
    std::optional<std::string> pids;   // v1
};

CgroupPaths readCgroupPaths(const std::string &proc)
{
    CgroupPaths paths;
    std::ifstream in(proc + "/self/cgroup");
    std::string line;
    while (std::getline(in, line)) {
        const auto first = line.find(':');
        const auto second = first == std::string::npos ? first : line.find(':', first + 1);
        if (second == std::string::npos)
            continue;
        const std::string id = line.substr(0, first);
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const std::string path = line.substr(second + 1);
        if (path.empty() || path.front() != '/')
            continue;
        if (id == "0" && controllers.empty()) {
            paths.unified = path;
            continue;
        }
        std::stringstream list(controllers);
        std::string controller;
        while (std::getline(list, controller, ',')) {
            if (controller == "memory")
                paths.memory = path;
            else if (controller == "pids")
                paths.pids = path;
        }
    }
    return paths;
}

// Where a v1 controller's hierarchy is mounted: <cgroup>/<controller>, or a folder
// named after several controllers ("cpu,memory").
std::optional<fs::path> v1Mount(const std::string &cgroup, const std::string &controller)
{
    std::error_code ec;
    const fs::path plain = fs::path(cgroup) / controller;
    if (fs::is_directory(plain, ec))
        return plain;
    for (auto it = fs::directory_iterator(cgroup, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
        std::stringstream list(it->path().filename().string());
        std::string name;
        while (std::getline(list, name, ',')) {
            if (name == controller && it->is_directory(ec))
                return it->path();
        }
    }
    return std::nullopt;
}

// The v2 hierarchy: <cgroup> itself, or <cgroup>/unified (the hybrid layout).
std::optional<fs::path> unifiedMount(const std::string &cgroup)
{
    std::error_code ec;
    for (const fs::path &dir : {fs::path(cgroup), fs::path(cgroup) / "unified"}) {
        if (fs::exists(dir / "cgroup.controllers", ec))
            return dir;
    }
    return std::nullopt;
}

// The smallest limit in `file` from the cgroup at `path` up to the hierarchy's root.
// Folders that do not exist are passed over: inside a container the hierarchy is
// mounted at the container's own cgroup, whose path the process still sees in full.
SystemLimit smallestOnTheWayUp(const fs::path &mount, const std::string &path,
                               const std::string &file)
{
    SystemLimit best;
    std::vector<std::string> parts;
    std::stringstream list(path);
    std::string part;
    while (std::getline(list, part, '/')) {
        if (part == "..") // outside this cgroup namespace: only its root is ours
            parts.clear();
        else if (!part.empty() && part != ".")
            parts.push_back(part);
    }
    for (std::size_t depth = parts.size() + 1; depth-- > 0;) {
        fs::path dir = mount;
        for (std::size_t i = 0; i < depth; ++i)
            dir /= parts[i];
        keepSmaller(best, readLimitFile(dir / file), (dir / file).string());
    }
    return best;
}

std::int64_t meminfoBytes(const std::string &proc, const std::string &wanted)
{
    std::ifstream in(proc + "/meminfo");
    std::string key;
    std::int64_t kib = 0;
    while (in >> key >> kib) {
        if (key == wanted)
            return saturatingMul(std::max<std::int64_t>(kib, 0), 1024);
        in.ignore(256, '\n');
    }
    return 0;
}

std::int64_t softLimit(int resource)
{
    rlimit limit{};
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return 0;
    return static_cast<std::int64_t>(
        std::min<rlim_t>(limit.rlim_cur, static_cast<rlim_t>(kBytesUnbounded)));
}

} // namespace

std::int64_t MemoryLimits::usableBytes() const
{
    std::int64_t usable = totalBytes;
    for (const std::int64_t limit : {cgroupMax.value, cgroupHigh.value, addressSpace.value}) {
        if (limit > 0)
            usable = usable > 0 ? std::min(usable, limit) : limit;
    }
    return usable;
}

std::string MemoryLimits::usableSource() const
{
    const std::int64_t usable = usableBytes();
    if (usable <= 0)
        return "nothing could be read";
    if (cgroupMax.value == usable)
        return "the cgroup limit " + cgroupMax.source;
    if (cgroupHigh.value == usable)
        return "the cgroup limit " + cgroupHigh.source;
    if (addressSpace.value == usable)
        return "the address-space limit (ulimit -v)";
    return "MemTotal";
}

MemoryLimits readMemoryLimits(const SystemRoots &roots)
{
    MemoryLimits limits;
    limits.totalBytes = meminfoBytes(roots.proc, "MemTotal:");
    limits.availableBytes = meminfoBytes(roots.proc, "MemAvailable:");
    const CgroupPaths paths = readCgroupPaths(roots.proc);
    if (paths.memory) {
        // The memory controller is bound to a v1 hierarchy (also in the hybrid
        // layout, where the v2 one holds no controller).
        if (const auto mount = v1Mount(roots.cgroup, "memory"))
            limits.cgroupMax = smallestOnTheWayUp(*mount, *paths.memory, "memory.limit_in_bytes");
    } else if (paths.unified) {
        if (const auto mount = unifiedMount(roots.cgroup)) {
            limits.cgroupMax = smallestOnTheWayUp(*mount, *paths.unified, "memory.max");
            limits.cgroupHigh = smallestOnTheWayUp(*mount, *paths.unified, "memory.high");
        }
    }
    if (const std::int64_t as = softLimit(RLIMIT_AS); as > 0)
        limits.addressSpace = {as, "RLIMIT_AS"};
    return limits;
}

std::int64_t defaultMemoryBudgetBytes(const MemoryLimits &limits)
{
    // Half of the usable memory (MemTotal as lowered by the cgroup and rlimit), so the
    // same config on the same machine is accepted or refused the same way whatever the
    // page cache holds. Half, because the estimate counts only what the settings
    // decide (batch buffers, datasets held in memory, per-worker scratch); decoded
    // images, the model, the window and the allocator's own overhead come on top,
    // and the system needs the rest. Lowered to MemAvailable when other programs
    // already hold more than the other half. When no size can be read, 4 GiB, a size
    // any machine that runs this has.
    const std::int64_t usable = limits.usableBytes();
    if (usable <= 0)
        return std::int64_t{4} << 30;
    const std::int64_t half = usable / 2;
    return limits.availableBytes > 0 ? std::min(half, limits.availableBytes) : half;
}

namespace {

const MemoryLimits &processMemoryLimits()
{
    static const MemoryLimits limits = readMemoryLimits();
    return limits;
}

} // namespace

std::int64_t usableMemoryBytes()
{
    return processMemoryLimits().usableBytes();
}

std::int64_t defaultMemoryBudgetBytes()
{
    static const std::int64_t budget = defaultMemoryBudgetBytes(processMemoryLimits());
    return budget;
}

std::int64_t memoryBudgetFromMegabytes(std::int64_t megabytes, const MemoryLimits &limits,
                                       std::string *warning)
{
    if (megabytes <= 0)
        return defaultMemoryBudgetBytes(limits);
    const std::int64_t asked = saturatingMul(megabytes, std::int64_t{1} << 20);
    const std::int64_t usable = limits.usableBytes();
    if (usable <= 0 || asked <= usable)
        return asked;
    if (warning) {
        *warning = "memory budget " + std::to_string(megabytes) + " MiB (--memory-budget, "
                   + "memory_budget_mb) is more than the " + formatBytes(usable)
                   + " this process can use (" + limits.usableSource() + "): using "
                   + formatBytes(usable);
    }
    return usable;
}

std::int64_t memoryBudgetFromMegabytes(std::int64_t megabytes)
{
    if (megabytes <= 0)
        return defaultMemoryBudgetBytes();
    std::string warning;
    const std::int64_t budget = memoryBudgetFromMegabytes(megabytes, processMemoryLimits(),
                                                          &warning);
    if (!warning.empty()) {
        // A run checks its budget at the start and at every change of settings: say
        // it once.
        static std::mutex mutex;
        static std::set<std::int64_t> warned;
        std::lock_guard lock(mutex);
        if (warned.insert(megabytes).second)
            spdlog::warn("{}", warning);
    }
    return budget;
}

SystemLimit readThreadLimit(const SystemRoots &roots)
{
    SystemLimit limit{kMaxRunThreads, "LoaderLab's bound of " + std::to_string(kMaxRunThreads)};
    keepSmaller(limit, softLimit(RLIMIT_NPROC), "RLIMIT_NPROC (ulimit -u)");
    const std::string threadsMax = roots.proc + "/sys/kernel/threads-max";
    keepSmaller(limit, readLimitFile(threadsMax), threadsMax);
    const CgroupPaths paths = readCgroupPaths(roots.proc);
    SystemLimit pids;
    if (paths.pids) {
        if (const auto mount = v1Mount(roots.cgroup, "pids"))
            pids = smallestOnTheWayUp(*mount, *paths.pids, "pids.max");
    } else if (paths.unified) {
        if (const auto mount = unifiedMount(roots.cgroup))
            pids = smallestOnTheWayUp(*mount, *paths.unified, "pids.max");
    }
    keepSmaller(limit, pids.value, pids.source);
    return limit;
}

const SystemLimit &threadLimit()
{
    static const SystemLimit limit = readThreadLimit();
    return limit;
}

std::string formatBytes(std::int64_t bytes)
{
    if (bytes == kBytesUnbounded)
        return "more than 8 EiB";
    if (bytes < 1024)
        return std::to_string(bytes) + " B";
    static constexpr std::array<const char *, 6> kUnits{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = static_cast<double>(bytes) / 1024.0;
    std::size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < kUnits.size()) {
        value /= 1024.0;
        ++unit;
    }
    std::array<char, 32> text{};
    std::snprintf(text.data(), text.size(), value < 100.0 ? "%.1f %s" : "%.0f %s", value,
                  kUnits[unit]);
    return text.data();
}

} // namespace loaderlab
