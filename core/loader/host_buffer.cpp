#include "core/loader/host_buffer.h"

#include <spdlog/spdlog.h>

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace loaderlab {
namespace {

constexpr std::size_t kAlignment = 64;

std::size_t roundUp(std::size_t bytes, std::size_t to)
{
    return (bytes + to - 1) / to * to;
}

class PageableAllocator final : public HostAllocator
{
public:
    std::byte *allocate(std::size_t bytes) override
    {
        void *data = std::aligned_alloc(kAlignment,
                                        roundUp(std::max<std::size_t>(bytes, 1), kAlignment));
        if (!data)
            throw std::bad_alloc();
        return static_cast<std::byte *>(data);
    }
    void deallocate(std::byte *data, std::size_t) override { std::free(data); }
    bool pinned() const override { return false; }
};

// Page-locked memory is what pin_memory means to the OS: pages that cannot be
// swapped out, so a device can DMA from them. Without CUDA we lock with mlock();
// the copy into these buffers is the real cost the pin stage adds.
class PageLockedAllocator final : public HostAllocator
{
public:
    std::byte *allocate(std::size_t bytes) override
    {
        const std::size_t size = roundUp(std::max<std::size_t>(bytes, 1), 4096);
        void *data = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                          0);
        if (data == MAP_FAILED)
            throw std::bad_alloc();
        if (mlock(data, size) != 0 && !m_warned.exchange(true))
            spdlog::warn("pin_memory: mlock of {} bytes failed (RLIMIT_MEMLOCK?); pinned buffers "
                         "are pageable",
                         size);
        return static_cast<std::byte *>(data);
    }
    void deallocate(std::byte *data, std::size_t bytes) override
    {
        const std::size_t size = roundUp(std::max<std::size_t>(bytes, 1), 4096);
        munlock(data, size);
        munmap(data, size);
    }
    bool pinned() const override { return true; }

private:
    std::atomic<bool> m_warned{false};
};

} // namespace

std::shared_ptr<HostAllocator> pageableAllocator()
{
    static const auto allocator = std::make_shared<PageableAllocator>();
    return allocator;
}

std::shared_ptr<HostAllocator> pageLockedAllocator()
{
    static const auto allocator = std::make_shared<PageLockedAllocator>();
    return allocator;
}

HostBuffer::HostBuffer(std::shared_ptr<HostAllocator> allocator, std::size_t bytes)
    : m_allocator(std::move(allocator))
    , m_data(m_allocator->allocate(bytes))
    , m_size(bytes)
{
}

HostBuffer::~HostBuffer()
{
    m_allocator->deallocate(m_data, m_size);
}

BufferPool::BufferPool(std::shared_ptr<HostAllocator> allocator, std::size_t bufferBytes,
                       std::size_t capacity)
    : m_allocator(std::move(allocator))
    , m_bufferBytes(bufferBytes)
    , m_capacity(capacity)
{
}

std::unique_ptr<HostBuffer> BufferPool::acquire()
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_idle.empty()) {
            auto buffer = std::move(m_idle.back());
            m_idle.pop_back();
            return buffer;
        }
    }
    return std::make_unique<HostBuffer>(m_allocator, m_bufferBytes);
}

void BufferPool::release(std::unique_ptr<HostBuffer> buffer)
{
    if (!buffer || buffer->size() != m_bufferBytes)
        return;
    std::lock_guard lock(m_mutex);
    if (m_idle.size() < m_capacity)
        m_idle.push_back(std::move(buffer));
}

} // namespace loaderlab
