#pragma once

// RunSummary: the figures a run is judged by, computed from its trace.
// Definitions (docs/metrics.md):
//   - warm-up: the first `warmupBatches` batches are left out of throughput,
//     wait percentiles and the input-bound share (first-batch latency is kept apart);
//   - samples/s mean: samples / (last compute end - first request), after warm-up;
//   - samples/s median: median over rounds of W consecutive batches (one per worker;
//     single batches when W = 0) of samples / (request of the next round - request
//     of the round), after warm-up;
//   - first-batch latency: delivery of batch 0 minus the run's start (includes
//     worker start-up);
//   - input-bound share: sum of waits / (last compute end - first request), after
//     warm-up, banded < 5 % / 5-20 % / >= 20 % as in TensorFlow's input-pipeline analyzer;
//     no band (no verdict) for a run that delivered no sample, or whose consumer ran no
//     model step (it waits for every batch by construction);
//   - worker utilisation: each worker's busy time / the run's loading wall time.
// A run reconfigured live has segments, one per config version: each segment's
// figures use its own worker count (throughput rounds, utilisation), and the run's
// utilisation weighs each segment by its own worker count and loading time.

#include "core/record/trace_record.h"
#include "core/stats/replay_summary.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loaderlab {

struct RunConfig;

// The verdict on a run's input-bound share: one of its three bands, or why there is
// none.
//   NoSamples: the run delivered no sample (every one skipped, a pipeline whose
//     batches are all None, no batch yet): a share of nothing says nothing.
//   NoStep: the consumer ran no model step, so it waits for every batch by
//     construction and any run is "input-bound"; samples/s is the loader's own rate.
enum class InputBoundBand { NotInputBound, Moderately, Highly, NoSamples, NoStep };

// "not input-bound", "moderately input-bound", "highly input-bound", "no samples",
// "no model step".
const char *inputBoundBandName(InputBoundBand band);
// Whether `band` is one of the share's three bands (false for NoSamples and NoStep).
bool isShareBand(InputBoundBand band);

// The figures of one stretch of the run under one config version. Warm-up batches
// count in `batches` and `samples` but not in the rates, waits and share.
struct SegmentSummary
{
    std::int32_t configVersion = 0;
    std::int64_t firstBatch = 0;
    std::int64_t batches = 0;
    std::int64_t samples = 0;
    int numWorkers = 0;
    double seconds = 0.0; // first request to last compute end
    double samplesPerSecMean = 0.0;
    double samplesPerSecMedian = 0.0;
    double waitMeanMs = 0.0;
    double waitP95Ms = 0.0;
    double inputBoundShare = 0.0;          // mean over the ranks when there are several
    std::vector<double> workerUtilisation; // one per worker of this segment (of each rank)
    double meanWorkerUtilisation = 0.0;
};

// The figures of one data-parallel rank (RunConfig::devices), after its own warm-up.
struct RankSummary
{
    int rank = 0;
    std::int64_t batches = 0;
    std::int64_t samples = 0;
    double samplesPerSecMean = 0.0;
    double waitMeanMs = 0.0;
    double inputBoundShare = 0.0; // 0..1: the rank's waits over its steady window
    // Synchronised steps (RunConfig::syncDevices): the mean wait for the slowest rank
    // and the mean gradient exchange after it, per steady step, and their shares of
    // the rank's steady window (0..1); 0 where the ranks do not synchronise.
    double syncWaitMeanMs = 0.0;
    double exchangeMeanMs = 0.0;
    double syncWaitShare = 0.0;
    double exchangeShare = 0.0;
};

struct RunSummary
{
    std::int64_t batches = 0;
    std::int64_t samples = 0;
    std::int64_t skippedSamples = 0;
    std::int64_t warmupBatches = 0; // batches actually excluded
    double wallSeconds = 0.0;       // run start to last compute end
    double samplesPerSecMean = 0.0;
    double samplesPerSecMedian = 0.0;
    double firstBatchLatencyMs = 0.0;
    double waitP50Ms = 0.0;
    double waitP95Ms = 0.0;
    double waitP99Ms = 0.0;
    double waitMaxMs = 0.0;
    double waitMeanMs = 0.0;
    double computeMeanMs = 0.0;
    double copyMeanMs = 0.0;      // host-to-device copy (model consumers), else 0
    double inputBoundShare = 0.0; // 0..1
    // The verdict: the share's band; NoSamples when no sample was delivered (also of a
    // summary of nothing, as this default says); NoStep when every step after warm-up
    // took 0 ns (consumer "none" stamps its step so) or noteConsumerStep() says so.
    InputBoundBand band = InputBoundBand::NoSamples;
    std::vector<double> workerUtilisation; // 0..1, one per worker
    double meanWorkerUtilisation = 0.0;
    // Not from the trace: the consumer's peak memory of a step (RunController::
    // peakMemoryBytes()), 0 when the consumer does not measure it.
    std::int64_t peakMemoryBytes = 0;
    // Batches and worker spans past the trace's capacity, not stored (TraceLog).
    std::int64_t droppedRecords = 0;
    std::int64_t droppedSpans = 0;
    std::vector<SegmentSummary> segments; // in run order; one when never reconfigured
    // One per data-parallel rank; empty for a run on one device. With ranks, the run's
    // figures are of all of them: samples/s the total, the input-bound share the mean
    // of the ranks', worker utilisation one entry per worker of each rank (rank-major).
    std::vector<RankSummary> ranks;
    // A run that replayed its kept batches (RunConfig::replayBatches); firstBatch -1
    // otherwise.
    ReplaySummary replay;
};

// Linear-interpolated percentile (q in 0..100) of unsorted values; 0 when empty.
double percentile(std::vector<double> values, double q);

InputBoundBand bandForShare(double share);

// `workersByVersion[v]` is the worker count of config version v
// (TraceLog::workersByVersion()); versions past its end use its last entry.
RunSummary summarize(const std::vector<TraceRecord> &records, const std::vector<WorkerSpan> &spans,
                     const std::vector<int> &workersByVersion, int warmupBatches,
                     std::int64_t skippedSamples);
// A run with one worker count throughout.
RunSummary summarize(const std::vector<TraceRecord> &records, const std::vector<WorkerSpan> &spans,
                     int numWorkers, int warmupBatches, std::int64_t skippedSamples);

// Whether `config`'s consumer runs no model step: consumer "none", or a simulated step
// of 0 ms, with a dataset whose pipeline brings no step of its own (a "python"
// dataset's pipeline file may have one, so it says nothing without a simulated step).
bool configHasNoStep(const RunConfig &config);
// Gives a summary of a run with samples the NoStep verdict when configHasNoStep(config).
// The trace alone tells only when every step took exactly 0 ns; a 0 ms simulated step
// or the PyTorch engine's empty step take microseconds: a caller that knows the run's
// config (its report, the window's live figures) calls this.
void noteConsumerStep(RunSummary &summary, const RunConfig &config);

// One line of advice for the band, e.g. "input-bound 63 %: add workers or preprocess
// offline"; without a verdict, why there is none, e.g. "no sample was delivered (120
// skipped), so there is no input-bound verdict".
std::string adviceFor(const RunSummary &summary);
// The verdict as the summary's last line: "highly input-bound: input-bound 63 %: add
// workers or preprocess offline"; without a verdict, the advice alone.
std::string verdictLine(const RunSummary &summary);

} // namespace loaderlab
