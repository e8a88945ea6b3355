#pragma once

// The gradient exchange of a calibrated run (calibration.h): its bytes (the run's
// gradient_mb), and the link a data-parallel run measured it on (network_link.h):
// the median all-reduce of its steps after each rank's warm-up, and how much of a
// core each rank's exchange kept busy on the host the ranks shared (the run's own CPU
// time over the ranks' share of time exchanging). A 1-rank run measures no link; the
// notes say so.

#include "core/predict/calibration.h"

#include <vector>

namespace loaderlab {

void calibrateExchange(const std::vector<TraceRecord> &records, Calibration &cal);

} // namespace loaderlab
