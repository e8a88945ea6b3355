#include "core/io/trace_csv_stream.h"

#include "core/io/trace_csv.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace loaderlab {

TraceCsvStream::TraceCsvStream(std::string path, std::chrono::milliseconds interval)
    : m_interval(interval)
    , m_file(std::move(path))
{
    m_file.stream() << traceCsvHeader() << '\n';
    m_file.flush(); // a write error later cuts the file back to whole rows after this
}

TraceCsvStream::~TraceCsvStream()
{
    if (m_thread.joinable()) {
        m_thread.request_stop();
        m_thread.join();
    }
}

void TraceCsvStream::follow(std::shared_ptr<const TraceLog> trace)
{
    {
        std::lock_guard lock(m_mutex);
        m_trace = std::move(trace);
    }
    m_thread = std::jthread([this](std::stop_token stop) {
        std::unique_lock lock(m_mutex);
        auto wait = m_interval;
        while (!stop.stop_requested()) {
            m_wake.wait_for(lock, stop, wait, [] { return false; });
            // A fast run: come back sooner, so the trace need not hold many batches.
            wait = copyNew() > 1'000 ? std::min(m_interval, std::chrono::milliseconds(10))
                                     : m_interval;
        }
    });
}

std::size_t TraceCsvStream::copyNew()
{
    if (!m_trace || !m_error.empty())
        return 0;
    const std::size_t end = m_trace->size();
    if (end <= m_next)
        return 0;
    const std::vector<TraceRecord> records = m_trace->records(m_next, end);
    // Batches the trace no longer held (it keeps only the last ones).
    const std::size_t first = records.empty() ? end
                                              : static_cast<std::size_t>(records.front().index);
    if (first > m_next)
        m_missed += static_cast<std::int64_t>(first - m_next);
    // In chunks of 64 rows, each flushed: a write error (a full disk) then loses at
    // most the rows of one chunk, which is cut off again.
    constexpr std::size_t kChunk = 64;
    std::int64_t before = m_file.flushedBytes();
    try {
        for (std::size_t at = 0; at < records.size(); at += kChunk) {
            const std::size_t n = std::min(kChunk, records.size() - at);
            writeTraceCsvRows(
                m_file.stream(),
                std::vector<TraceRecord>(records.begin() + static_cast<std::ptrdiff_t>(at),
                                         records.begin() + static_cast<std::ptrdiff_t>(at + n)));
            m_file.flush();
            m_rows += static_cast<std::int64_t>(n);
            before = m_file.flushedBytes();
        }
    } catch (const std::exception &e) {
        // Once: no later batch is written, and the rows so far stay in the .part file,
        // cut back to the last whole row.
        m_error = e.what();
        m_file.keepPart();
        m_file.truncatePart(before);
        spdlog::error("{}; the run goes on, but no more batches are written: the {} written "
                      "so far stay in {}",
                      m_error, m_rows, m_file.partPath());
    }
    m_next = end;
    m_trace->holdFrom(m_next);
    return records.size();
}

std::int64_t TraceCsvStream::finish()
{
    if (m_thread.joinable()) {
        m_thread.request_stop();
        m_thread.join();
    }
    std::lock_guard lock(m_mutex);
    if (m_finished)
        throw std::runtime_error("cannot write " + path() + ": already written");
    m_finished = true;
    copyNew();
    if (!m_error.empty())
        throw std::runtime_error(m_error + "; the " + std::to_string(m_rows)
                                 + " batches written before it are kept in "
                                 + m_file.partPath()); // ~AtomicFile leaves it there
    // From here on every row is written: a failure to complete the file keeps them.
    m_file.keepPart();
    try {
        m_file.commit();
    } catch (const std::exception &e) {
        throw std::runtime_error(std::string(e.what()) + "; the " + std::to_string(m_rows)
                                 + " batches are kept in " + m_file.partPath());
    }
    if (m_missed > 0)
        throw std::runtime_error(
            path() + ": " + std::to_string(m_missed) + " of " + std::to_string(m_rows + m_missed)
            + " batches are missing: the trace no longer held them when they were due to be "
              "written (raise --keep-batches)");
    return m_rows;
}

} // namespace loaderlab
