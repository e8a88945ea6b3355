#pragma once

// The PyTorch engine's channel: what the engine's Python process writes on its
// records pipe (its fd 3; stdout and stderr are only captured), one JSON object per
// line, read by PyTorchRun (core/engine/pytorch/pytorch_run.h).
// Nothing here starts a process: the line splitter and the record parser are pure
// functions of their input, so they can be fuzzed (tests/fuzz/fuzz_pytorch_channel.cpp)
// and reused for any other stream of records.
//
// Every line is validated before use: a JSON object of scalars (a batch's "skips"
// and "spans" are arrays of pairs) with a known "type"
// and that type's fields, each of the right type and in range for the run
// (ChannelContext): batches numbered 0, 1, 2... in order, samples within the
// batch size, a worker the run has, times on the shared CLOCK_MONOTONIC between
// the engine's start and the moment the line arrived, in order. Live changes
// (LoaderLab's commands, numbered 1, 2, 3...) are answered by "reconfigured" (from
// that batch on, the new batch size and workers are the limits, and every batch
// carries the version) or "refused"; "paused" / "resumed" bracket a pause. Each
// batch says where in its epoch's order it starts ("first"): the batches of an
// epoch cover the order without gap or overlap. A data-parallel run's ranks
// (ChannelContext::ranks) each number their own batches and cover their own part of
// every epoch (a DistributedSampler's shard); a batch and an error say their "rank".
// A line that breaks
// any rule, or is longer than kMaxEngineLineBytes, is refused with
// ChannelError, the one exception these functions throw (docs/limits.md,
// "The PyTorch engine's channel").

#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace loaderlab {

// A clean refusal of the engine's output; what() says why, in a few words.
class ChannelError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// The longest line accepted from the engine (a batch record is about 400 bytes).
inline constexpr std::size_t kMaxEngineLineBytes = std::size_t{1} << 20;

// {"type":"start","torch":"2.1.0","samples":1000,"t0":123}: the DataLoader is built.
// "samples" is 0 for a dataset of unknown length (a pipeline's IterableDataset);
// "dataset", optional, describes it ("TextLines from my_pipeline.py (...)").
// "ranks", optional: the run's data-parallel ranks (ChannelContext::ranks).
struct ChannelStart
{
    std::string torch; // cut to 64 bytes
    std::int64_t samples = 0;
    std::int64_t t0Ns = 0;
    std::string dataset; // cut to 500 bytes
};

// A sample the bad-sample policy left out of a batch: its index in the dataset (-1
// in a stream) and why, the exception with the pipeline file's line.
struct ChannelSkip
{
    std::int64_t index = -1;
    std::string reason; // cut to 1,000 bytes
};

// {"type":"batch",...}: one batch, times in CLOCK_MONOTONIC nanoseconds.
struct ChannelBatch
{
    std::int32_t rank = 0;  // "rank", optional: the data-parallel rank that consumed it
    std::int64_t index = 0; // within its rank
    std::int32_t epoch = 0;
    std::int32_t worker = -1; // -1: the main process (no workers)
    std::int32_t samples = 0;
    std::int64_t loadStartNs = 0, collateStartNs = 0, loadEndNs = 0;
    std::int64_t readNs = 0, decodeNs = 0, transformNs = 0; // sums over the samples
    std::int64_t requestNs = 0, deliveryNs = 0, computeStartNs = 0, computeEndNs = 0;
    // "sync_start", "sync_end", "exchange_end", optional (0: not taken): the rank
    // reached the step's barrier, every rank had, the gradient exchange ended.
    std::int64_t syncStartNs = 0, syncEndNs = 0, exchangeEndNs = 0;
    std::int64_t version = 0; // the live change in force (0: the settings the run started with)
    std::int64_t first = 0;   // position of its first sample in the epoch's order
    // The sum modulo 2^61 of its samples' ids (engineSampleId): a sample delivered
    // twice or never shows in the epoch's sum.
    std::int64_t ids = 0;
    // Samples the bad-sample policy left out ("skipped", optional, 0): the batch used
    // samples + skipped places of its epoch's order; "skips" names at most 100.
    std::int32_t skipped = 0;
    std::vector<ChannelSkip> skips;
    // "spans", optional: each sample's [start, end] inside the load, in order (a
    // pipeline file's __getitem__ calls); empty: the load is one span.
    std::vector<std::pair<std::int64_t, std::int64_t>> spans;
    // After a "replay" record: a kept batch the step runs again, loaded by no worker
    // ("worker" -1) and ready when asked for; its samples are within the batch size,
    // its "first" goes on from the batch before (not bounded by the epoch's order).
    bool replayed = false;
};

// The most entries "skips" and "spans" may have.
inline constexpr std::size_t kMaxEngineSkips = 100;
inline constexpr std::size_t kMaxEngineSpans = 4096;

// {"type":"reconfigured","version":V,"index":I,"t":T,"batch_size":B,"workers":W}:
// LoaderLab's change number V (and any sent before it) applies from batch I on.
struct ChannelReconfigured
{
    std::int64_t version = 0;
    std::int64_t index = 0;
    std::int64_t tNs = 0;
    std::int32_t batchSize = 0;
    std::int32_t workers = 0;
};

// {"type":"refused","version":V,"message":"..."}: change V was not applied.
struct ChannelRefused
{
    std::int64_t version = 0;
    std::string message; // cut to 2,000 bytes
};

// {"type":"paused","index":I,"t":T} and {"type":"resumed",...}: the engine waits
// (or goes on) before batch I.
struct ChannelPaused
{
    std::int64_t index = 0;
    std::int64_t tNs = 0;
};

