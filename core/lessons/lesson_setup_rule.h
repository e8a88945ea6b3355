#pragma once

// The rule that sets a lesson up on the chosen data: what a short run measured (one
// worker's time to build a batch, with the phase's workers at once, and the epoch's
// length), and the step and batch size chosen from it so that the condition the
// lesson's verdict needs holds with a margin. Pure functions, so a test gives known
// costs and gets a known step.
//
// The loader semantics (docs/loader-semantics.md): with W workers each building
// whole batches, one batch taking a worker T, the loader delivers a batch every
// T / W. A step C shorter than that leaves the consumer waiting for the loader: a
// round of W batches arrives together, the consumer takes them in W * C, then waits
// about T - W * C for the next round, a spike every W batches. A step longer than
// T / W lets the workers keep ahead: only the first batch waits.

#include "core/lessons/lesson.h"
#include "core/record/trace_record.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loaderlab {

// A loader-limited step is this share of the loader's time per batch (T / W): the
// spikes are then about 3T / 4 high, and the loader stays the limit while loading
// runs up to four times as fast as measured. (On the 2-core VM, 432 photos, the
// period of 3 workers showed at a quarter in 3 runs of 3, at a third in 1 of 3.)
inline constexpr double kLoaderLimitShare = 0.25;
// A step that hides loading is this many times T / W, T the slowest batch after the
// first round: the workers keep ahead while loading runs up to three times as slow
// as measured (other programs on the cores).
inline constexpr double kStepHidesFactor = 3.0;
// For a period lesson a batch must take a worker at least this long: the spikes,
// more than half of it, then stand over twice as high as the 0.5 ms under which the
// period reader takes waits for scheduling noise (core/stats/wait_pattern.h).
inline constexpr double kMinSpikeBatchMs = 2.0;
// The largest batch the rule sets when it makes batches larger.
inline constexpr int kMaxSetupBatch = 256;

struct LoaderMeasurement
{
    int workers = 0;               // with which the run measured
    int batchSize = 0;             // at which it measured
    std::int64_t batches = 0;      // the batches the figures are read from
    double sampleLoadMs = 0.0;     // one worker's time per sample (median of the batches)
    double batchLoadMs = 0.0;      // sampleLoadMs * batchSize: one worker builds one batch
    std::int64_t epochSamples = 0; // samples in one whole epoch; 0: none ended in the run
    double ownStepMs = 0.0;        // the step's time with no simulated step (a pipeline's)
    double seconds = 0.0;          // how long the measuring took
    // Samples the run read (delivered and skipped): where no epoch ended, an epoch
    // holds at least these.
    std::int64_t samplesSeen = 0;
    // The slowest of the batches sampleLoadMs is the median of, per sample: the
    // rounds after the first can still load far slower than the rest at a run's
    // start (on 2 cores, 432 images of 32 px: 65-74 ms a batch of 32 against 3 ms).
    double slowestSampleLoadMs = 0.0;
};

// The figures of a measuring run's records (`workers`, `batchSize`: its settings):
// the batches after the first round of W (its workers starting, files first read),
// or all of them when there are no more.
LoaderMeasurement measureLoader(const std::vector<TraceRecord> &records, int workers,
                                int batchSize);

// The batches an epoch must hold for a period of W to be read in it: 4W + 1. Each
// epoch's start-up round of W is left out, and the period reader (core/stats/
// wait_pattern.h) reads lags up to a third of what is left. (Asking for 5W + 1 was
// measured side by side with it on 50 and 432 photos, 10 rounds each: no more runs
// saw the period; docs/lessons.md.)
std::int64_t periodEpochBatches(int workers);

// Batches the measuring run needs: a few rounds of W after the first, and enough for
// a period lesson to tell whether an epoch holds periodEpochBatches().
std::int64_t setupBatches(int workers);

struct StepChoice
{
    double stepMs = 0.0;
    int batchSize = 0;
    double batchLoadMs = 0.0;       // one worker, at batchSize
    double intervalMs = 0.0;        // the loader's time per batch: batchLoadMs / workers
    double slowestIntervalMs = 0.0; // the same for the slowest batch measured
    bool batchChanged = false;
    // For a period lesson: an epoch's batches at batchSize (0: more than measured).
    std::int64_t epochBatches = 0;
    bool readable = true; // false: no batch size shows the period here (why: `problem`)
    std::string problem;
};

// The step (and, for a period lesson whose batch the user did not set, the batch
// size) for `need`, from what was measured with `workers` workers.
// LoaderLimits: the step is kLoaderLimitShare of T / W, at least 0.1 ms (a step, so
// that the waits between the spikes are short); a period lesson's batch is made
// smaller when an epoch holds fewer than periodEpochBatches(), or larger when a batch
// takes under kMinSpikeBatchMs, within what the epoch allows (where no epoch ended
// in the measuring run, within what the samples it read allow: an epoch may be no
// longer).
// StepHides: kStepHidesFactor times T / W, T the slowest batch measured (the
// verdicts read every later wait: the step must hide the slow ones too), in whole
// milliseconds.
StepChoice chooseLessonStep(StepNeed need, bool periodWithinEpochs, int workers,
                            const LoaderMeasurement &m, bool batchFixed);

} // namespace loaderlab
