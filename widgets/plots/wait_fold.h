#pragma once

// WaitFold: a run's waits folded by the batch's position in its round, the data of
// WaitPatternPlot. With W workers the loader hands batch k of an epoch to worker
// k mod W, so a wait that spikes every W batches (a dense comb on the wait plot
// after a few hundred batches) stands here as one tall position.
//
// A round is W x ranks batches (a data-parallel run's ranks take their batches in
// turn; W = 0, the consumer loading every batch itself, counts as one). Positions
// count from each epoch's first batch: each epoch (and each new loader) hands its
// batches out from worker 0 again, and an epoch's batch count need not be a multiple
// of W. Which position of a round waits is not fixed, though: on the default dataset
// (epochs of 32 batches, 2 workers) it is the first in some epochs and the second in
// others, and a plain fold would show both positions half spiky, half not. So each
// epoch is aligned on its slowest position where one stands out (its median wait at
// least twice the others' and kStandsOutMs more): position 0 is then the batch that
// waits for the round, and the others are the batches after it. An epoch without
// one keeps its positions as counted, so a flat run never shows a spike that is not
// there.
//
// Memory is bounded however long the run: the last kRounds rounds, fewer when
// W x kRounds would pass kMaxWaits (under 1 MB). A new config version (a live
// change of the workers, or of anything else) starts the fold afresh.

#include "core/record/trace_record.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace loaderlab {

class TraceLog;

class WaitFold
{
public:
    static constexpr int kRounds = 200;
    static constexpr std::size_t kMaxWaits = 20'000;
    static constexpr double kStandsOutMs = 0.5;

    // One position's figures over the waits it holds.
    struct Position
    {
        double medianMs = 0.0;
        double p90Ms = 0.0;
        int count = 0;
        std::int32_t lastWorker = 0; // who loaded its newest batch
    };

    // The worker count of each config version (TraceLog::workersByVersion), the
    // ranks, and the workers of a version the list does not have yet.
    void setRounds(std::vector<int> workersByVersion, int ranks, int fallbackWorkers);
    // Adds one batch (in the log's order); a batch of an older version than the
    // fold's is ignored.
    void add(const loaderlab::TraceRecord &record);
    // Folds the newest rounds of `log`'s newest config version, reading only those
    // (copies through TraceLog::records, so any thread may call it).
    void foldTail(const loaderlab::TraceLog &log, int fallbackWorkers);
    void clear();
    // Aligns the epochs and recomputes the positions' figures, when batches came
    // since the last call.
    void summarise();

    bool empty() const { return m_round == 0; }
    int round() const { return m_round; } // positions; 0 when empty
    std::int32_t version() const { return m_version; }
    // Rounds kept at most, and held now.
    int roundsKept() const { return m_roundsKept; }
    const std::vector<Position> &positions() const { return m_positions; }
    // The waits at position `p` (ms), oldest first.
    const std::vector<double> &waitsAt(int p) const
    {
        return m_aligned[static_cast<std::size_t>(p)];
    }

    // Positions of a round of `workers` (0 = the consumer loads) on `ranks` ranks.
    static int roundOf(int workers, int ranks);
    // The rounds kept for a round of `round` positions.
    static int roundsKeptFor(int round);

private:
    struct Wait
    {
        double ms;
        std::int32_t position; // counted from its epoch's first batch
        std::int32_t worker;
        std::int64_t epoch; // a number per epoch seen, for the alignment
    };

    int roundOfVersion(std::int32_t version) const;
    // Starts afresh: `round` positions, counted from batch `firstIndex`.
    void begin(std::int32_t version, std::int32_t epoch, std::int64_t firstIndex);
    // How far the epoch of waits [from, to) (ring order) is turned: its slowest
    // position, where one stands out, else 0.
    int rotationOf(std::size_t from, std::size_t to) const;
    const Wait &oldest(std::size_t k) const; // the k-th held, oldest first

    std::vector<int> m_workersByVersion;
    int m_ranks = 1;
    int m_fallbackWorkers = 0;

    int m_round = 0;
    int m_roundsKept = 0;
    std::int32_t m_version = 0;
    std::int32_t m_epoch = 0;
    std::int64_t m_epochNumber = 0;
    std::int64_t m_epochStart = 0; // batch at position 0 of the current epoch
    // The last m_roundsKept x m_round waits, a ring whose next slot is m_next.
    std::vector<Wait> m_ring;
    std::size_t m_next = 0;
    std::size_t m_held = 0;
    bool m_dirty = false;
    // Aligned, by position: the waits oldest first, and their figures.
    std::vector<std::vector<double>> m_aligned;
    std::vector<Position> m_positions;
};

} // namespace loaderlab
