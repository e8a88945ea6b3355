#pragma once

// A replay's figures (RunConfig::replayBatches, docs/ceilings.md "Replay"): the run's
// rate while its loader fed the step, the step's rate on the kept batches once loading
// cost nothing, and the share of the job's time that loading costs. Both rates are
// samples / (last compute end - first request) of their batches, as the run's mean;
// the loaded rate leaves out the warm-up batches, the replayed rate none (the batches
// are in memory and the step already warm).

#include "core/record/trace_record.h"

#include <cstdint>
#include <limits>
#include <string>

namespace loaderlab {

struct ReplaySummary
{
    std::int64_t firstBatch = -1;     // the first replayed batch; -1: the run did not replay
    std::int64_t loadedBatches = 0;   // steady batches before it
    std::int64_t replayedBatches = 0; // batches from it on
    double loadedSamplesPerSec = 0.0;
    double replaySamplesPerSec = 0.0;
    // 1 - loaded / replayed rate: of the job's time per sample, the part loading adds
    // (0 when the loaded rate is as high; negative values, noise, are kept as measured).
    double loadingShare = 0.0;

    bool known() const { return loadedSamplesPerSec > 0.0 && replaySamplesPerSec > 0.0; }
};

// "loading free (replay from batch 40): 2,410 samples/s, against 690 while loading;
// loading costs 71 % of the job's time", or why there is no figure.
std::string replayLine(const ReplaySummary &replay);

// Fed with every record; start() comes before the first replayed record is added (the
// Replay marker is traced before that batch).
class ReplayTally
{
public:
    void start(std::int64_t firstBatch) { m_first = firstBatch; }
    bool replayed(std::int64_t batch) const { return batch >= m_first; }
    // `steady`: the record is past the warm-up.
    void add(const TraceRecord &record, bool steady);
    ReplaySummary summary() const;

private:
    struct Window
    {
        std::int64_t batches = 0;
        std::int64_t samples = 0;
        std::int64_t firstRequestNs = 0;
        std::int64_t lastComputeEndNs = 0;
        void add(const TraceRecord &record);
        double samplesPerSec() const;
    };
    std::int64_t m_first = std::numeric_limits<std::int64_t>::max();
    Window m_loaded;   // steady batches of index < m_first ...
    Window m_replayed; // ... and all of index >= m_first
};

} // namespace loaderlab
