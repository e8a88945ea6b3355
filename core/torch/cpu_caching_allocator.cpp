#include "core/torch/cpu_caching_allocator.h"

#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>

#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace loaderlab::torchmodels {
namespace {

// Smaller blocks stay in malloc's arenas without faulting; caching them would only add
// a lock to every small tensor.
constexpr std::size_t kSmallestCached = 64 * 1024;

std::int64_t defaultLimit()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0)
        return std::int64_t{1} << 30;
    return static_cast<std::int64_t>(pages) * pageSize / 4;
}

void release(void *data);

class CachingCpuAllocator final : public c10::Allocator
{
public:
    c10::DataPtr allocate(std::size_t bytes) const override
    {
        void *data = bytes >= kSmallestCached ? const_cast<CachingCpuAllocator *>(this)->take(bytes)
                                              : c10::alloc_cpu(bytes);
        return {data, data, &release, c10::Device(c10::DeviceType::CPU)};
    }

    // One deleter for both sizes: oneDNN allocates through raw_allocate() and frees
    // through raw_deleter().
    c10::DeleterFnPtr raw_deleter() const override { return &release; }

    void giveBack(void *data)
    {
        std::unique_lock lock(m_mutex);
        const auto live = m_live.find(data);
        if (live == m_live.end()) {
            lock.unlock();
            c10::free_cpu(data); // a small block
            return;
        }
        const std::size_t bytes = live->second;
        m_live.erase(live);
        m_stats.liveBytes -= static_cast<std::int64_t>(bytes);
        if (m_stats.cachedBytes + static_cast<std::int64_t>(bytes) <= limit()) {
            m_free[bytes].push_back(data);
            m_stats.cachedBytes += static_cast<std::int64_t>(bytes);
            return;
        }
        lock.unlock();
        c10::free_cpu(data);
    }

    void empty()
    {
        std::unordered_map<std::size_t, std::vector<void *>> kept;
        {
            const std::lock_guard lock(m_mutex);
            kept.swap(m_free);
            m_stats.cachedBytes = 0;
        }
        for (const auto &[bytes, blocks] : kept)
            for (void *data : blocks)
                c10::free_cpu(data);
    }

    CpuCacheStats stats()
    {
        const std::lock_guard lock(m_mutex);
        CpuCacheStats copy = m_stats;
        copy.limitBytes = limit();
        return copy;
    }

    void setLimit(std::int64_t bytes)
    {
        const std::lock_guard lock(m_mutex);
        m_limit = bytes;
    }

private:
    std::int64_t limit() const { return m_limit > 0 ? m_limit : m_defaultLimit; }

    void *take(std::size_t bytes)
    {
        {
            const std::lock_guard lock(m_mutex);
            if (const auto kept = m_free.find(bytes); kept != m_free.end()) {
                void *data = kept->second.back();
                kept->second.pop_back();
                if (kept->second.empty())
                    m_free.erase(kept);
                m_stats.cachedBytes -= static_cast<std::int64_t>(bytes);
                ++m_stats.reused;
                note(data, bytes);
                return data;
            }
        }
        void *data = c10::alloc_cpu(bytes); // throws c10::Error when out of memory
        const std::lock_guard lock(m_mutex);
        ++m_stats.fresh;
        note(data, bytes);
        return data;
    }

    void note(void *data, std::size_t bytes)
    {
        m_live.emplace(data, bytes);
        m_stats.liveBytes += static_cast<std::int64_t>(bytes);
    }

    std::mutex m_mutex;
    std::unordered_map<void *, std::size_t> m_live;
    std::unordered_map<std::size_t, std::vector<void *>> m_free;
    CpuCacheStats m_stats;
    std::int64_t m_limit = 0;
    const std::int64_t m_defaultLimit = defaultLimit();
};

// Never destroyed: tensors freed while the process exits still come back to it.
CachingCpuAllocator &allocator()
{
    static auto *instance = new CachingCpuAllocator;
    return *instance;
}

void release(void *data)
{
    allocator().giveBack(data);
}

std::once_flag installOnce;
bool installed = false;

} // namespace

CpuAllocatorChoice cpuAllocatorChoice(const char *value)
{
    return value && std::string_view(value) == "system" ? CpuAllocatorChoice::System
                                                        : CpuAllocatorChoice::Caching;
}

bool installCpuCachingAllocator()
{
    std::call_once(installOnce, [] {
        if (cpuAllocatorChoice(std::getenv("LOADERLAB_CPU_ALLOCATOR"))
            == CpuAllocatorChoice::System)
            return;
        // Above the default allocator's priority (0): a later default registration
        // does not replace it.
        c10::SetCPUAllocator(&allocator(), 1);
        installed = true;
    });
    return installed;
}

CpuCacheStats cpuCacheStats()
{
    return allocator().stats();
}

void emptyCpuCache()
{
    allocator().empty();
}

void setCpuCacheLimit(std::int64_t bytes)
{
    allocator().setLimit(bytes);
}

} // namespace loaderlab::torchmodels
