#include "core/stats/replay_summary.h"

#include <algorithm>
#include <cstdio>

namespace loaderlab {

void ReplayTally::Window::add(const TraceRecord &record)
{
    firstRequestNs = batches == 0 ? record.requestNs : std::min(firstRequestNs, record.requestNs);
    lastComputeEndNs = std::max(lastComputeEndNs, record.computeEndNs);
    ++batches;
    samples += record.samples;
}

double ReplayTally::Window::samplesPerSec() const
{
    const std::int64_t ns = lastComputeEndNs - firstRequestNs;
    return batches > 0 && ns > 0 ? static_cast<double>(samples) * 1e9 / static_cast<double>(ns)
                                 : 0.0;
}

void ReplayTally::add(const TraceRecord &record, bool steady)
{
    if (record.index >= m_first)
        m_replayed.add(record);
    else if (steady)
        m_loaded.add(record);
}

ReplaySummary ReplayTally::summary() const
{
    ReplaySummary s;
    if (m_first == std::numeric_limits<std::int64_t>::max())
        return s;
    s.firstBatch = m_first;
    s.loadedBatches = m_loaded.batches;
    s.replayedBatches = m_replayed.batches;
    s.loadedSamplesPerSec = m_loaded.samplesPerSec();
    s.replaySamplesPerSec = m_replayed.samplesPerSec();
    if (s.known())
        s.loadingShare = 1.0 - s.loadedSamplesPerSec / s.replaySamplesPerSec;
    return s;
}

std::string replayLine(const ReplaySummary &r)
{
    if (r.firstBatch < 0)
        return "no replay: the run ended before it had kept its batches";
    char text[240];
    if (!r.known()) {
        std::snprintf(text, sizeof text,
                      "replay from batch %lld: %s (%lld loaded batches past the warm-up, %lld "
                      "replayed)",
                      static_cast<long long>(r.firstBatch),
                      r.loadedBatches == 0 ? "no loaded rate, as every kept batch was warm-up"
                                           : "too few batches for a rate",
                      static_cast<long long>(r.loadedBatches),
                      static_cast<long long>(r.replayedBatches));
        return text;
    }
    std::snprintf(text, sizeof text,
                  "loading free (replay from batch %lld): %.1f samples/s, against %.1f while "
                  "loading; loading costs %.0f %% of the job's time",
                  static_cast<long long>(r.firstBatch), r.replaySamplesPerSec,
                  r.loadedSamplesPerSec, r.loadingShare * 100.0);
    return text;
}

} // namespace loaderlab
