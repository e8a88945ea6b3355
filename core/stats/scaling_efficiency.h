#pragma once

// A data-parallel run's scaling efficiency against a measured run of one rank, and
// where the rest went. Per sample and rank, the N-rank run spends tau_N = N / its
// samples/s, the one-rank run tau_1 = 1 / its samples/s; the efficiency is
// tau_1 / tau_N (its samples/s over N times the one rank's), and 1 - efficiency is
// split exactly into the growth of each part of a step, per sample, over tau_N:
//   - data: the wait for data (the ranks' mean) beyond the one rank's,
//   - step: compute and the copy to the device beyond the one rank's (ranks sharing
//     a host's cores step slower),
//   - imbalance: the wait for the slowest rank,
//   - communication: the gradient exchange,
//   - other: what the parts leave unexplained (the consumer's own work, recording);
//     it may be negative where a part shrank.

#include "core/stats/run_summary.h"

#include <string>

namespace loaderlab {

struct ScalingEfficiency
{
    bool known = false; // both runs delivered samples, the run has ranks
    int ranks = 1;
    double oneRankSamplesPerSec = 0.0;
    double samplesPerSec = 0.0;
    double speedup = 0.0;
    double efficiency = 0.0;
    // Fractions of the N-rank run's time, summing with `efficiency` to 1.
    double dataLoss = 0.0;
    double stepLoss = 0.0;
    double imbalanceLoss = 0.0;
    double communicationLoss = 0.0;
    double otherLoss = 0.0;
};

// `oneRank`: a run of one rank (no RankSummary entries); `run`: the data-parallel run
// (one RankSummary per rank). Not known when either has no steady rate or `run` has
// fewer than two ranks.
ScalingEfficiency scalingEfficiency(const RunSummary &oneRank, const RunSummary &run);

// "against one rank (1234.5 samples/s): 3.10x with 4 ranks, efficiency 77.5 %; lost:
// data 2.0, step 1.5, slowest rank 4.0, exchange 14.0, other 1.0 points"; "" when not
// known.
std::string scalingEfficiencyLine(const ScalingEfficiency &e);

} // namespace loaderlab
