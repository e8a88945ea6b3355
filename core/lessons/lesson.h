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
    std::string error;             // the run failed: why
    LessonBriefing briefing;       // what the lesson said before the phase ran
};

struct LessonVerdict
{
    bool observed = false;
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
    bool needsModel = false;      // a LibTorch model consumer
    bool needsTensorFile = false; // the default dataset preprocessed (prepared if missing)
};

const std::vector<Lesson> &lessons();
// nullptr when there is none by that name.
const Lesson *findLesson(const std::string &name);

// The preset, then the phase's changes, over `base`.
RunConfig lessonPhaseConfig(const Lesson &lesson, const RunConfig &base, std::size_t phase);

// Verdicts, public for tests on traces whose answer is known.
LessonVerdict firstBatchVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict periodVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict slowModelVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict biggerBatchVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict tensorVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict zeroWorkerVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict oversubscribedVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict sampleParallelVerdict(const std::vector<LessonPhaseResult> &phases);
LessonVerdict modelTradeVerdict(const std::vector<LessonPhaseResult> &phases);
// Predict, then watch: the loader model calibrated on the last phase of `before`
// and its prediction for `next`; then the prediction (phase 2's briefing) against
// what phase 2 measured.
LessonBriefing predictionBriefing(const std::vector<LessonPhaseResult> &before,
                                  const RunConfig &next);
LessonVerdict predictionVerdict(const std::vector<LessonPhaseResult> &phases);

} // namespace loaderlab
