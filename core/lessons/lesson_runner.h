#pragma once

// Runs a lesson headless: each phase a run of its own through RunService (the
// default dataset generated, and for the tensor lesson preprocessed, on first use),
// then the verdict. The window runs the same phases live, one after another.

#include "core/lessons/lesson.h"

#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace loaderlab {

struct LessonProgress
{
    std::size_t phase = 0;
    const LessonPhase *step = nullptr;
    const LessonPhaseResult *result = nullptr; // set when the phase ended
    // At a phase's start: what the lesson says before it (Lesson::briefing); nullptr
    // when it says nothing.
    const LessonBriefing *briefing = nullptr;
    std::string note; // "preparing the tensor file", ...
};

// The uint8 tensor file a lesson compares `folder` with, in the cache directory
// (core/tools/default_dataset.h); preprocessed when missing. A stop request ends the
// preprocessing after the image being written (nothing is left behind) and throws
// std::runtime_error.
std::string lessonTensorFile(const std::string &folder,
                             const std::function<void(const std::string &)> &note = {},
                             std::stop_token stop = {});

// Why `lesson` cannot run on the engine `base` names ("phase 'tensor file': the
// PyTorch engine reads image folders and synthetic data, not tensor datasets");
// "" when every phase can. Lessons run on either engine and judge both the same way.
std::string lessonEngineProblem(const Lesson &lesson, const RunConfig &base);

// The phases as they ran, each with the briefing said before it; fewer than the
// lesson's when stopped. `setup` (setUpLesson(), core/lessons/lesson_setup.h): the
// settings chosen for the chosen data and the user's own, over the preset. Throws
// std::invalid_argument (lessonEngineProblem()) before any phase runs, and what
// RunService::start throws for a setting that cannot run.
std::vector<LessonPhaseResult>
runLesson(const Lesson &lesson, const RunConfig &base, std::stop_token stop,
          const std::function<void(const LessonProgress &)> &onProgress = {},
          const LessonSetup &setup = {});

// The phase's figures from its trace: the waits, and the dataset's bytes on disk.
LessonPhaseResult lessonPhaseResult(std::string label, const RunConfig &config,
                                    std::vector<TraceRecord> records, const RunSummary &summary);

} // namespace loaderlab
