#pragma once

// What the consumer's waits look like, as the lessons read them: the first batch's
// wait against the rest, the typical and the spiky waits, and the dominant period
// of the waits (the lag with the strongest autocorrelation, the smallest of those
// nearly as strong, so a period W is not read as 2W).

#include "core/trace/trace_record.h"

#include <cstdint>
#include <vector>

namespace loaderlab {

struct WaitPattern
{
    std::int64_t batches = 0;
    double firstMs = 0.0;    // batch 0's wait
    double laterMaxMs = 0.0; // the longest wait after it
    std::int64_t laterMaxBatch = -1;
    double medianMs = 0.0; // of the waits after the first
    double p95Ms = 0.0;
    double meanMs = 0.0;
    double meanStepMs = 0.0; // compute
    double meanLoadMs = 0.0; // a batch's load time (its worker's)
    int period = 0; // 2 or more; 0: none (flat, a drift, spikes under 0.5 ms, too few batches)
    double periodStrength = 0.0; // its autocorrelation, -1..1
};

// `skip`: leading batches left out of the period (the start-up round).
WaitPattern analyzeWaits(const std::vector<TraceRecord> &records, std::int64_t skip = 0);

// The dominant period of `series`: 0 when no lag in 1..maxLag has an
// autocorrelation of at least `minStrength`, or the series is (nearly) constant.
int dominantPeriod(const std::vector<double> &series, int maxLag, double minStrength,
                   double *strength = nullptr);

} // namespace loaderlab