struct ChannelResumed
{
    std::int64_t index = 0;
    std::int64_t tNs = 0;
};

// {"type":"error","message":"...","refused":true}: the engine's own account of why it
// stops; "refused", optional, says the run's settings or dataset cannot run at all
// (a pipeline's empty dataset), which LoaderLab's engine refuses before a run starts.
struct ChannelFailure
{
    std::string message; // cut to 2,000 bytes
    bool refused = false;
    std::int32_t rank = 0; // "rank", optional: the data-parallel rank that failed
};

// {"type":"phase","what":"importing my_pipeline.py","seconds":120,"t":T}: before the
// start record, the engine runs a piece of a pipeline file's code that may take at
// most `seconds`; PyTorchRun ends the process group when it takes longer.
struct ChannelPhase
{
    std::string what; // cut to 500 bytes
    double seconds = 0.0;
    std::int64_t tNs = 0;
};

// The longest a phase may be given (a day).
inline constexpr double kMaxEnginePhaseSeconds = 86400.0;

// {"type":"replay","index":I,"t":T,"batches":N}: from batch I on, the engine has shut
// its DataLoader down and runs the step on the N batches it kept (RunConfig::
// replayBatches); I >= N. Once per run, not while paused, one rank only.
struct ChannelReplay
{
    std::int64_t index = 0;
    std::int64_t tNs = 0;
    std::int64_t batches = 0;
};

// {"type":"end","batches":N}: all batches sent.
struct ChannelEnd
{
    std::int64_t batches = 0;
};

using EngineRecord =
    std::variant<ChannelStart, ChannelBatch, ChannelFailure, ChannelEnd, ChannelReconfigured,
                 ChannelRefused, ChannelPaused, ChannelResumed, ChannelPhase, ChannelReplay>;

// The largest batch size and worker count a "reconfigured" record may name.
inline constexpr std::int32_t kMaxEngineBatchSize = 1 << 20;
inline constexpr std::int32_t kMaxEngineWorkers = 1024;

// The sum of engineSampleId over a batch's samples is its "ids" modulo 2^61
// (splitmix64's finalizer of index + 0x9E3779B97F4A7C15, as pytorch_engine.py).
std::uint64_t engineSampleId(std::int64_t index);
inline constexpr std::uint64_t kEngineIdsModulus = std::uint64_t{1} << 61;

// Where a data-parallel rank other than rank 0 is in its records (rank 0's are
// ChannelContext's own batches, epoch and epochSamples).
struct ChannelRankProgress
{
    std::int64_t batches = 0;
    std::int32_t epoch = 0;
    std::int64_t epochSamples = 0;
};

// The most data-parallel ranks a run may have.
inline constexpr int kMaxEngineRanks = 64;

// What a record may say, from the run's settings and the records so far.
struct ChannelContext
{
    // Times outside [earliestNs, latestNs] are refused: earliestNs is when the
    // engine was started (then the start record's t0), latestNs the time the line
    // arrived (a record cannot come from the future on a shared monotonic clock).
    std::int64_t earliestNs = 0;
    std::int64_t latestNs = std::numeric_limits<std::int64_t>::max();
    int batchSize = 1; // the current ones: a "reconfigured" record changes them
    int workers = 0;
    int epochs = 0;              // 0: no limit
    std::int64_t maxBatches = 0; // per rank; 0: no limit
    int ranks = 1;               // data-parallel ranks, each with its own shard
    // Advanced by acceptEngineRecord:
    bool started = false;
    bool ended = false;
    std::int64_t datasetSamples = 0;
    std::int64_t orderSamples = 0; // places in a rank's epoch order: ceil(dataset / ranks)
    // Rank 0's (the only rank's without data parallelism):
    std::int64_t batches = 0;      // batch records so far: the next batch's index
    std::int32_t epoch = 0;        // the last batch's epoch
    std::int64_t epochSamples = 0; // places of that epoch's order used: the next "first"
    std::vector<ChannelRankProgress> otherRanks; // ranks 1 .. ranks - 1
    // Live changes: the latest LoaderLab sent (set by the reader before each line),
    // the latest answered (applied or refused), the one in force.
    std::int64_t requestedVersion = 0;
    std::int64_t answeredVersion = 0;
    std::int64_t version = 0;
    bool paused = false;
    std::int64_t pausedNs = 0;
    bool replaying = false; // after the "replay" record
};

// Parses and validates one line (without its newline). Throws ChannelError.
EngineRecord parseEngineRecord(std::string_view line, const ChannelContext &context);

// Moves `context` past an accepted record (the next index, epoch, t0...).
void acceptEngineRecord(ChannelContext &context, const EngineRecord &record);

// `line` for a message: at most `maxBytes` of it, control characters and invalid
// UTF-8 escaped as \xHH, and "... (N bytes)" when it was cut.
std::string quoteEngineLine(std::string_view line, std::size_t maxBytes = 200);

// Splits a byte stream into lines of at most `maxLine` bytes (newline excluded).
class ChannelLineSplitter
{
public:
    explicit ChannelLineSplitter(std::size_t maxLine = kMaxEngineLineBytes)
        : m_maxLine(maxLine)
    {
    }

    // Calls onLine for each complete line in `bytes` (after what came before).
    // Throws ChannelError when a line, complete or not, is longer than the
    // limit; the buffer then never holds more than the limit plus `bytes`.
    void feed(std::string_view bytes, const std::function<void(std::string_view)> &onLine);
    // The start of an unfinished line (for the message about a cut-off stream).
    const std::string &pending() const { return m_pending; }

private:
    std::size_t m_maxLine;
    std::string m_pending;
};

} // namespace loaderlab
