#pragma once

// Where a data-parallel run's time went, rank by rank and over all ranks: the step
// (the rank's own compute and the consumer's work around it), waiting for data,
// waiting for the slowest rank (the straggler wait) and the gradient exchange, as
// shares of each rank's steady window (RankSummary). Against ranks that only
// step, the three losses are what data, imbalance and communication cost of the
// run's scaling efficiency. The exposed data loading is the worst rank's, as every
// other rank waits for it at the next synchronisation (what Ray Train reports as
// the "max exposed data-loading time").

#include "core/stats/run_summary.h"

#include <string>

namespace loaderlab {

struct RankTimeSplit
{
    bool known = false; // a run of several ranks with steady windows
    double step = 0.0;  // the means over the ranks, 0..1, summing to 1
    double data = 0.0;
    double straggler = 0.0;
    double exchange = 0.0;
    int worstDataRank = -1; // the rank that waited longest for data
    double worstDataShare = 0.0;
    double worstDataWaitMs = 0.0; // its mean wait a step
};

RankTimeSplit rankTimeSplit(const RunSummary &summary);

// "of the ranks' time: step 12.3 %, data 0.3 %, slowest rank 1.0 %, exchange 86.4 %;
// the most exposed data loading: rank 1, 0.31 ms a step (0.3 %)"; "" when not known.
std::string rankTimeSplitLine(const RankTimeSplit &split);

} // namespace loaderlab
