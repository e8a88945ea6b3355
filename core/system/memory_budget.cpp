// Memory budget: the usable memory of this process (physical memory, cgroup limit,
// address-space limit) and the default share of it a run may plan to use.

#include "core/system/memory_budget.h"

#include "core/system/machine_info.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include <sys/resource.h>

namespace loaderlab {
namespace {

// A limit file holding a byte count, or "max" (cgroup v2) for none. 0: no limit.
std::int64_t readLimitFile(const std::string &path)
{
    std::ifstream in(path);
    std::string value;
    if (!(in >> value) || value == "max")
        return 0;
    try {
        return std::max<std::int64_t>(0, std::stoll(value));
    } catch (const std::exception &) {
        return 0; // out of range: cgroup v1 writes ~2^63 for "no limit"
    }
}

// The memory limit of this process's cgroup (v2, else v1). 0: no limit.
std::int64_t cgroupLimitBytes()
{
    std::ifstream self("/proc/self/cgroup");
    std::string line;
    while (std::getline(self, line)) {
        if (line.starts_with("0::")) {
            const std::int64_t own = readLimitFile("/sys/fs/cgroup" + line.substr(3)
                                                   + "/memory.max");
            if (own > 0)
                return own;
        }
    }
    const std::int64_t root = readLimitFile("/sys/fs/cgroup/memory.max");
    return root > 0 ? root : readLimitFile("/sys/fs/cgroup/memory/memory.limit_in_bytes");
}

std::int64_t addressSpaceLimitBytes()
{
    rlimit limit{};
    if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return 0;
    return static_cast<std::int64_t>(
        std::min<rlim_t>(limit.rlim_cur, static_cast<rlim_t>(kBytesUnbounded)));
}

} // namespace

std::int64_t usableMemoryBytes()
{
    std::int64_t usable = totalMemoryBytes();
    for (const std::int64_t limit : {cgroupLimitBytes(), addressSpaceLimitBytes()}) {
        if (limit > 0)
            usable = usable > 0 ? std::min(usable, limit) : limit;
    }
    return usable;
}

std::int64_t defaultMemoryBudgetBytes()
{
    // Half of MemTotal (as lowered by cgroup or rlimit), not of MemAvailable: the same
    // config on the same machine should be accepted or refused the same way every
    // time, whatever the page cache or other programs hold at that moment. Half,
    // because the estimate counts only what the settings decide (batch buffers,
    // datasets held in memory, per-worker scratch); decoded images, the model, the
    // window and the allocator's own overhead come on top, and the system needs the
    // rest. When no size can be read, 4 GiB, a size any machine that runs this has.
    static const std::int64_t budget = [] {
        const std::int64_t usable = usableMemoryBytes();
        return usable > 0 ? usable / 2 : std::int64_t{4} << 30;
    }();
    return budget;
}

std::int64_t memoryBudgetFromMegabytes(std::int64_t megabytes)
{
    return megabytes > 0 ? saturatingMul(megabytes, std::int64_t{1} << 20)
                         : defaultMemoryBudgetBytes();
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
