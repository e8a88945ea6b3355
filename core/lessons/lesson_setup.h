#pragma once

// A lesson set up on the chosen data before its first phase. A lesson whose verdict
// needs the loader to be the limit (or the step to hide it; Lesson::setup) measures
// the data on this machine with a short run of the phase that binds the condition,
// its workers at once and no step (setupBatches() batches, a few seconds at most, on
// the lesson's engine), and chooses its simulated step, and for a period lesson the
// batch size, from what it measured (chooseLessonStep). It says what it measured and
// chose, and why, in a learner's words (LessonSetup::text) and figures (the JSON's
// "setup"). What the user set (--set) is kept, measured against, and the verdict
// then says whether it allowed the pattern. The command line runs the measuring
// itself (setUpLesson); the window runs it as a live run and hands its trace to
// lessonSetupFromRun.

#include "core/lessons/lesson.h"
#include "core/lessons/lesson_setup_rule.h"

#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace loaderlab {

using ConfigSettings = std::vector<std::pair<std::string, nlohmann::json>>;

// The measuring run ends this long after its first batch at the latest; what it
// measured by then is used.
inline constexpr double kSetupSeconds = 4.0;
// Its first batch must come within this: the engine's start (the PyTorch engine's
// Python and its worker processes) and the first round.
inline constexpr double kSetupStartSeconds = 30.0;
// A lesson that needs the loader to be the limit reads the median batch: where the
// data loads so fast that its batches take a few milliseconds in all, the measuring
// run goes on past them (up to kSetupBatchFactor times as many) until it has loaded
// this long, so that the median is not the start-up's.
inline constexpr double kSetupMinLoadingSeconds = 0.3;
inline constexpr int kSetupBatchFactor = 8;

// True when `lesson` measures the data before its first phase.
bool lessonMeasuresData(const Lesson &lesson);

// Why `lesson` cannot run on the data `base` names (a folder or file of the user's),
// naming the lesson; "" when it can, or when `base` names none (the default
// dataset). A lesson whose preset puts other data in its place cannot: model-trade
// trains on synthetic samples of its own, and tensors-vs-jpeg compares an image
// folder with the tensor file preprocessed from it, so it needs the folder.
std::string lessonDataProblem(const Lesson &lesson, const RunConfig &base);

// The measuring run: the lesson's phase that binds its condition (Lesson::setup)
// with the user's settings, batch per worker, no simulated step, at most
// setupBatches() of its workers (kSetupBatchFactor times that for a lesson that
// needs the loader to be the limit; setupMeasuringDone() says when to stop).
RunConfig lessonSetupRunConfig(const Lesson &lesson, const RunConfig &base,
                               const ConfigSettings &userSettings);

// Whether the measuring run `measuring` of `lesson` has measured enough, with
// `batches` delivered, the first `sinceFirstSeconds` ago: its setupBatches(), and for
// a lesson that reads the median batch kSetupMinLoadingSeconds of loading too, or
// kSetupSeconds at the latest. The command line and the window stop it by this.
bool setupMeasuringDone(const Lesson &lesson, const RunConfig &measuring, std::size_t batches,
                        double sinceFirstSeconds);

// The set-up from the measuring run's records (`seconds`: how long it took;
// `error`: why it failed, "" when it did not). With no batch to measure, the lesson
// keeps its preset and the text says why.
LessonSetup lessonSetupFromRun(const Lesson &lesson, const RunConfig &base,
                               const ConfigSettings &userSettings,
                               const std::vector<TraceRecord> &records, double seconds,
                               const std::string &error = {});

// Measures the data with lessonSetupRunConfig on the engine `base` names (the
// default dataset generated first when it is the one) and sets the lesson up. For a
// lesson that measures nothing, only the user's settings. A stop request ends the
// measuring; the set-up then has no measurement.
LessonSetup setUpLesson(const Lesson &lesson, const RunConfig &base,
                        const ConfigSettings &userSettings, std::stop_token stop = {});

// The verdict with what the set-up adds: where the set-up found that no batch size
// lets the data show the pattern (StepChoice::readable) and it did not show, that
// the finding does not apply to this data, and why (LessonVerdict::applies); where
// the user set the step (or a pipeline brought its own), whether that step allowed
// the pattern; where the set-up chose it and the pattern did not show, what it
// chose against what it measured.
LessonVerdict lessonVerdictWithSetup(LessonVerdict verdict, const LessonSetup &setup);

const char *stepNeedName(StepNeed need); // "loader-limits", "step-hides", "none"

} // namespace loaderlab
