#pragma once

// Lessons: each research finding as something to watch happen. A lesson is a short
// explanation, a preset over the user's base settings, one or more phases (the
// guided steps: "now set workers to 3"), the pattern to expect, and a verdict that
// is computed from the phases' traces on this machine — what was observed, and when
// the pattern did not show, why and what to change. Nothing in a verdict is written
// in advance but its wording.

#include "core/config/run_config.h"
#include "core/stats/run_summary.h"
#include "core/stats/wait_pattern.h"
#include "core/system/cpu_load.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace loaderlab {

struct LessonPhase
{
    std::string label;       // "2 workers"
    std::string instruction; // the guided step, "Now set workers to 3."; "" for the first
    std::vector<std::pair<std::string, nlohmann::json>> changes; // config key -> value
    std::int64_t batches = 60;
};

// What a lesson says before a phase, computed from the phases that ran before it:
// predict-then-watch's prediction of the next setting by the loader model. Like a
// verdict, only its wording is written in advance.
struct LessonBriefing
{
    std::string text; // "" when the lesson says nothing before the phase
    nlohmann::json figures = nlohmann::json::object();
};

// One phase as it ran.
struct LessonPhaseResult
{
    std::string label;
    RunConfig config;
    std::vector<TraceRecord> records;
    RunSummary summary;
    WaitPattern waits;
    std::int64_t datasetBytes = 0; // on disk, where the lesson compares sizes
    // The mean pixels of a sample as stored: an image folder's images before they are
    // decoded and resized, a tensor file's samples; 0 where unknown or another kind.
    double storedPixels = 0.0;
    std::string error;       // the run failed: why
    LessonBriefing briefing; // what the lesson said before the phase ran
    // How busy the machine was while the phase ran (core/system/cpu_load.h): the
    // run's own measure on the command line, sampled at the phase's start and end in
    // the window; unknown where it was not measured.
    MachineLoad load;
};

// What a lesson's verdict needs of its simulated step against the loader on the
// chosen data (docs/loader-semantics.md: with W workers the loader delivers a batch
// every T / W, T one worker's time to build a batch). The set-up
// (core/lessons/lesson_setup.h) measures T before the first phase and chooses the
// step from it.
enum class StepNeed {
    None,         // no simulated step, or a verdict that does not depend on it
    LoaderLimits, // a step shorter than T / W: the consumer waits for the loader
    StepHides,    // a step longer than T / W: the workers keep ahead, loading is hidden
};

struct LessonSetupPlan
{
    StepNeed need = StepNeed::None;
    std::size_t phase = 0; // the phase measured, whose workers the condition binds
    // The verdict reads a period of W batches within each epoch: the batch size must
    // leave epochs long enough for it.
    bool periodWithinEpochs = false;
};

// What a lesson set up for the chosen data before its first phase: the settings it
// chose over its preset, the user's own settings (--set), which win over both
// (except the keys the phases change: those are the lesson's steps), and what it
// measured and why it chose so, in words and figures.
struct LessonSetup
{
    std::vector<std::pair<std::string, nlohmann::json>> changes;      // chosen
    std::vector<std::pair<std::string, nlohmann::json>> userSettings; // the user's
    std::string text; // for the learner; "" when the lesson had nothing to set up
    nlohmann::json figures = nlohmann::json::object(); // measured and chosen ("setup")
    StepNeed need = StepNeed::None;
    bool measured = false;     // the data was measured: the figures below hold
    double stepMs = 0.0;       // the step the phases run with (the user's when set)
    double chosenStepMs = 0.0; // what the rule chose from the measurement
    double intervalMs = 0.0;   // the loader's time per batch, T / W, as measured
    bool userStep = false;     // the user set the step: the lesson kept it
    bool conditionMet = false; // stepMs against intervalMs is what `need` asks
};

struct LessonVerdict
{
    bool observed = false;
    // False when the data cannot show the finding (epochs too short for a period of
    // W, a folder smaller than the bigger batch, ...): not seen, and not to be looked
    // for here. The text then starts "Does not apply to this data: " and says why.
    bool applies = true;
    std::string text; // what was seen, with the measured figures; if not seen, why and what to do
    nlohmann::json figures = nlohmann::json::object();
};

struct Lesson
{
    std::string name;  // for `loaderlab lesson NAME`
    std::string title; // "The first batch waits longest"
    std::string explanation;
    std::string expected; // the pattern to look for
    std::function<void(RunConfig &)> preset;
    std::vector<LessonPhase> phases;
    std::function<LessonVerdict(const std::vector<LessonPhaseResult> &)> verdict;
    // Computed when a phase ends, before the next one runs: from the phases so far
    // (`before`) and the next phase's settings (`next`, lessonPhaseConfig). The
    // runner reports it before the phase starts (the command line prints it), the
    // window's tracker shows it with the next step, and both keep it with the
    // phase's result for the verdict. Empty for a lesson that says nothing between
    // phases.
    std::function<LessonBriefing(const std::vector<LessonPhaseResult> &before,
                                 const RunConfig &next)>
        briefing = {};
    LessonSetupPlan setup = {};   // what its verdict needs of the step, on the chosen data
    bool needsModel = false;      // LibTorch: a model consumer, or the gradient exchange
    bool needsTensorFile = false; // the default dataset preprocessed (prepared if missing)
};

const std::vector<Lesson> &lessons();
// nullptr when there is none by that name.
const Lesson *findLesson(const std::string &name);

// The preset, the set-up's choices, the user's settings (but for the keys the
// phases change), then the phase's changes, over `base`.
RunConfig lessonPhaseConfig(const Lesson &lesson, const RunConfig &base, std::size_t phase,
                            const LessonSetup &setup = {});

// Verdicts, public for tests on traces whose answer is known.
LessonVerdict firstBatchVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict periodVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict slowModelVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict biggerBatchVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict tensorVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict zeroWorkerVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict oversubscribedVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict sampleParallelVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict devicesVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict modelTradeVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict limitVerdict(const std::vector<LessonPhaseResult> &phases);
// Predict, then watch: the loader model calibrated on the last phase of `before`
// and its prediction for `next`; then the prediction (phase 2's briefing) against
// what phase 2 measured.
LessonBriefing predictionBriefing(const std::vector<LessonPhaseResult> &before,
                                  const RunConfig &next);
LessonVerdict predictionVerdict(const std::vector<LessonPhaseResult> &phases);

} // namespace loaderlab
