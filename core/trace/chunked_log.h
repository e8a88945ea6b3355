#pragma once

// ChunkedLog: an append-only log with one writer and any number of concurrent
// readers, none of which ever blocks the other. Elements live in fixed chunks that
// never move; the writer publishes the new size with a release store and readers
// load it with acquire, so everything below size() is fully written and stays valid.
//
// Retention (keepLast > 0): the log keeps at least the last `keepLast` elements and
// frees older chunks, so memory stays bounded however long the run; indices go on
// counting (size() is the number ever appended) and nothing is dropped. Readers of a
// log with retention copy through copyRange(), which holds a shared lock that the
// writer try-locks before freeing a chunk: it does not wait for a reader (a chunk it
// could not free is freed at a later append) unless the log would pass about twice
// `keepLast`; then it waits for the readers' short holds (one copy, one draw). A reader
// that must see every element (the CSV written during the run) holds the log from
// its next element (holdFrom): nothing from there on is freed until it moves on, as
// long as it lags by no more than `keepLast` beyond the kept ones; past that the
// oldest are freed all the same, so memory stays bounded by about twice `keepLast`.
// Without retention the log keeps everything up to kCapacity elements and drops the rest.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

namespace loaderlab {

template <typename T, std::size_t ChunkSize = 4096, std::size_t MaxChunks = 16384>
class ChunkedLog
{
public:
    static constexpr std::size_t kCapacity = ChunkSize * MaxChunks;
    // The most a log with retention can keep (twice `keepLast` while a reader lags),
    // with two chunk slots left free for the writer.
    static constexpr std::size_t kMaxKeep = ChunkSize * (MaxChunks - 2);

    // `held`: start held from element 0 (see holdFrom()).
    explicit ChunkedLog(std::size_t keepLast = 0, bool held = false)
        : m_keepChunks(
            keepLast == 0 ? 0 : (std::min(keepLast, kMaxKeep / 2) + ChunkSize - 1) / ChunkSize)
        , m_hold(held ? 0 : SIZE_MAX)
    {
    }
    ~ChunkedLog()
    {
        for (auto &chunk : m_chunks)
            delete[] chunk.load(std::memory_order_relaxed);
    }
    ChunkedLog(const ChunkedLog &) = delete;
    ChunkedLog &operator=(const ChunkedLog &) = delete;

    bool retains() const { return m_keepChunks > 0; }

    // Writer only. Returns false (and drops the element) once a log without
    // retention is full; a log with retention never drops.
    bool append(const T &value)
    {
        const std::size_t n = m_size.load(std::memory_order_relaxed);
        if (!retains() && n >= kCapacity)
            return false;
        if (retains() && (n % ChunkSize == 0 || m_releasePending))
            release(n / ChunkSize);
        auto &slot = m_chunks[(n / ChunkSize) % MaxChunks];
        T *chunk = slot.load(std::memory_order_relaxed);
        if (!chunk) {
            chunk = new T[ChunkSize]();
            slot.store(chunk, std::memory_order_release);
        }
        chunk[n % ChunkSize] = value;
        m_size.store(n + 1, std::memory_order_release);
        return true;
    }

    // Keeps elements from `index` on until a later call moves it (any thread).
    void holdFrom(std::size_t index) const { m_hold.store(index, std::memory_order_release); }

    // Elements ever appended.
    std::size_t size() const { return m_size.load(std::memory_order_acquire); }
    // The first element still held; 0 without retention.
    std::size_t firstKept() const { return m_firstKept.load(std::memory_order_acquire); }

    // Only for firstKept() <= i < size(). On a log with retention, only the writer
    // may read this way, or another thread holding readHold(); others use copyRange().
    const T &operator[](std::size_t i) const
    {
        return m_chunks[(i / ChunkSize) % MaxChunks].load(std::memory_order_acquire)[i % ChunkSize];
    }

    // A reader's hold on the elements still kept: while it lives the writer frees none
    // of them, so the holding thread may read [firstKept(), size()) with operator[]. The
    // writer never waits for it (it frees the chunk at a later boundary) unless the
    // log's whole ring is full. Hold it briefly (one refresh or one draw), never while
    // calling copyRange(), and never two at a time on one thread. Without retention it
    // holds nothing: nothing is ever freed.
    [[nodiscard]] std::shared_lock<std::shared_mutex> readHold() const
    {
        return retains() ? std::shared_lock(m_releaseMutex) : std::shared_lock<std::shared_mutex>();
    }

    // Appends elements [from, to) to `out`; `from` is raised to firstKept() and `to`
    // clamped to size().
    void copyRange(std::size_t from, std::size_t to, std::vector<T> &out) const
    {
        std::shared_lock lock(m_releaseMutex, std::defer_lock);
        if (retains())
            lock.lock();
        from = std::max(from, firstKept());
        to = std::min(to, size());
        for (std::size_t i = from; i < to; ++i)
            out.push_back((*this)[i]);
    }

private:
    // Frees the chunks older than the last m_keepChunks before chunk `current`,
    // except those held for a reader (up to m_keepChunks more).
    void release(std::size_t current)
    {
        const auto below = [current](std::size_t chunks) {
            return current > chunks ? current - chunks : 0;
        };
        const std::size_t held = m_hold.load(std::memory_order_acquire) / ChunkSize;
        const std::size_t firstChunk = std::max(std::min(below(m_keepChunks), held),
                                                below(2 * m_keepChunks));
        std::size_t kept = m_firstKept.load(std::memory_order_relaxed) / ChunkSize;
        if (kept >= firstChunk) {
            m_releasePending = false;
            return;
        }
        // The slot `current` is about to reuse must be free, and the log must not pass
        // twice its keep: only then may the writer wait (readers hold the lock for one
        // copy or one draw); otherwise it retries at the next append.
        const bool mustFree = current - kept >= MaxChunks - 1
                              || current - kept > 2 * m_keepChunks + 1;
        std::unique_lock lock(m_releaseMutex, std::defer_lock);
        if (mustFree)
            lock.lock();
        else if (!lock.try_lock()) {
            m_releasePending = true;
            return;
        }
        m_firstKept.store(firstChunk * ChunkSize, std::memory_order_release);
        for (; kept < firstChunk; ++kept)
            delete[] m_chunks[kept % MaxChunks].exchange(nullptr, std::memory_order_acq_rel);
        m_releasePending = false;
    }

    std::array<std::atomic<T *>, MaxChunks> m_chunks{};
    std::atomic<std::size_t> m_size{0};
    std::atomic<std::size_t> m_firstKept{0};
    const std::size_t m_keepChunks;
    mutable std::atomic<std::size_t> m_hold;
    bool m_releasePending = false; // writer only
    mutable std::shared_mutex m_releaseMutex;
};

} // namespace loaderlab
