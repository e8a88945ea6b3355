#pragma once

// TraceRecord: everything measured about one batch, stamped by each stage it passes.
// Times are nanoseconds on std::chrono::steady_clock, relative to the run's start;
// 0 means "stage not taken" (no pin stage, no copy).

#include <cstdint>
#include <string>
#include <vector>

namespace loaderlab {

// TraceRecord::worker values that are not a worker number.
inline constexpr std::int32_t kConsumerThread = -1; // W = 0: the consumer loaded it
inline constexpr std::int32_t kAllWorkers = -2;     // sample-parallel: every worker helped

struct TraceRecord
{
    std::int64_t index = 0; // batch number within the run (0-based)
    std::int32_t epoch = 0;
    std::int32_t worker = kConsumerThread; // building worker, kConsumerThread or kAllWorkers
    std::int32_t samples = 0;              // samples delivered in the batch
    std::int32_t skipped = 0;              // samples dropped by the skip policy
    std::int32_t configVersion = 0;        // bumps on every reconfigure
    std::int32_t rank = 0;                 // data-parallel rank (device) that consumed it

    std::int64_t dispatchNs = 0; // indices handed to a worker
    std::int64_t loadStartNs = 0;
    std::int64_t loadEndNs = 0;
    std::int64_t readNs = 0; // sums over the batch's samples
    std::int64_t decodeNs = 0;
    std::int64_t transformNs = 0;
    std::int64_t collateNs = 0;
    std::int64_t readyNs = 0; // in the reorder buffer
    std::int64_t pinStartNs = 0;
    std::int64_t pinEndNs = 0;
    std::int64_t requestNs = 0;   // consumer asks for the batch
    std::int64_t deliveryNs = 0;  // consumer gets it; wait = delivery - request
    std::int64_t copyStartNs = 0; // host-to-device copy (model consumers)
    std::int64_t copyEndNs = 0;
    std::int64_t computeStartNs = 0;
    std::int64_t computeEndNs = 0;
    // Synchronised data-parallel steps: the rank reaches the step's synchronisation,
    // every rank has (the wait for the slowest), and the gradient exchange that
    // follows ends (core/consumer/gradient_exchange.h). 0: not taken.
    std::int64_t syncStartNs = 0;
    std::int64_t syncEndNs = 0;
    std::int64_t exchangeEndNs = 0;

    std::int64_t waitNs() const { return deliveryNs - requestNs; }
    std::int64_t computeNs() const { return computeEndNs - computeStartNs; }
    std::int64_t loadNs() const { return loadEndNs - loadStartNs; }
    // Waiting for the slowest rank, and the exchange itself; 0 where not taken.
    std::int64_t syncWaitNs() const { return syncEndNs > 0 ? syncEndNs - syncStartNs : 0; }
    std::int64_t exchangeNs() const { return exchangeEndNs > 0 ? exchangeEndNs - syncEndNs : 0; }
};

// One stretch of time a worker spent building (part of) one batch.
struct WorkerSpan
{
    std::int64_t batch = 0;
    std::int32_t worker = 0; // worker number (within its rank), or kConsumerThread
    std::int32_t rank = 0;   // data-parallel rank whose loader the worker belongs to
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
};

// What a marker records. Markers are data, not text: each view words them in its
// own language (core/config/marker_text.h in English, the window translates).
enum class MarkerKind {
    Reconfigure, // settings changed live: `changes` lists them
    Pause,
    Resume,
    Epoch,    // a new epoch starts: `detail` is its number
    Autotune, // a change made by the autotuner: `changes`, and `detail` its reason
    Lesson,   // a guided lesson's step: `detail`
    Note,     // anything else: `detail`
    Replay,   // loading stops, the step runs on the batches kept: `detail` is their count
};

const char *markerKindName(MarkerKind kind); // "reconfigure", "pause", ...
bool markerKindFromName(const std::string &name, MarkerKind &kind);

// One setting a marker changed: its config key path and the values as text
// (core/config/config_fields.h, configValueText).
struct FieldChange
{
    std::string field;
    std::string before;
    std::string after;

    bool operator==(const FieldChange &) const = default;
};

// A point in the run: a reconfiguration, a pause, an epoch start.
struct TraceMarker
{
    std::int64_t batch = 0; // first batch the marker applies to
    std::int64_t timeNs = 0;
    MarkerKind kind = MarkerKind::Note;
    std::int32_t configVersion = 0; // the config version in force from `batch` on
    std::vector<FieldChange> changes;
    std::string detail;

    bool operator==(const TraceMarker &) const = default;
};

// A sample the skip policy dropped.
struct SkippedSample
{
    std::int64_t batch = 0;
    std::int64_t sampleIndex = 0;
    std::string source;
    std::string reason;
};

} // namespace loaderlab
