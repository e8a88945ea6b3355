#pragma once

// TraceLog: the run's append-only record of every batch, worker span, marker and
// skipped sample. The run thread is the only writer; the UI and exporters read it
// while the run goes on without ever stopping it.
//
// Memory: sizeof(TraceRecord) = 160 bytes per batch plus sizeof(WorkerSpan) =
// 32 bytes per worker span (one per batch under the per-worker strategy, up to W
// under sample-parallel), allocated in chunks of 4096. Capacity is 67 million
// batches and 67 million spans; past that, records and spans are counted in
// droppedRecords() / droppedSpans() but not stored, and every summary reports them.
//
// The log also keeps the run's config of every version: version 0 is the config the
// run started with, each live reconfiguration adds the next one, and every record
// carries the version it ran under, so figures can be computed per segment.

#include "core/run/run_config.h"
#include "core/trace/chunked_log.h"
#include "core/trace/trace_record.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace loaderlab {

// The config a run used from `firstBatch` on.
struct ConfigVersion
{
    std::int32_t version = 0;
    std::int64_t firstBatch = 0;
    std::int64_t timeNs = 0;
    RunConfig config;
};

class TraceLog
{
public:
    // Writer side (the run thread).
    void append(const TraceRecord &record);
    void appendSpan(const WorkerSpan &span);
    void addMarker(TraceMarker marker);
    void addSkipped(SkippedSample sample);
    // Versions are added in order, 0 first.
    void addConfigVersion(ConfigVersion version);

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
    std::vector<ConfigVersion> configVersions() const;
    // Worker count of each config version (index = version), for the summary.
    std::vector<int> workersByVersion() const;
    std::int64_t droppedRecords() const { return m_droppedRecords.load(std::memory_order_relaxed); }
    std::int64_t droppedSpans() const { return m_droppedSpans.load(std::memory_order_relaxed); }

private:
    ChunkedLog<TraceRecord> m_records;
    ChunkedLog<WorkerSpan> m_spans;
    std::atomic<std::int64_t> m_droppedRecords{0};
    std::atomic<std::int64_t> m_droppedSpans{0};
    // Markers, skipped samples and config versions are rare; a mutex is cheap for them.
    mutable std::mutex m_mutex;
    std::vector<ConfigVersion> m_configs;
    std::vector<TraceMarker> m_markers;
    std::vector<SkippedSample> m_skipped;
    std::int64_t m_skippedCount = 0;
};

} // namespace loaderlab
