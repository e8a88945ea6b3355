#pragma once

// TraceLog: the run's append-only record of every batch, worker span, marker and
// skipped sample. The run thread is the only writer; the UI and exporters read it
// while the run goes on without ever stopping it.
//
// Memory: sizeof(TraceRecord) = 160 bytes per batch plus sizeof(WorkerSpan) =
// 32 bytes per worker span (one per batch under the per-worker strategy, up to W
// under sample-parallel), allocated in chunks of 4096. Capacity is 67 million
// batches; past that, records are counted in dropped() but not stored.

#include "core/trace/chunked_log.h"
#include "core/trace/trace_record.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace loaderlab {

class TraceLog
{
public:
    // Writer side (the run thread).
    void append(const TraceRecord &record);
    void appendSpan(const WorkerSpan &span);
    void addMarker(TraceMarker marker);
    void addSkipped(SkippedSample sample);

    // Reader side (any thread).
    std::size_t size() const { return m_records.size(); }
    const TraceRecord &operator[](std::size_t i) const { return m_records[i]; }
    std::vector<TraceRecord> records(std::size_t from = 0, std::size_t to = SIZE_MAX) const;
    std::size_t spanCount() const { return m_spans.size(); }
    const WorkerSpan &span(std::size_t i) const { return m_spans[i]; }
    // First span whose batch is >= `batch` (spans are appended in batch order).
    std::size_t firstSpanOfBatch(std::int64_t batch) const;
    std::vector<WorkerSpan> spans(std::size_t from = 0, std::size_t to = SIZE_MAX) const;
    // Markers [from, markerCount()): a view refreshing at 30 Hz copies only new ones.
    std::vector<TraceMarker> markers(std::size_t from = 0) const;
    std::size_t markerCount() const;
    std::vector<SkippedSample> skipped() const;
    std::int64_t skippedCount() const;
    std::int64_t dropped() const { return m_dropped.load(std::memory_order_relaxed); }

private:
    ChunkedLog<TraceRecord> m_records;
    ChunkedLog<WorkerSpan> m_spans;
    std::atomic<std::int64_t> m_dropped{0};
    // Markers and skipped samples are rare; a mutex is cheap for them.
    mutable std::mutex m_mutex;
    std::vector<TraceMarker> m_markers;
    std::vector<SkippedSample> m_skipped;
    std::int64_t m_skippedCount = 0;
};

} // namespace loaderlab
