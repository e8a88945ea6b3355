#pragma once

// LessonTracker: a guided lesson followed on the window's live run (no Qt). The
// lesson's phases are stretches of the live trace: phase i is the first
// `phase.batches` batches run with phase i's settings (the lesson's setting keys as
// the phase wants them) in one config version, after the previous phase ended. A
// change of settings in the middle of a phase starts the phase again at the new
// config version (a phase measures one setting); settings that are not the phase's
// leave the phase waiting for its step. A new run (a new trace: the dataset changed)
// starts the phase in progress again on it. When a phase ends, the lesson's briefing
// for the next one (Lesson::briefing: predict-then-watch's prediction) is computed
// from the phases so far and kept with that phase. When every phase has its batches
// the verdict is the core's (Lesson::verdict) over the phases' traces; while the
// last phase runs, the same verdict over what it has so far. A lesson that measures
// the data first (core/lessons/lesson_setup.h) is followed from startSetUp(): the
// measuring run's trace comes with setTrace, and the lesson proper starts with the
// set-up chosen from it (start()), whose settings then belong to every phase. Each
// phase's load on the machine (LessonPhaseResult::load, which predict-then-watch
// counts) is measured between CPU samples taken when the phase is first seen running
// and when it is seen ended: unknown for a phase that started and ended between two
// updates, and for the phase in progress.

#include "core/lessons/lesson.h"
#include "core/lessons/lesson_setup.h"
#include "core/system/cpu_load.h"
#include "core/trace/trace_log.h"

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace loaderlab {

class LessonTracker
{
public:
    enum class State {
        Idle,           // no lesson going
        SettingUp,      // the measuring run before the first phase (startSetUp)
        Running,        // the current phase is collecting batches
        WaitingForStep, // the run's settings are not the current phase's yet
        Done,           // every phase ran: verdict() is final
    };

    // Follows `lesson` from its first phase; `base` is the config the preset was
    // applied over and `setup` what was chosen for the data (lessonPhaseConfig). The
    // trace comes with setTrace.
    void start(const Lesson &lesson, const RunConfig &base, const LessonSetup &setup = {});
    // Follows the measuring run of `lesson` (lessonSetupRunConfig over `base`), whose
    // trace comes with setTrace; then start() with the set-up.
    void startSetUp(const Lesson &lesson, const RunConfig &base);
    // While setting up: the measuring run's records so far.
    std::vector<TraceRecord> setupRecords() const;
    const RunConfig &base() const { return m_base; }
    const LessonSetup &setup() const { return m_setup; }
    void stop(); // back to Idle, the lesson forgotten
    // A new run: the phase in progress starts over on it (finished phases are kept).
    void setTrace(std::shared_ptr<const TraceLog> trace);
    // Reads what the trace gained; true when the state or the phase changed.
    bool update();

    State state() const { return m_state; }
    const Lesson *lesson() const { return m_lesson; }
    std::size_t phase() const { return m_phase; } // the current one; phases().size() when done
    // Batches the current phase has so far (0 while waiting for its step).
    std::int64_t phaseBatches() const;
    // The phases that ended, then (while running) the current phase so far.
    std::vector<LessonPhaseResult> phasesSoFar() const;
    const std::vector<LessonPhaseResult> &finishedPhases() const { return m_done; }
    // Phase i's settings over the base (the preset and the phase's changes).
    RunConfig phaseConfig(std::size_t i) const;
    // What the lesson said before phase i: computed when the phase before it ended;
    // empty before that, for phase 0 and for a lesson without briefings.
    const LessonBriefing &briefing(std::size_t i) const;
    // The lesson's setting keys (every phase's changes, and the set-up's choices).
    const std::set<std::string> &keys() const { return m_keys; }
    // True when `config` has phase i's values for every lesson key.
    bool matchesPhase(const RunConfig &config, std::size_t i) const;
    // Final when Done; while the last phase runs (with at least a few batches), the
    // verdict over the phases so far; nothing before.
    std::optional<LessonVerdict> verdict() const;
    // How the machine's CPU time is sampled for the phases' loads: sampleCpu() unless
    // set (tests give samples whose load is known). Kept by stop().
    void setCpuSampler(std::function<CpuSample()> sampler);

private:
    LessonPhaseResult resultOf(const ConfigVersion &version, std::size_t from,
                               std::size_t to) const;

    const Lesson *m_lesson = nullptr;
    RunConfig m_base;
    LessonSetup m_setup;
    std::set<std::string> m_keys;
    std::shared_ptr<const TraceLog> m_trace;
    State m_state = State::Idle;
    std::size_t m_phase = 0;
    std::size_t m_minStart = 0; // the current phase starts at or after this batch
    std::optional<std::size_t> m_start;
    std::optional<ConfigVersion> m_version; // the config version the phase runs in
    std::vector<LessonPhaseResult> m_done;
    std::vector<LessonBriefing> m_briefings; // one per phase
    std::optional<LessonVerdict> m_final;    // the verdict once every phase ended
    std::function<CpuSample()> m_sampleCpu = sampleCpu;
    // Taken when the current phase was first seen running from batch `from`.
    struct PhaseStart
    {
        std::size_t phase = 0;
        std::size_t from = 0;
        CpuSample sample;
    };
    std::optional<PhaseStart> m_phaseStart;
};

} // namespace loaderlab
