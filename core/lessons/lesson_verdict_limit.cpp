// "What is the limit here?": the run's rate while its loader fed the step against the
// step alone on the batches it kept (RunConfig::replayBatches, core/stats/replay_summary.h),
// and, when the loader is the limit, which of its stages took its workers' time (reading
// or decoding), read from the phase's records, so the window's live phase and a headless
// run give one answer.
#include "core/lessons/lesson.h"
#include "core/lessons/verdict_support.h"

namespace loaderlab {
using verdict::format;

namespace {

// Loading's share of the job's time beyond which the loader is the limit, and under
// which the step is: the input-bound bands' edges (docs/metrics.md).
constexpr double kLoaderBinds = 0.20;
constexpr double kStepBinds = 0.05;

// Where the loaded batches' loading time went: reading the files against decoding and
// transforming them (the records' sums over their samples), before the replay.
struct StageSplit
{
    double read = 0.0;
    double decode = 0.0; // decode + transform

    bool known() const { return read + decode > 0.0; }
    double readShare() const { return read / (read + decode); }
};

StageSplit loadedStages(const LessonPhaseResult &phase, std::int64_t kept)
{
    StageSplit split;
    for (const TraceRecord &r : phase.records)
        if (r.index >= phase.config.warmupBatches && r.index < kept) {
            split.read += static_cast<double>(r.readNs);
            split.decode += static_cast<double>(r.decodeNs + r.transformNs);
        }
    return split;
}

// Which stage of the loader to lift, from where its time went.
std::string loaderStageText(const StageSplit &split)
{
    if (!split.known())
        return "Lift it with more workers, the fast decode, smaller inputs or preprocessed "
               "tensors";
    const double read = split.readShare() * 100.0;
    if (split.readShare() >= 0.5)
        return format("Its workers spent %.0f %% of their loading time reading the files and "
                      "%.0f %% decoding and transforming them: reading binds. Lift it with faster "
                      "storage, fewer bytes a sample or data that fits in the page cache",
                      read, 100.0 - read);
    return format("Its workers spent %.0f %% of their loading time decoding and transforming "
                  "and %.0f %% reading the files: the decode binds. Lift it with more workers "
                  "or cores, the fast decode, smaller inputs or preprocessed tensors",
                  100.0 - read, read);
}

} // namespace

LessonVerdict limitVerdict(const std::vector<LessonPhaseResult> &phases)
{
    LessonVerdict v;
    if (!verdict::phasesUsable(phases, 1, 4, v))
        return v;
    const LessonPhaseResult &phase = phases.front();
    const std::int64_t kept = phase.config.replayBatches;
    ReplayTally tally;
    tally.start(kept > 0 ? kept : static_cast<std::int64_t>(phase.records.size()));
    for (const TraceRecord &r : phase.records)
        tally.add(r, r.index >= phase.config.warmupBatches);
    const ReplaySummary replay = tally.summary();
    if (kept <= 0 || !replay.known()) {
        v.applies = false;
        v.text = std::string(verdict::kDoesNotApply)
                 + format("the phase needs a rate while loading (more "
                          "than %d batches of warm-up kept) and one with loading free (batches "
                          "after the %lld kept); it had %lld and %lld.",
                          phase.config.warmupBatches, static_cast<long long>(kept),
                          static_cast<long long>(replay.loadedBatches),
                          static_cast<long long>(replay.replayedBatches));
        return v;
    }
    const double loaded = replay.loadedSamplesPerSec;
    const double alone = replay.replaySamplesPerSec;
    const double share = replay.loadingShare;
    v.figures = {{"kept_batches", kept},
                 {"loaded_samples_per_sec", loaded},
                 {"replay_samples_per_sec", alone},
                 {"loading_share", share}};
    const StageSplit stages = loadedStages(phase, kept);
    if (stages.known())
        v.figures["read_share"] = stages.readShare();
    v.observed = true;
    if (share >= kLoaderBinds) {
        v.text = format("Seen: the loader is the limit. It delivered %.0f samples/s; with loading "
                        "free the step alone ran at %.0f (%.1fx), so loading costs %.0f %% of the "
                        "job's time. ",
                        loaded, alone, alone / loaded, share * 100.0)
                 + loaderStageText(stages)
                 + format("; up to %.0f samples/s, where the step becomes the limit (then half "
                          "precision, channels-last, a faster device).",
                          alone);
    } else if (share <= kStepBinds) {
        v.text = format("Seen: the step is the limit. Loading costs %.0f %% of the job's time "
                        "(%.0f samples/s while loading, %.0f with loading free): a faster loader "
                        "would gain at most that. Lift the step: half precision, channels-last, "
                        "a smaller model, a faster device; the loader's own ceiling is in "
                        "Run > Limits of this machine.",
                        share * 100.0, loaded, alone);
    } else {
        v.text = format("Seen: both are close. Loading costs %.0f %% of the job's time (%.0f "
                        "samples/s while loading, %.0f with loading free): a faster loader gains "
                        "at most that, and beyond %.0f samples/s only a faster step helps.",
                        share * 100.0, loaded, alone, alone);
    }
    return v;
}

} // namespace loaderlab
