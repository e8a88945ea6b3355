#include "core/trace/trace_log.h"

#include <algorithm>

namespace loaderlab {

std::string keepBatchesError(std::int64_t n)
{
    if (n == 0 || n >= static_cast<std::int64_t>(kMinKeepBatches))
        return {};
    return "--keep-batches: expected 0 or an integer >= " + std::to_string(kMinKeepBatches)
           + ", got '" + std::to_string(n) + "'";
}

TraceLog::TraceLog(std::size_t keepBatches, bool heldForReader)
    : m_records(keepBatches, heldForReader)
    , m_spans(keepBatches)
{
}

void TraceLog::append(const TraceRecord &record)
{
    {
        std::lock_guard lock(m_summaryMutex);
        m_summary.addRecord(record);
    }
    if (!m_records.append(record))
        m_droppedRecords.fetch_add(1, std::memory_order_relaxed);
}

void TraceLog::appendSpan(const WorkerSpan &span)
{
    {
        std::lock_guard lock(m_summaryMutex);
        m_summary.addSpan(span);
    }
    if (!m_spans.append(span))
        m_droppedSpans.fetch_add(1, std::memory_order_relaxed);
}

RunSummary TraceLog::summary() const
{
    const std::int64_t skipped = skippedCount();
    std::unique_lock lock(m_summaryMutex);
    // Copy, then compute without holding up the run thread.
    const SummaryAccumulator copy = m_summary;
    lock.unlock();
    RunSummary s = copy.summary(skipped);
    s.droppedRecords = droppedRecords();
    s.droppedSpans = droppedSpans();
    return s;
}

ReplaySummary TraceLog::replaySummary() const
{
    std::lock_guard lock(m_summaryMutex);
    return m_summary.replay();
}

void TraceLog::addConfigVersion(ConfigVersion version)
{
    {
        std::lock_guard lock(m_summaryMutex);
        if (version.version == 0 && m_summary.batches() == 0)
            m_summary = SummaryAccumulator(version.config.warmupBatches);
        m_summary.setRanks(version.config.devices);
        m_summary.setWorkers(version.version, version.config.loader.numWorkers);
    }
    std::lock_guard lock(m_mutex);
    m_configs.push_back(std::move(version));
}

std::vector<ConfigVersion> TraceLog::configVersions() const
{
    std::lock_guard lock(m_mutex);
    return m_configs;
}

std::vector<int> TraceLog::workersByVersion() const
{
    std::lock_guard lock(m_mutex);
    std::vector<int> workers;
    workers.reserve(m_configs.size());
    for (const auto &c : m_configs)
        workers.push_back(c.config.loader.numWorkers);
    return workers;
}

int TraceLog::ranks() const
{
    std::lock_guard lock(m_mutex);
    return m_configs.empty() ? 1 : std::max(m_configs.front().config.devices, 1);
}

void TraceLog::addMarker(TraceMarker marker)
{
    if (marker.kind == MarkerKind::Replay) {
        std::lock_guard lock(m_summaryMutex);
        m_summary.startReplay(marker.batch);
    }
    std::lock_guard lock(m_mutex);
    m_markers.push_back(std::move(marker));
    if (retains() && m_markers.size() > kKeptMarkers) {
        m_markers.pop_front();
        ++m_markersDropped;
    }
}

void TraceLog::addSkipped(SkippedSample sample)
{
    std::lock_guard lock(m_mutex);
    ++m_skippedCount;
    // Every skipped sample is counted; the first 10,000 keep their path and reason,
    // so a folder of broken files cannot grow the log without bound.
    if (m_skipped.size() < 10'000)
        m_skipped.push_back(std::move(sample));
}

std::vector<TraceRecord> TraceLog::records(std::size_t from, std::size_t to) const
{
    std::vector<TraceRecord> out;
    const std::size_t end = std::min(to, m_records.size());
    if (from < end)
        out.reserve(end - from);
    m_records.copyRange(from, end, out);
    return out;
}

std::vector<WorkerSpan> TraceLog::spans(std::size_t from, std::size_t to) const
{
    std::vector<WorkerSpan> out;
    m_spans.copyRange(from, to, out);
    return out;
}

std::size_t TraceLog::firstSpanOfBatch(std::int64_t batch) const
{
    std::size_t low = m_spans.firstKept();
    std::size_t high = m_spans.size();
    while (low < high) {
        const std::size_t mid = low + (high - low) / 2;
        if (m_spans[mid].batch < batch)
            low = mid + 1;
        else
            high = mid;
    }
    return low;
}

std::vector<TraceMarker> TraceLog::markers(std::size_t from, std::size_t *next) const
{
    std::lock_guard lock(m_mutex);
    if (next)
        *next = m_markersDropped + m_markers.size();
    const std::size_t first = std::max(from, m_markersDropped) - m_markersDropped;
    if (first >= m_markers.size())
        return {};
    return {m_markers.begin() + static_cast<std::ptrdiff_t>(first), m_markers.end()};
}

std::size_t TraceLog::markerCount() const
{
    std::lock_guard lock(m_mutex);
    return m_markersDropped + m_markers.size();
}

std::vector<SkippedSample> TraceLog::skipped() const
{
    std::lock_guard lock(m_mutex);
    return m_skipped;
}

std::int64_t TraceLog::skippedCount() const
{
    std::lock_guard lock(m_mutex);
    return m_skippedCount;
}

} // namespace loaderlab
