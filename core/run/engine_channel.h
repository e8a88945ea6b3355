#pragma once

// The PyTorch engine's channel: what the engine's Python process writes on its
// stdout, one JSON object per line, read by PyTorchRun (core/run/pytorch_run.h).
// Nothing here starts a process: the line splitter and the record parser are pure
// functions of their input, so they can be fuzzed (tests/fuzz/fuzz_engine_channel.cpp)
// and reused for any other stream of records.
//
// Every line is validated before use: a JSON object of scalars with a known "type"
// and that type's fields, each of the right type and in range for the run
// (EngineChannelContext): batches numbered 0, 1, 2... in order, samples within the
// batch size, a worker the run has, times on the shared CLOCK_MONOTONIC between
// the engine's start and the moment the line arrived, in order. A line that breaks
// any rule, or is longer than kMaxEngineLineBytes, is refused with
// EngineChannelError, the one exception these functions throw (docs/limits.md,
// "The PyTorch engine's channel").

#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

namespace loaderlab {

// A clean refusal of the engine's output; what() says why, in a few words.
class EngineChannelError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// The longest line accepted from the engine (a batch record is about 400 bytes).
inline constexpr std::size_t kMaxEngineLineBytes = std::size_t{1} << 20;

// {"type":"start","torch":"2.1.0","samples":1000,"t0":123}: the DataLoader is built.
struct EngineStart
{
    std::string torch; // cut to 64 bytes
    std::int64_t samples = 0;
    std::int64_t t0Ns = 0;
};

// {"type":"batch",...}: one batch, times in CLOCK_MONOTONIC nanoseconds.
struct EngineBatch
{
    std::int64_t index = 0;
    std::int32_t epoch = 0;
    std::int32_t worker = -1; // -1: the main process (no workers)
    std::int32_t samples = 0;
    std::int64_t loadStartNs = 0, collateStartNs = 0, loadEndNs = 0;
    std::int64_t readNs = 0, decodeNs = 0, transformNs = 0; // sums over the samples
    std::int64_t requestNs = 0, deliveryNs = 0, computeStartNs = 0, computeEndNs = 0;
};

// {"type":"error","message":"..."}: the engine's own account of why it stops.
struct EngineFailure
{
    std::string message; // cut to 2,000 bytes
};

// {"type":"end","batches":N}: all batches sent.
struct EngineEnd
{
    std::int64_t batches = 0;
};

using EngineRecord = std::variant<EngineStart, EngineBatch, EngineFailure, EngineEnd>;

// What a record may say, from the run's settings and the records so far.
struct EngineChannelContext
{
    // Times outside [earliestNs, latestNs] are refused: earliestNs is when the
    // engine was started (then the start record's t0), latestNs the time the line
    // arrived (a record cannot come from the future on a shared monotonic clock).
    std::int64_t earliestNs = 0;
    std::int64_t latestNs = std::numeric_limits<std::int64_t>::max();
    int batchSize = 1;
    int workers = 0;
    int epochs = 0;              // 0: no limit
    std::int64_t maxBatches = 0; // 0: no limit
    // Advanced by acceptEngineRecord:
    bool started = false;
    bool ended = false;
    std::int64_t datasetSamples = 0;
    std::int64_t batches = 0; // batch records so far: the next batch's index
    std::int32_t epoch = 0;   // the last batch's epoch
};

// Parses and validates one line (without its newline). Throws EngineChannelError.
EngineRecord parseEngineRecord(std::string_view line, const EngineChannelContext &context);

// Moves `context` past an accepted record (the next index, epoch, t0...).
void acceptEngineRecord(EngineChannelContext &context, const EngineRecord &record);

// `line` for a message: at most `maxBytes` of it, control characters and invalid
// UTF-8 escaped as \xHH, and "... (N bytes)" when it was cut.
std::string quoteEngineLine(std::string_view line, std::size_t maxBytes = 200);

// Splits a byte stream into lines of at most `maxLine` bytes (newline excluded).
class EngineLineSplitter
{
public:
    explicit EngineLineSplitter(std::size_t maxLine = kMaxEngineLineBytes)
        : m_maxLine(maxLine)
    {
    }

    // Calls onLine for each complete line in `bytes` (after what came before).
    // Throws EngineChannelError when a line, complete or not, is longer than the
    // limit; the buffer then never holds more than the limit plus `bytes`.
    void feed(std::string_view bytes, const std::function<void(std::string_view)> &onLine);
    // The start of an unfinished line (for the message about a cut-off stream).
    const std::string &pending() const { return m_pending; }

private:
    std::size_t m_maxLine;
    std::string m_pending;
};

} // namespace loaderlab
