#pragma once

// The memory budget: how much host memory one run, or one dataset tool, may plan
// to use. Settings whose estimated footprint exceeds it are refused before
// anything is allocated, so a typo such as --batch-size 100000000 ends with a
// message instead of a machine that swaps itself to a halt. Also the bound on the
// threads a run may start, the saturating byte arithmetic the estimates need
// (3x100000x100000 floats x 10^8 samples does not fit in 64 bits, and a wrapped
// product would look small), and where all of it is read from: /proc and the
// process's own cgroup, with roots a test can point at a tree of files of its own.
// The rules are in docs/limits.md, "Memory budget and thread limits".

#include <cstdint>
#include <limits>
#include <string>

namespace loaderlab {

inline constexpr std::int64_t kBytesUnbounded = std::numeric_limits<std::int64_t>::max();

// Where the limits are read from. A test lays out a directory like /proc
// (meminfo, self/cgroup, sys/kernel/threads-max) and one like /sys/fs/cgroup.
struct SystemRoots
{
    std::string proc = "/proc";
    std::string cgroup = "/sys/fs/cgroup";
};

// One limit and the file (or setting) it came from; bytes/count 0: none set.
struct SystemLimit
{
    std::int64_t value = 0;
    std::string source; // "/sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.limit_in_bytes"
};

struct MemoryLimits
{
    std::int64_t totalBytes = 0;     // MemTotal of meminfo; 0: unread
    std::int64_t availableBytes = 0; // MemAvailable of meminfo; 0: unread
    // The smallest hard limit on the way from the process's own cgroup up to the
    // root: memory.max (v2) or memory.limit_in_bytes (v1, the memory controller's
    // hierarchy).
    SystemLimit cgroupMax;
    SystemLimit cgroupHigh;   // the smallest memory.high on the same way (v2 only)
    SystemLimit addressSpace; // RLIMIT_AS (ulimit -v)

    // MemTotal lowered to every limit that is set; 0 when nothing could be read.
    std::int64_t usableBytes() const;
    // What usableBytes() is: "MemTotal", "cgroup memory.max (PATH)", "RLIMIT_AS".
    std::string usableSource() const;
};

// Reads meminfo, the process's cgroup (from <proc>/self/cgroup) and RLIMIT_AS.
MemoryLimits readMemoryLimits(const SystemRoots &roots = {});

// The default budget for these limits: half of usableBytes(), lowered to
// MemAvailable when less than that is available; 4 GiB when nothing was read.
std::int64_t defaultMemoryBudgetBytes(const MemoryLimits &limits);

// Physical memory this process can use: readMemoryLimits().usableBytes(), read once
// per process.
std::int64_t usableMemoryBytes();

// defaultMemoryBudgetBytes(readMemoryLimits()), computed once per process.
std::int64_t defaultMemoryBudgetBytes();

// A budget given in MiB (the config's memory_budget_mb, --memory-budget): 0 or
// less means defaultMemoryBudgetBytes(); more than the usable memory is clamped to
// it, with a warning (once per value) that says so and why.
std::int64_t memoryBudgetFromMegabytes(std::int64_t megabytes);
// The same against given limits; `warning` receives the text when it clamps.
std::int64_t memoryBudgetFromMegabytes(std::int64_t megabytes, const MemoryLimits &limits,
                                       std::string *warning);

// The most threads a run may start: 4096 (kMaxRunThreads), lowered to RLIMIT_NPROC
// (ulimit -u), to kernel.threads-max and to the smallest pids.max on the way from
// the process's cgroup up to the root, when those are set. `source` says which.
inline constexpr std::int64_t kMaxRunThreads = 4096;
SystemLimit readThreadLimit(const SystemRoots &roots = {});
// readThreadLimit(), read once per process.
const SystemLimit &threadLimit();

// "512 B", "1.5 KiB", "11.8 GiB", "274 TiB": three digits at most; "more than 8 EiB"
// for a saturated value.
std::string formatBytes(std::int64_t bytes);

// a * b and a + b for non-negative values, kBytesUnbounded instead of overflowing.
inline std::int64_t saturatingMul(std::int64_t a, std::int64_t b)
{
    std::int64_t product = 0;
    return __builtin_mul_overflow(a, b, &product) ? kBytesUnbounded : product;
}

inline std::int64_t saturatingAdd(std::int64_t a, std::int64_t b)
{
    std::int64_t sum = 0;
    return __builtin_add_overflow(a, b, &sum) ? kBytesUnbounded : sum;
}

} // namespace loaderlab
