#pragma once

// A run as a Chrome JSON trace (the "Trace Event Format" that Perfetto's UI and
// chrome://tracing open): one process, a track per worker with a slice per batch
// it built and, inside, the batch's read / decode / transform / collate time; a
// track for the consumer with wait, copy and step slices; batches the consumer
// loaded itself (0 workers) and pinning on tracks of their own; markers as global
// instant events; throughput as a counter. Times are microseconds from the run's
// start. Events are sorted by time, parents before their children, and slices on
// one track nest or follow each other, never overlap.
//
// read / decode / transform are sums over the batch's samples (the loader times
// each sample's stages, not their order), drawn back to back from the batch's
// start: the slices show how the batch's time divides, not when each sample ran.

#include "core/io/summary_json.h"
#include "core/record/trace_record.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace loaderlab {

struct ChromeTraceTracks
{
    static constexpr int kConsumer = 1;
    static constexpr int kConsumerLoading = 2; // batches loaded on the consumer's thread
    static constexpr int kPin = 3;
    static constexpr int kFirstWorker = 10; // worker w is kFirstWorker + w
};

// `records` and `spans` as the trace holds them (a run with trace retention holds
// only its last batches: the file says which batches it covers).
nlohmann::json chromeTrace(const RunReport &report, const std::vector<TraceRecord> &records,
                           const std::vector<WorkerSpan> &spans);

// Atomic (see writeFileAtomically). Throws std::runtime_error naming the path.
void saveChromeTrace(const std::string &path, const RunReport &report,
                     const std::vector<TraceRecord> &records, const std::vector<WorkerSpan> &spans);

} // namespace loaderlab
