#pragma once

// ChunkedLog: an append-only log with one writer and any number of concurrent
// readers, none of which ever blocks the other. Elements live in fixed chunks that
// never move; the writer publishes the new size with a release store and readers
// load it with acquire, so everything below size() is fully written and stays valid.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

namespace loaderlab {

template <typename T, std::size_t ChunkSize = 4096, std::size_t MaxChunks = 16384>
class ChunkedLog
{
public:
    static constexpr std::size_t kCapacity = ChunkSize * MaxChunks;

    ChunkedLog() = default;
    ~ChunkedLog()
    {
        for (auto &chunk : m_chunks)
            delete[] chunk.load(std::memory_order_relaxed);
    }
    ChunkedLog(const ChunkedLog &) = delete;
    ChunkedLog &operator=(const ChunkedLog &) = delete;

    // Writer only. Returns false (and drops the element) once the log is full.
    bool append(const T &value)
    {
        const std::size_t n = m_size.load(std::memory_order_relaxed);
        if (n >= kCapacity)
            return false;
        auto &slot = m_chunks[n / ChunkSize];
        T *chunk = slot.load(std::memory_order_relaxed);
        if (!chunk) {
            chunk = new T[ChunkSize]();
            slot.store(chunk, std::memory_order_release);
        }
        chunk[n % ChunkSize] = value;
        m_size.store(n + 1, std::memory_order_release);
        return true;
    }

    std::size_t size() const { return m_size.load(std::memory_order_acquire); }

    // Readers: only for i < size().
    const T &operator[](std::size_t i) const
    {
        return m_chunks[i / ChunkSize].load(std::memory_order_acquire)[i % ChunkSize];
    }

    // Appends elements [from, to) to `out`; `to` is clamped to size().
    void copyRange(std::size_t from, std::size_t to, std::vector<T> &out) const
    {
        to = std::min(to, size());
        for (std::size_t i = from; i < to; ++i)
            out.push_back((*this)[i]);
    }

    static constexpr std::size_t bytesPerElement() { return sizeof(T); }

private:
    std::array<std::atomic<T *>, MaxChunks> m_chunks{};
    std::atomic<std::size_t> m_size{0};
};

} // namespace loaderlab
