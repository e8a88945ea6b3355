#pragma once

// AutotuneSearch: the decisions of the online autotuner, apart from any thread or
// run, so they can be tested on throughput functions whose best is known. A hill
// climb over workers and prefetch (and the batch size when allowed), one step at a
// time: each candidate is measured over a window, the incumbent is measured again
// right after it (so a drift of the machine hits both), and the search moves only
// when the candidate beats the incumbent by more than the incumbent's own
// run-to-run noise (and at least `minGain`) twice in a row: a candidate that wins
// once is measured again against the incumbent before the search moves. When no
// neighbour wins it holds, and starts again when the incumbent's throughput drifts
// by more than `driftShare`, or after `reprobeWindows` windows. After a move the
// same change is tried again first (a batch size that paid once when doubled is
// doubled again), and the way back last.
//
// Objective: samples/s at the consumer (the caller measures it over a window of
// batches after the settings took effect).

#include "core/predict/busy_machine.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loaderlab {

struct AutotuneSettings
{
    int workers = 1;
    int prefetch = 2;
    int batchSize = 32;

    bool operator==(const AutotuneSettings &) const = default;
};

struct AutotuneLimits
{
    int maxWorkers = 1; // leaves room for the consumer's threads
    int maxPrefetch = 8;
    bool tuneBatch = false;
    int minBatch = 8;
    int maxBatch = 512;
    double minGain = 0.05;    // a move needs at least +5 %
    double driftShare = 0.15; // re-tune when the held throughput moves by 15 %
    int reprobeWindows = 20;  // while holding, try the neighbours again this often
};

struct AutotuneMove
{
    AutotuneSettings from;
    AutotuneSettings to;
    double gain = 0.0;  // (candidate - incumbent) / incumbent
    double noise = 0.0; // the incumbent's spread the gain had to beat
    std::string detail; // "+18 %, noise 3 %"
    std::string reason; // "workers 2 -> 3: +18 %, noise 3 %"
};

class AutotuneSearch
{
public:
    AutotuneSearch(AutotuneSettings start, AutotuneLimits limits);

    // What to measure next: settings to apply for the next window.
    const AutotuneSettings &next() const { return m_next; }
    // The measured samples/s of the window run with next(), and other programs'
    // demand on the machine meanwhile (otherDemandCores; nothing: unknown). Returns
    // the move when the incumbent changes. A candidate's window and the incumbent's
    // after it are compared only when that demand stayed the same
    // (sameMachineLoad); otherwise the pair is measured again. While holding, a
    // change of throughput that comes with a change of the demand is not a drift.
    std::optional<AutotuneMove> report(double samplesPerSec,
                                       std::optional<double> otherCores = std::nullopt);

    const AutotuneSettings &incumbent() const { return m_incumbent; }
    bool holding() const { return m_holding; } // no neighbour won: watching for drift
    int windows() const { return m_windows; }

private:
    std::vector<AutotuneSettings> neighbours() const;
    void nextCandidate();
    double noise() const;

    AutotuneLimits m_limits;
    AutotuneSettings m_incumbent;
    AutotuneSettings m_next;
    std::vector<double> m_incumbentRates;  // recent windows of the incumbent
    std::vector<AutotuneSettings> m_queue; // candidates still to try around the incumbent
    std::optional<double> m_candidateRate; // waiting for the incumbent's re-measurement
    std::optional<double> m_candidateLoad; // other programs' demand in its window
    std::optional<double> m_heldLoad;      // ... in the window that set m_heldRate
    int m_loadSkips = 0;                   // the candidate's pairs measured again in a row
    bool m_waitingForLoad = false;         // ... kAutotuneLoadSkips of them: load must settle
    std::optional<double> m_lastLoad;      // other programs' demand in the last window
    int m_wins = 0;                        // rounds the current candidate has won
    AutotuneSettings m_candidate;
    std::optional<AutotuneSettings> m_movedFrom; // the incumbent before the last move
    bool m_holding = false;
    double m_heldRate = 0.0;
    int m_heldWindows = 0;
    int m_windows = 0;
};

// The values of each setting the search can reach from `start` within `limits`
// (what a sweep over the same space covers): workers from min(start, 1) to the cap
// (it never goes down to 0 workers, only up from 0), prefetch and batch size
// `start` times a power of 2 within their bounds (the batch size only with
// tuneBatch). Ascending.
struct AutotuneSpace
{
    std::vector<int> workers;
    std::vector<int> prefetch;
    std::vector<int> batchSizes;
};
AutotuneSpace autotuneSpace(const AutotuneSettings &start, const AutotuneLimits &limits);

// The spread (max - min) / mean of the last three of `rates` (a setting's windows):
// the noise a change must beat; 0 with fewer than two.
double recentSpread(const std::vector<double> &rates);

// The pairs of a candidate's window and the incumbent's measured again in a row
// because the machine's load changed between them; after that many the searches
// measure only the incumbent until two windows in a row ran on one load, and then
// the candidate again (neither search takes such a wait for settling: holding() is
// false meanwhile).
inline constexpr int kAutotuneLoadSkips = 3;

// "workers 2 -> 3, prefetch 2 -> 4"
std::string autotuneChangeText(const AutotuneSettings &from, const AutotuneSettings &to);

} // namespace loaderlab
