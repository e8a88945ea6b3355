#pragma once

// TraceLog: the run's append-only record of every batch, worker span, marker and
// skipped sample. The run thread is the only writer; the UI and exporters read it
// while the run goes on without ever stopping it.
//
// Memory: sizeof(TraceRecord) = 184 bytes per batch plus sizeof(WorkerSpan) =
// 32 bytes per worker span (one per batch under the per-worker strategy, up to W
// under sample-parallel), allocated in chunks of 4096. A log made with
// `keepBatches` = N (headless runs: `loaderlab run --keep-batches`) holds only about
// the last N batches and the last N spans, so memory stays bounded however long the
// run; size() still counts every batch, and records() returns the ones still held.
// A log without that keeps every batch up to 67 million batches and 67 million
// spans (runs opened from files, tests); past that, records and spans are counted in
// droppedRecords() / droppedSpans() but not stored. Live runs, in the window as
// headless, keep the last kDefaultKeepBatches unless told otherwise.
//
// Markers: a log with keepBatches keeps the last kKeptMarkers (a dataset of a few
// samples makes an epoch marker every batch); markerCount() still counts all.
//
// Either way the run's summary is computed as the batches arrive (summary(),
// core/stats/summary_accumulator.h), so it covers every batch of the run.
//
// The log also keeps the run's config of every version: version 0 is the config the
// run started with, each live reconfiguration adds the next one, and every record
// carries the version it ran under, so figures can be computed per segment.

#include "core/config/run_config.h"
#include "core/record/trace_record.h"
#include "core/stats/summary_accumulator.h"
#include "core/trace/chunked_log.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

namespace loaderlab {

// The batches a live run keeps in memory by default (`--keep-batches`), and the
// fewest it may be told to keep (0 = all).
inline constexpr std::size_t kDefaultKeepBatches = 1'000'000;
inline constexpr std::size_t kMinKeepBatches = 100'000;
// Empty when `n` may be kept (0, or kMinKeepBatches or more), else why not, as the
// `--keep-batches` option's message.
std::string keepBatchesError(std::int64_t n);

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
    // keepBatches 0: keep every batch (up to the capacity above). `heldForReader`:
    // a reader that must see every batch (the CSV written during the run) holds the
    // batches it has not read yet, moving on with holdFrom() (core/trace/chunked_log.h).
    explicit TraceLog(std::size_t keepBatches = 0, bool heldForReader = false);

    // Writer side (the run thread).
    void append(const TraceRecord &record);
    void appendSpan(const WorkerSpan &span);
    void addMarker(TraceMarker marker);
    void addSkipped(SkippedSample sample);
    // Versions are added in order, 0 first; version 0's warm-up is the summary's.
    void addConfigVersion(ConfigVersion version);

    // Reader side (any thread).
    // Batches ever appended (stored or not).
    std::size_t size() const { return m_records.size(); }
    // The first batch still held: 0 unless the log was made with keepBatches.
    std::size_t firstKept() const { return m_records.firstKept(); }
    bool retains() const { return m_records.retains(); }
    // The first span still held: 0 unless the log was made with keepBatches.
    std::size_t firstSpanKept() const { return m_spans.firstKept(); }
    // Direct access, for [firstKept(), size()) and [firstSpanKept(), spanCount()). On a
    // log made with keepBatches only the run thread may use these and
    // firstSpanOfBatch(), or a thread holding hold(); others copy with records() /
    // spans().
    const TraceRecord &operator[](std::size_t i) const { return m_records[i]; }
    const WorkerSpan &span(std::size_t i) const { return m_spans[i]; }
    // While it lives, the run thread frees none of the batches and spans still held
    // (the run never waits for it; see ChunkedLog::readHold). A view takes one for a
    // refresh or a draw, never while calling records(), spans() or another hold().
    struct Hold
    {
        std::shared_lock<std::shared_mutex> records;
        std::shared_lock<std::shared_mutex> spans;
    };
    [[nodiscard]] Hold hold() const { return {m_records.readHold(), m_spans.readHold()}; }
    // The records [from, to) still held.
    std::vector<TraceRecord> records(std::size_t from = 0, std::size_t to = SIZE_MAX) const;
    std::size_t spanCount() const { return m_spans.size(); }
    // First span whose batch is >= `batch` (spans are appended in batch order).
    std::size_t firstSpanOfBatch(std::int64_t batch) const;
    std::vector<WorkerSpan> spans(std::size_t from = 0, std::size_t to = SIZE_MAX) const;
    // The reader holding the log has read every batch before `batch`.
    void holdFrom(std::size_t batch) const { m_records.holdFrom(batch); }
    // The summary of every batch appended so far (percentiles: see
    // core/stats/quantile_sketch.h). Costs a copy of the running state.
    RunSummary summary() const;
    // The replay's figures of every batch appended so far (RunSummary::replay), without
    // the copy summary() makes: for a summary computed from a window of records.
    ReplaySummary replaySummary() const;
    // Markers [from, markerCount()) still held (from the first one held when `from` is
    // older): a view refreshing at 30 Hz copies only new ones. `next`, if given, is set
    // to the count of markers the copy covers (where the next call starts).
    std::vector<TraceMarker> markers(std::size_t from = 0, std::size_t *next = nullptr) const;
    // Markers ever added.
    std::size_t markerCount() const;
    static constexpr std::size_t kKeptMarkers = 10'000;
    std::vector<SkippedSample> skipped() const;
    std::int64_t skippedCount() const;
    std::vector<ConfigVersion> configVersions() const;
    // Worker count of each config version (index = version), for the summary.
    std::vector<int> workersByVersion() const;
    // The data-parallel ranks (RunConfig::devices of the first config version; 1 for
    // a log without one): a round of W workers is W x ranks batches of the log.
    int ranks() const;
    std::int64_t droppedRecords() const { return m_droppedRecords.load(std::memory_order_relaxed); }
    std::int64_t droppedSpans() const { return m_droppedSpans.load(std::memory_order_relaxed); }

private:
    ChunkedLog<TraceRecord> m_records;
    ChunkedLog<WorkerSpan> m_spans;
    // Written by the run thread with each batch; the lock is contended only while
    // summary() copies it.
    mutable std::mutex m_summaryMutex;
    SummaryAccumulator m_summary;
    std::atomic<std::int64_t> m_droppedRecords{0};
    std::atomic<std::int64_t> m_droppedSpans{0};
    // Markers, skipped samples and config versions are rare; a mutex is cheap for them.
    mutable std::mutex m_mutex;
    std::vector<ConfigVersion> m_configs;
    std::deque<TraceMarker> m_markers;
    std::size_t m_markersDropped = 0; // the oldest, gone from a log with keepBatches
    std::vector<SkippedSample> m_skipped;
    std::int64_t m_skippedCount = 0;
};

} // namespace loaderlab
