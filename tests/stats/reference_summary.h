#pragma once

// referenceSummarize(): RunSummary from a whole stored trace, computed directly from
// the definitions, as the yardstick for SummaryAccumulator.

#include "core/stats/run_summary.h"

namespace loaderlab {

RunSummary referenceSummarize(const std::vector<TraceRecord> &records,
                              const std::vector<WorkerSpan> &spans,
                              const std::vector<int> &workersByVersion, int warmupBatches,
                              std::int64_t skippedSamples);

} // namespace loaderlab
