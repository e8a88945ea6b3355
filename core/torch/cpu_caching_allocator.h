#pragma once

// The CPU allocator of LibTorch's tensors while a model step runs: freed blocks of 64 KB
// and more are kept, by exact size, and given to the next allocation of that size, as
// PyTorch's caching allocator does on the GPU. A model's step allocates the same
// activations every step; glibc's malloc hands large blocks back to the kernel when
// they are freed (mmap / trim), so each step zero-fills them again, one page fault a
// 4 KB page. On a 2-vCPU VM that cost ResNet-18's inference step at batch 8 about
// 18,800 faults and more than half its time, and how much of it a step paid depended
// on the thread it ran on and on the batch size (docs/benchmarks.md, "The model step's
// memory"). With the cache a step's time is its arithmetic, as on a GPU.
//
// The cache holds at most a quarter of the machine's memory; what would go over it is
// freed. LOADERLAB_CPU_ALLOCATOR=system keeps LibTorch's own allocator (for comparing
// the two). A torch-free header.

#include <cstddef>
#include <cstdint>

namespace loaderlab::torchmodels {

enum class CpuAllocatorChoice { Caching, System };

// The choice `value` (the environment variable's text, or null) asks for: "system"
// gives System, anything else (unset, "", "caching") Caching.
CpuAllocatorChoice cpuAllocatorChoice(const char *value);

// Makes the caching allocator LibTorch's CPU allocator, once per process, unless
// LOADERLAB_CPU_ALLOCATOR says "system". Returns whether it is in use. Thread-safe.
bool installCpuCachingAllocator();

struct CpuCacheStats
{
    std::int64_t cachedBytes = 0; // freed blocks kept for reuse
    std::int64_t liveBytes = 0;   // blocks the cache gave out and that are not yet freed
    std::int64_t reused = 0;      // allocations served from the cache
    std::int64_t fresh = 0;       // allocations of cacheable size that went to malloc
    std::int64_t limitBytes = 0;  // the most the cache keeps
};
CpuCacheStats cpuCacheStats();

// Frees every kept block (a finished run, a new trial of the max batch finder).
void emptyCpuCache();

// For tests: the most the cache keeps, in bytes (0: the default, a quarter of memory).
void setCpuCacheLimit(std::int64_t bytes);

// Installs the allocator when made and empties its cache when gone: the first member
// of what runs model steps, so that what the model itself frees last is handed back too.
class CpuCacheScope
{
public:
    CpuCacheScope() { installCpuCachingAllocator(); }
    ~CpuCacheScope() { emptyCpuCache(); }
    CpuCacheScope(const CpuCacheScope &) = delete;
    CpuCacheScope &operator=(const CpuCacheScope &) = delete;
};

} // namespace loaderlab::torchmodels
