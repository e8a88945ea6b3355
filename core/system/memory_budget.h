#pragma once

// The memory budget: how much host memory one run, or one dataset tool, may plan
// to use. Settings whose estimated footprint exceeds it are refused before
// anything is allocated, so a typo such as --batch-size 100000000 ends with a
// message instead of a machine that swaps itself to a halt. Also the saturating
// byte arithmetic those estimates need: 3x100000x100000 floats x 10^8 samples does
// not fit in 64 bits, and a wrapped product would look small.

#include <cstdint>
#include <limits>
#include <string>

namespace loaderlab {

inline constexpr std::int64_t kBytesUnbounded = std::numeric_limits<std::int64_t>::max();

// Physical memory this process can use: MemTotal, lowered to the cgroup's
// memory.max and to RLIMIT_AS when either is set. 0 when none can be read.
std::int64_t usableMemoryBytes();

// Half of usableMemoryBytes(), computed once per process.
std::int64_t defaultMemoryBudgetBytes();

// A budget given in MiB (the config's memory_budget_mb, --memory-budget): 0 or
// less means defaultMemoryBudgetBytes().
std::int64_t memoryBudgetFromMegabytes(std::int64_t megabytes);

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
