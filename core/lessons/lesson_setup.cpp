#include "core/lessons/lesson_setup.h"

#include "core/config/config_fields.h"
#include "core/dataset/dataset.h"
#include "core/engine/run_service.h"
#include "core/lessons/verdict_support.h"
#include "core/tools/default_dataset.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

namespace loaderlab {
namespace {

using verdict::format;

// A step that hides loading is chosen for the slowest batch measured
// (chooseLessonStep); the text says so when that batch took this much longer than
// the median one.
constexpr double kNotedSlowest = 1.25;

bool setsKey(const ConfigSettings &settings, const std::string &prefix)
{
    return std::any_of(settings.begin(), settings.end(),
                       [&prefix](const auto &s) { return s.first.rfind(prefix, 0) == 0; });
}

// Whose samples were measured (`c`: the measuring run), as the text's subject.
std::string dataName(const RunConfig &c)
{
    switch (c.dataset.kind) {
    case DatasetKind::ImageFolder:
        return c.dataset.path.empty() ? "The default dataset's images" : "Your images";
    case DatasetKind::Python:
        return "Your pipeline's samples";
    case DatasetKind::TensorFile:
        return "Your tensor file's samples";
    default:
        return "The samples";
    }
}

std::string workersAtOnce(int workers)
{
    return workers == 1 ? std::string("1 worker") : format("%d workers at once", workers);
}

// The simulated step a phase runs with; 0 without one.
double simulatedStepMs(const RunConfig &c)
{
    return c.consumer.kind == ConsumerKind::Sleep ? c.consumer.sleepPerBatchMs : 0.0;
}

// What `step` against the loader's time per batch means for the lesson.
std::string stepConsequence(StepNeed need, bool met)
{
    if (need == StepNeed::LoaderLimits)
        return met ? "it is shorter than the loader's time per batch, so the loader stays the "
                     "limit"
                   : "it is not shorter than the loader's time per batch, so the step, not "
                     "the loader, is the limit and the pattern may not show";
    return met ? "it is longer than the loader's time per batch, so the workers keep ahead"
               : "it is not longer than the loader's time per batch, so the step waits for "
                 "loading and the pattern may not show";
}

bool changedByPhases(const Lesson &lesson, const std::string &key)
{
    return std::any_of(lesson.phases.begin(), lesson.phases.end(), [&key](const LessonPhase &p) {
        return std::any_of(p.changes.begin(), p.changes.end(),
                           [&key](const auto &change) { return change.first == key; });
    });
}

// What became of the user's settings that the preset would have changed (the step
// left out when the text already said it), and of those the guided steps set.
std::string userSettingsText(const Lesson &lesson, const RunConfig &base,
                             const ConfigSettings &user, bool stepSaid)
{
    const RunConfig preset = lessonPhaseConfig(lesson, base, 0);
    std::string kept, unused;
    for (const auto &[key, value] : user) {
        if (changedByPhases(lesson, key)) {
            unused += (unused.empty() ? "" : ", ") + key;
        } else if (!(stepSaid && key.rfind("consumer.", 0) == 0)
                   && getConfigField(preset, key) != value) {
            kept += (kept.empty() ? "" : ", ") + key + " = " + value.dump();
        }
    }
    std::string text;
    if (!kept.empty())
        text += "Your " + kept + " (--set) is kept over the lesson's preset.";
    if (!unused.empty())
        text += (text.empty() ? "" : " ") + ("Your --set of " + unused)
                + " is not used: the lesson's guided steps set it.";
    return text;
}

void appendSentence(std::string &text, const std::string &sentence)
{
    if (!sentence.empty())
        text += (text.empty() ? "" : " ") + sentence;
}

nlohmann::json settingsObject(const ConfigSettings &settings)
{
    nlohmann::json o = nlohmann::json::object();
    for (const auto &[key, value] : settings)
        o[key] = value;
    return o;
}

} // namespace

const char *stepNeedName(StepNeed need)
{
    switch (need) {
    case StepNeed::LoaderLimits:
        return "loader-limits";
    case StepNeed::StepHides:
        return "step-hides";
    case StepNeed::None:
        break;
    }
    return "none";
}

bool lessonMeasuresData(const Lesson &lesson)
{
    return lesson.setup.need != StepNeed::None;
}

std::string lessonDataProblem(const Lesson &lesson, const RunConfig &base)
{
    if (base.dataset.path.empty() || lesson.phases.empty())
        return {};
    const DatasetConfig used = lessonPhaseConfig(lesson, base, 0).dataset;
    // A lesson that preprocesses its data needs an image folder, whichever phase
    // reads the user's data as it is.
    const bool folderNeeded = lesson.needsTensorFile
                              && base.dataset.kind != DatasetKind::ImageFolder;
    if (used.kind == base.dataset.kind && used.path == base.dataset.path && !folderNeeded)
        return {};
    const std::string given =
        base.dataset.path + " is "
        + (base.dataset.kind == DatasetKind::TensorFile ? std::string("a preprocessed tensor file")
           : base.dataset.kind == DatasetKind::Python
               ? std::string("a Python pipeline file")
               : "data of the kind " + std::string(datasetKindName(base.dataset.kind)));
    if (lesson.needsTensorFile)
        return "lesson " + lesson.name
               + " compares an image folder with the tensor file preprocessed from it, so it "
                 "needs the image folder; "
               + given;
    if (used.kind == DatasetKind::Synthetic)
        return "lesson " + lesson.name + " runs on synthetic samples of its own ("
               + shapeToString(used.syntheticShape) + "), not on " + base.dataset.path;
    return "lesson " + lesson.name + " runs on data of the kind " + datasetKindName(used.kind)
           + ", not on " + base.dataset.path;
}

RunConfig lessonSetupRunConfig(const Lesson &lesson, const RunConfig &base,
                               const ConfigSettings &userSettings)
{
    LessonSetup user;
    user.userSettings = userSettings;
    RunConfig c = lessonPhaseConfig(lesson, base, lesson.setup.phase, user);
    // The loader alone, as fast as it goes: nothing between its batches.
    if (c.consumer.kind != ConsumerKind::Model)
        c.consumer.kind = ConsumerKind::None;
    c.consumer.sleepPerBatchMs = 0.0;
    c.consumer.sleepPerSampleMs = 0.0;
    c.loader.strategy = Strategy::PerWorkerBatch;
    c.epochs = 0;
    c.maxBatches = setupBatches(c.loader.numWorkers);
    if (lesson.setup.need == StepNeed::LoaderLimits)
        c.maxBatches *= kSetupBatchFactor; // setUpLesson stops it once it has enough
    return c;
}

bool setupMeasuringDone(const Lesson &lesson, const RunConfig &measuring, std::size_t batches,
                        double sinceFirstSeconds)
{
    const auto fewest = static_cast<std::size_t>(setupBatches(measuring.loader.numWorkers));
    const bool median = lesson.setup.need == StepNeed::LoaderLimits;
    return batches >= static_cast<std::size_t>(std::max<std::int64_t>(measuring.maxBatches, 1))
           || (batches >= fewest && (!median || sinceFirstSeconds >= kSetupMinLoadingSeconds))
           || sinceFirstSeconds >= kSetupSeconds;
}

LessonSetup lessonSetupFromRun(const Lesson &lesson, const RunConfig &base,
                               const ConfigSettings &userSettings,
                               const std::vector<TraceRecord> &records, double seconds,
                               const std::string &error)
{
    LessonSetup s;
    s.userSettings = userSettings;
    s.need = lesson.setup.need;
    if (s.need == StepNeed::None)
        return s;
    const RunConfig measuring = lessonSetupRunConfig(lesson, base, userSettings);
    const RunConfig planned = lessonPhaseConfig(lesson, base, lesson.setup.phase, s);
    const int workers = std::max(1, measuring.loader.numWorkers);
    const std::string data = dataName(measuring);
    LoaderMeasurement m = measureLoader(records, workers, measuring.loader.batchSize);
    m.seconds = seconds;
    s.figures = {{"need", stepNeedName(s.need)},
                 {"measured",
                  {{"engine", engineKindName(measuring.engine)},
                   {"workers", workers},
                   {"batch_size", m.batchSize},
                   {"batches", m.batches},
                   {"sample_load_ms", m.sampleLoadMs},
                   {"batch_load_ms", m.batchLoadMs},
                   {"epoch_samples", m.epochSamples},
                   {"samples_seen", m.samplesSeen},
                   {"slowest_sample_load_ms", m.slowestSampleLoadMs},
                   {"seconds", m.seconds}}},
                 {"user_set", settingsObject(userSettings)},
                 {"error", error}};
    if (m.batches == 0 || m.sampleLoadMs <= 0.0) {
        const std::string why = !error.empty()    ? error
                                : records.empty() ? format("no batch was loaded within %.0f s",
                                                           kSetupStartSeconds)
                                                  : std::string("no sample of its first batches "
                                                                "could be read");
        s.text = data + " could not be measured (" + why
                 + format("): the lesson keeps its preset, a %.1f ms step.",
                          simulatedStepMs(planned));
        s.stepMs = simulatedStepMs(planned);
        s.figures["step_ms"] = s.stepMs;
        appendSentence(s.text, userSettingsText(lesson, base, userSettings, false));
        return s;
    }
    s.measured = true;
    const bool ownStep = measuring.dataset.kind == DatasetKind::Python && m.ownStepMs >= 1.0;
    const bool userStep = setsKey(userSettings, "consumer.");
    const StepChoice c = chooseLessonStep(s.need, lesson.setup.periodWithinEpochs, workers, m,
                                          setsKey(userSettings, "loader.batch_size"));
    if (c.batchChanged)
        s.changes.emplace_back("loader.batch_size", c.batchSize);
    if (!userStep && !ownStep)
        s.changes.emplace_back("consumer.sleep_per_batch_ms", c.stepMs);
    s.chosenStepMs = c.stepMs;
    s.intervalMs = c.intervalMs;
    s.userStep = userStep || ownStep;
    s.stepMs = ownStep ? m.ownStepMs : userStep ? simulatedStepMs(planned) : c.stepMs;
    s.conditionMet = s.need == StepNeed::LoaderLimits ? s.stepMs < c.intervalMs
                                                      : s.stepMs > c.intervalMs;
    s.figures["batch_size"] = c.batchSize;
    s.figures["batch_load_ms"] = c.batchLoadMs;
    s.figures["loader_interval_ms"] = c.intervalMs;
    s.figures["slowest_interval_ms"] = c.slowestIntervalMs;
    s.figures["step_ms"] = s.stepMs;
    s.figures["chosen_step_ms"] = c.stepMs;
    s.figures["chosen"] = settingsObject(s.changes);
    s.figures["user_step"] = userStep;
    if (ownStep)
        s.figures["own_step_ms"] = m.ownStepMs;
    s.figures["condition_met"] = s.conditionMet;
    s.figures["readable"] = c.readable;
    s.figures["problem"] = c.problem;
    if (c.epochBatches > 0)
        s.figures["epoch_batches"] = c.epochBatches;

    const std::int64_t needed = 4 * static_cast<std::int64_t>(workers) + 1;
    if (c.batchChanged && m.epochSamples > 0 && c.batchSize < m.batchSize) {
        s.text = format(
            "%s make %lld batches of %d per epoch (%lld samples), too few to show "
            "a period of %d: it is read within each epoch and needs %lld batches "
            "there. The batch size is set to %d (%lld batches per epoch). ",
            data.c_str(), static_cast<long long>((m.epochSamples + m.batchSize - 1) / m.batchSize),
            m.batchSize, static_cast<long long>(m.epochSamples), workers,
            static_cast<long long>(needed), c.batchSize, static_cast<long long>(c.epochBatches));
    } else if (c.batchChanged) {
        s.text = format("A batch of %d loads in %.1f ms per worker, too little for spikes to "
                        "stand out: the batch size is set to %d. ",
                        m.batchSize, m.batchLoadMs, c.batchSize);
    }
    s.text += format("%s load a batch of %d in %.1f ms per worker with %s (measured: %lld "
                     "batches of %d in %.1f s), so the loader delivers a batch every %.1f ms. ",
                     data.c_str(), c.batchSize, c.batchLoadMs, workersAtOnce(workers).c_str(),
                     static_cast<long long>(m.batches), m.batchSize, m.seconds, c.intervalMs);
    if (ownStep) {
        s.text += format("Your pipeline's own step takes %.1f ms a batch and replaces the "
                         "simulated step, so the lesson keeps it: ",
                         m.ownStepMs)
                  + stepConsequence(s.need, s.conditionMet) + ".";
    } else if (userStep) {
        s.text += format("You set the simulated step to %.1f ms, and the lesson keeps it: ",
                         s.stepMs)
                  + stepConsequence(s.need, s.conditionMet)
                  + format(" (the lesson would have chosen %.1f ms).", c.stepMs);
    } else if (s.need == StepNeed::LoaderLimits) {
        s.text += format("The simulated step is set to %.1f ms, about a quarter of that, so "
                         "that the loader stays the limit: the step waits for each round of "
                         "batches, and the waits show it.",
                         c.stepMs);
    } else if (c.slowestIntervalMs > kNotedSlowest * c.intervalMs) {
        s.text += format("Its slowest batch after the first round took %.1f ms per worker (the "
                         "first rounds of a run load slower), a batch every %.1f ms: the "
                         "simulated step is set to %.0f ms, about three times that, so that the "
                         "workers keep ahead of the step even then and loading is hidden "
                         "behind it.",
                         c.slowestIntervalMs * workers, c.slowestIntervalMs, c.stepMs);
    } else {
        s.text += format("The simulated step is set to %.0f ms, about three times that, so "
                         "that the workers keep ahead of the step and loading is hidden "
                         "behind it.",
                         c.stepMs);
    }
    if (!c.readable)
        s.text += " Even so the pattern may not show: " + c.problem
                  + "; a folder with more images, or larger ones, shows it.";
    appendSentence(s.text, userSettingsText(lesson, base, userSettings, userStep || ownStep));
    return s;
}

LessonSetup setUpLesson(const Lesson &lesson, const RunConfig &base,
                        const ConfigSettings &userSettings, std::stop_token stop)
{
    LessonSetup none;
    none.userSettings = userSettings;
    if (!lessonMeasuresData(lesson)) {
        none.text = userSettingsText(lesson, base, userSettings, false);
        return none;
    }
    RunConfig config = lessonSetupRunConfig(lesson, base, userSettings);
    if (config.dataset.kind == DatasetKind::ImageFolder && config.dataset.path.empty())
        config.dataset.path = ensureDefaultImageFolder();
    const auto started = std::chrono::steady_clock::now();
    RunService service;
    std::string error;
    std::vector<TraceRecord> records;
    try {
        service.start(config);
        std::stop_callback stopRun(stop, [&service] { service.stop(); });
        // Timed from the first batch: the engine's start is not the data's cost.
        std::optional<std::chrono::steady_clock::time_point> firstBatch;
        while (!service.wait(50)) {
            const auto now = std::chrono::steady_clock::now();
            const auto trace = service.engine().trace();
            if (!firstBatch && trace && trace->size() > 0)
                firstBatch = now;
            const double sinceFirst = firstBatch
                                          ? std::chrono::duration<double>(now - *firstBatch).count()
                                          : 0.0;
            const double sinceStart = std::chrono::duration<double>(now - started).count();
            const std::size_t have = trace ? trace->size() : 0;
            if ((firstBatch && setupMeasuringDone(lesson, config, have, sinceFirst))
                || (!firstBatch && sinceStart >= kSetupStartSeconds)) {
                service.stop(); // what it loaded by now is enough to measure
                service.wait();
                break;
            }
        }
        if (service.state() == RunState::Failed)
            error = service.engine().error();
        if (const auto trace = service.engine().trace())
            records = trace->records();
    } catch (const std::exception &e) {
        error = e.what();
    }
    if (stop.stop_requested())
        return none;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return lessonSetupFromRun(lesson, base, userSettings, records, seconds, error);
}

LessonVerdict lessonVerdictWithSetup(LessonVerdict v, const LessonSetup &setup)
{
    // Phases that failed, were stopped or delivered nothing say nothing of the data.
    if (!setup.measured || v.text.rfind("No data", 0) == 0
        || v.text.rfind("Not enough phases", 0) == 0 || v.text.rfind("A phase failed", 0) == 0)
        return v;
    // The set-up found that no batch size lets this data show the pattern; it did
    // not show: the finding does not apply here, rather than "not seen".
    const std::string problem = setup.figures.value("problem", std::string());
    if (!v.observed && !setup.figures.value("readable", true) && !problem.empty()) {
        if (v.applies)
            v.text = verdict::kDoesNotApply
                     + std::string("the set-up found before the first phase that ") + problem + "; "
                     + (setsKey(setup.userSettings, "loader.batch_size")
                            ? "a smaller batch, or a folder with more images, shows it"
                            : "a folder with more images, or larger ones, shows it")
                     + ". What the phases showed: " + v.text;
        else
            v.text += " The set-up found it before the first phase: " + problem + ".";
        v.applies = false;
    }
    const bool loader = setup.need == StepNeed::LoaderLimits;
    if (setup.userStep) {
        const std::string whose = setup.figures.contains("own_step_ms")
                                      ? std::string("Your pipeline's step")
                                      : std::string("Your step");
        const std::string relation = format(
            "%s of %.1f ms %s the loader's %.1f ms per batch as "
            "measured before the first phase",
            whose.c_str(), setup.stepMs,
            loader ? (setup.conditionMet ? "was shorter than" : "was not shorter than")
                   : (setup.conditionMet ? "was longer than" : "was not longer than"),
            setup.intervalMs);
        if (v.observed && setup.conditionMet)
            v.text += " " + relation + ", as the pattern needs: your setting allowed it.";
        else if (v.observed)
            v.text += " " + relation
                      + ": it showed although the measurement said your setting would not "
                        "allow it (loading ran at another speed in the phases).";
        else if (!setup.conditionMet)
            v.text += " " + relation
                      + format(": your setting did not allow the pattern. Without --set for "
                               "the step the lesson would have chosen %.1f ms.",
                               setup.chosenStepMs);
        else
            v.text += " " + relation
                      + ": your setting allowed the pattern, so something else kept it from "
                        "showing (above).";
        return v;
    }
    if (!v.observed && v.applies)
        v.text += format(" (The set-up chose a %.1f ms step for the loader's %.1f ms per batch, "
                         "measured before the first phase.)",
                         setup.stepMs, setup.intervalMs);
    return v;
}

} // namespace loaderlab
