#pragma once

// What the consumer's waits look like, as the lessons read them: the first batch's
// wait against the rest, the typical and the spiky waits, and the dominant period
// of the waits (the lag with the strongest autocorrelation, the smallest of those
// nearly as strong, so a period W is not read as 2W). Everything is read within
// epochs: each epoch starts its workers again (unless they are persistent), so its
// first batch waits as batch 0 did, and on a folder of a few hundred images these
// restarts, every "batches per epoch" batches, would otherwise be the strongest
// period of all.

#include "core/record/trace_record.h"

#include <cstdint>
#include <vector>

namespace loaderlab {

struct WaitPattern
{
    std::int64_t batches = 0;
    std::int64_t samples = 0; // delivered, over all batches
    std::int64_t skipped = 0; // left out by the skip policy (unreadable files)
    int epochs = 0;           // epochs the batches span
    double firstMs = 0.0;     // batch 0's wait
    double laterMaxMs = 0.0;  // the longest wait after it, epoch starts left out
    std::int64_t laterMaxBatch = -1;
    double epochStartMaxMs = 0.0; // the longest wait at the start of a later epoch
    double medianMs = 0.0;        // of the waits after the first, epoch starts left out
    double p95Ms = 0.0;
    // The same over the steady rounds: each epoch's start-up round and the loader's
    // first fill left out.
    double steadyMedianMs = 0.0;
    double steadyP95Ms = 0.0;
    double meanMs = 0.0;
    double meanStepMs = 0.0; // compute
    double meanLoadMs = 0.0; // a batch's load time (its worker's)
    int period = 0; // 2 or more; 0: none (flat, a drift, spikes under 0.5 ms, too few batches)
    double periodStrength = 0.0; // its autocorrelation, -1..1
    int longestPeriod = 0;       // the longest period the epochs are long enough to show
};

// `skip`: leading batches of every epoch left out of the period (the start-up
// round, W batches). `firstFill`: leading batches of the records' first epoch left
// out of the steady figures too, where a new loader's pooled buffers fault their
// pages in (W x prefetch + 1 batches; loaderFirstFillBatches): waits of the loader's
// start, not of its rounds. (The period keeps them: there the first rounds' waits
// are the clearest spikes of all.) The epoch starts (each epoch's first batch after
// batch 0) are left out of the later waits and reported as epochStartMaxMs.
WaitPattern analyzeWaits(const std::vector<TraceRecord> &records, std::int64_t skip = 0,
                         std::int64_t firstFill = 0);

// The batches a new loader of `workers` workers and `prefetch` batches each fills
// fresh buffers for: W x prefetch + 1, or 1 without workers.
std::int64_t loaderFirstFillBatches(int workers, int prefetch);

// The longest lag dominantPeriod() reads in these stretches: a third of the longest.
int longestReadablePeriod(const std::vector<std::vector<double>> &stretches, int maxLag);

// The dominant period of a series made of `stretches` (one per epoch): the
// autocorrelation only pairs values within one stretch. 0 when no lag in
// 1..longestReadablePeriod() has an autocorrelation of at least `minStrength`, or
// the series is (nearly) constant.
int dominantPeriod(const std::vector<std::vector<double>> &stretches, int maxLag,
                   double minStrength, double *strength = nullptr);
// The same for a single stretch.
int dominantPeriod(const std::vector<double> &series, int maxLag, double minStrength,
                   double *strength = nullptr);

} // namespace loaderlab
