#pragma once

// What the calibration (calibration.h) reads off a recorded trace beyond each batch's
// own costs: which batches count as warm-up, which filled a fresh pool buffer, the
// consumer's own time after a step, the workers' delay in taking a task and their
// start-up. Internal to core/predict.

#include "core/config/run_config.h"
#include "core/record/trace_record.h"

#include <string>
#include <vector>

namespace loaderlab {

struct Calibration;

std::string calibrationMillis(double seconds); // "1.234 ms"

// Each rank's batches after its first `warmup` (all of them when that leaves none).
std::vector<const TraceRecord *> afterWarmup(const std::vector<TraceRecord> &records, int warmup);

// LoaderLab's engine: per record (by position), whether its batch filled a buffer its
// rank's loader had never used: per rank, the first W x prefetch + 1 batches
// dispatched (W = 0: the first) under the run's first config (a reconfigured loader
// starts a pool of its own, which the model does not follow). All false for other
// engines, which allocate every batch anew.
std::vector<char> freshBufferBatches(const std::vector<TraceRecord> &records,
                                     const RunConfig &config);

// The consumer's own time from a step's end to its next request, within epochs and
// after the warm-up.
double afterStepSeconds(const std::vector<TraceRecord> &records, const RunConfig &config);

// Per-worker batches: the mean time from a worker having its next task to starting it.
double taskStartSeconds(const std::vector<const TraceRecord *> &steady);

// Sets cal.costs.startupSeconds and restartSeconds (after every other cost is set):
// how much later than expected the first batch of the run was loaded, and how much
// later than a task's delay each later epoch's first load started (non-persistent
// workers).
void measureStartup(const std::vector<TraceRecord> &records, Calibration &cal);

} // namespace loaderlab
