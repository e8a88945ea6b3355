#include "widgets/lessons/lesson_panel_tracker.h"

#include "core/config/config_fields.h"
#include "core/lessons/lesson_runner.h"
#include "core/stats/run_summary.h"

#include <algorithm>
#include <utility>

namespace loaderlab {
namespace {

// The verdicts need a few batches of a phase before they say anything.
constexpr std::int64_t kMinBatchesForVerdict = 4;

} // namespace

void LessonTracker::start(const Lesson &lesson, const RunConfig &base, const LessonSetup &setup)
{
    m_lesson = &lesson;
    m_base = base;
    m_setup = setup;
    m_keys.clear();
    for (const LessonPhase &phase : lesson.phases) {
        for (const auto &change : phase.changes)
            m_keys.insert(change.first);
    }
    // A phase measures the settings chosen for the data: a run with other values
    // for them waits for the step.
    for (const auto &change : setup.changes)
        m_keys.insert(change.first);
    m_trace.reset();
    m_state = State::Running;
    m_phase = 0;
    m_minStart = 0;
    m_start.reset();
    m_version.reset();
    m_done.clear();
    m_briefings.assign(lesson.phases.size(), {});
    m_phaseStart.reset();
    m_final.reset();
}

void LessonTracker::startSetUp(const Lesson &lesson, const RunConfig &base)
{
    start(lesson, base);
    m_state = State::SettingUp;
}

std::vector<TraceRecord> LessonTracker::setupRecords() const
{
    if (m_state != State::SettingUp || !m_trace)
        return {};
    return m_trace->records();
}

void LessonTracker::stop()
{
    std::function<CpuSample()> sampler = std::move(m_sampleCpu);
    *this = LessonTracker();
    m_sampleCpu = std::move(sampler);
}

void LessonTracker::setCpuSampler(std::function<CpuSample()> sampler)
{
    m_sampleCpu = sampler ? std::move(sampler) : sampleCpu;
}

void LessonTracker::setTrace(std::shared_ptr<const TraceLog> trace)
{
    m_trace = std::move(trace);
    m_minStart = 0;
    m_start.reset();
    m_version.reset();
    m_phaseStart.reset();
    update();
}

RunConfig LessonTracker::phaseConfig(std::size_t i) const
{
    return lessonPhaseConfig(*m_lesson, m_base, i, m_setup);
}

bool LessonTracker::matchesPhase(const RunConfig &config, std::size_t i) const
{
    const RunConfig want = phaseConfig(i);
    return std::all_of(m_keys.begin(), m_keys.end(), [&](const std::string &key) {
        return getConfigField(config, key) == getConfigField(want, key);
    });
}

bool LessonTracker::update()
{
    if ((m_state != State::Running && m_state != State::WaitingForStep) || !m_trace)
        return false;
    const State before = m_state;
    const std::size_t phaseBefore = m_phase;
    const std::vector<ConfigVersion> versions = m_trace->configVersions();
    const std::size_t size = m_trace->size();
    m_start.reset();
    m_version.reset();
    m_state = State::WaitingForStep;
    // Sampled at most once an update, and only where a phase starts or ends.
    std::optional<CpuSample> now;
    const auto sampleNow = [&]() -> const CpuSample & {
        if (!now)
            now = m_sampleCpu();
        return *now;
    };
    // Each config version is one stretch of settings: the current phase takes the
    // first stretch with its settings that is long enough, from where the phase
    // before it ended.
    for (std::size_t v = 0; v < versions.size() && m_phase < m_lesson->phases.size(); ++v) {
        const std::size_t end = v + 1 < versions.size()
                                    ? static_cast<std::size_t>(versions[v + 1].firstBatch)
                                    : size;
        const bool last = v + 1 == versions.size();
        while (m_phase < m_lesson->phases.size()) {
            const std::size_t from = std::max(static_cast<std::size_t>(versions[v].firstBatch),
                                              m_minStart);
            if (from > end || !matchesPhase(versions[v].config, m_phase))
                break;
            const auto want = static_cast<std::size_t>(m_lesson->phases[m_phase].batches);
            if (end - from < want) {
                if (last) {
                    m_state = State::Running;
                    m_start = from;
                    m_version = versions[v];
                }
                break;
            }
            m_done.push_back(resultOf(versions[v], from, from + want));
            if (m_phaseStart && m_phaseStart->phase == m_phase && m_phaseStart->from == from)
                m_done.back().load = machineLoadBetween(m_phaseStart->sample, sampleNow());
            m_phaseStart.reset();
            m_minStart = from + want;
            ++m_phase;
            // Said before the next phase, shown while the window waits for its step.
            if (m_lesson->briefing && m_phase < m_lesson->phases.size())
                m_briefings[m_phase] = m_lesson->briefing(m_done, phaseConfig(m_phase));
        }
    }
    if (m_phase == m_lesson->phases.size()) {
        m_state = State::Done;
        // Final: computed once (Predict, then watch calibrates and simulates for it),
        // not at every refresh that shows it.
        m_final = lessonVerdictWithSetup(m_lesson->verdict(m_done), m_setup);
    }
    if (m_state == State::Running && m_start
        && (!m_phaseStart || m_phaseStart->phase != m_phase || m_phaseStart->from != *m_start))
        m_phaseStart = PhaseStart{m_phase, *m_start, sampleNow()};
    return m_state != before || m_phase != phaseBefore;
}

const LessonBriefing &LessonTracker::briefing(std::size_t i) const
{
    static const LessonBriefing none;
    return i < m_briefings.size() ? m_briefings[i] : none;
}

std::int64_t LessonTracker::phaseBatches() const
{
    if (m_state != State::Running || !m_start || !m_trace)
        return 0;
    return static_cast<std::int64_t>(m_trace->size() - *m_start);
}

LessonPhaseResult LessonTracker::resultOf(const ConfigVersion &version, std::size_t from,
                                          std::size_t to) const
{
    std::vector<TraceRecord> records = m_trace->records(from, to);
    const auto batch = [](std::size_t b) { return static_cast<std::int64_t>(b); };
    const auto [spanFrom, spanTo] = [&] {
        const auto hold = m_trace->hold();
        return std::pair(m_trace->firstSpanOfBatch(batch(from)),
                         m_trace->firstSpanOfBatch(batch(to)));
    }();
    const std::vector<WorkerSpan> spans = m_trace->spans(spanFrom, spanTo);
    const RunSummary summary = summarize(records, spans, version.config.loader.numWorkers,
                                         version.config.warmupBatches, 0);
    const std::size_t phase = std::min(m_phase, m_lesson->phases.size() - 1);
    LessonPhaseResult result = lessonPhaseResult(m_lesson->phases[phase].label, version.config,
                                                 std::move(records), summary);
    result.briefing = briefing(phase);
    return result;
}

std::vector<LessonPhaseResult> LessonTracker::phasesSoFar() const
{
    std::vector<LessonPhaseResult> all = m_done;
    if (m_state == State::Running && m_start && m_version)
        all.push_back(resultOf(*m_version, *m_start, m_trace->size()));
    return all;
}

std::optional<LessonVerdict> LessonTracker::verdict() const
{
    if (!m_lesson)
        return std::nullopt;
    if (m_state == State::Done)
        return m_final;
    if (m_state == State::Running && m_phase + 1 == m_lesson->phases.size()
        && phaseBatches() >= kMinBatchesForVerdict)
        return lessonVerdictWithSetup(m_lesson->verdict(phasesSoFar()), m_setup);
    return std::nullopt;
}

} // namespace loaderlab
