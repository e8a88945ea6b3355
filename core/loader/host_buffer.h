#pragma once

// HostBuffer: one batch's worth of host memory, 64-byte aligned. Pinned buffers
// (pin_memory) are page-locked with mlock(); a CUDA consumer can supply its own
// allocator (cudaHostAlloc) through HostAllocator.

#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace loaderlab {

class HostAllocator
{
public:
    virtual ~HostAllocator() = default;
    virtual std::byte *allocate(std::size_t bytes) = 0;
    virtual void deallocate(std::byte *data, std::size_t bytes) = 0;
    virtual bool pinned() const = 0;
};

// Plain aligned memory.
std::shared_ptr<HostAllocator> pageableAllocator();
// Page-locked memory (mmap + mlock); falls back to pageable memory, with one
// warning in the log, when the process may not lock that much memory.
std::shared_ptr<HostAllocator> pageLockedAllocator();

class HostBuffer
{
public:
    HostBuffer(std::shared_ptr<HostAllocator> allocator, std::size_t bytes);
    ~HostBuffer();
    HostBuffer(const HostBuffer &) = delete;
    HostBuffer &operator=(const HostBuffer &) = delete;

    std::span<std::byte> bytes() { return {m_data, m_size}; }
    std::span<const std::byte> bytes() const { return {m_data, m_size}; }
    std::size_t size() const { return m_size; }
    bool pinned() const { return m_allocator->pinned(); }

private:
    std::shared_ptr<HostAllocator> m_allocator;
    std::byte *m_data = nullptr;
    std::size_t m_size = 0;
};

// Recycles buffers of one size so the steady state allocates nothing. Holds at
// most `capacity` idle buffers; the loader's in-flight bound limits the rest.
class BufferPool
{
public:
    BufferPool(std::shared_ptr<HostAllocator> allocator, std::size_t bufferBytes,
               std::size_t capacity);

    std::unique_ptr<HostBuffer> acquire();
    void release(std::unique_ptr<HostBuffer> buffer);
    std::size_t bufferBytes() const { return m_bufferBytes; }

private:
    std::shared_ptr<HostAllocator> m_allocator;
    std::size_t m_bufferBytes;
    std::size_t m_capacity;
    std::mutex m_mutex;
    std::vector<std::unique_ptr<HostBuffer>> m_idle;
};

} // namespace loaderlab
