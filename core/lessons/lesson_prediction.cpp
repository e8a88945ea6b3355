// Predict, then watch: the loader model (core/predict, docs/what-if.md) calibrated on
// a phase's trace, its prediction for the next phase's setting before that phase
// runs, and the verdict that sets the prediction beside what the phase measured.
// The predicted waits are read from the predicted batches by the same code that
// reads the measured ones (analyzeWaits), so both sides mean the same thing. Each
// phase carries the machine's load while it ran (LessonPhaseResult::load): the
// calibration counts what other programs took (core/predict/busy_machine.h), the
// prediction assumes they go on taking it, and after phase 2 the model predicts
// phase 2 again for the load measured while it ran.
#include "core/io/summary_json.h"
#include "core/lessons/lesson.h"
#include "core/lessons/verdict_support.h"
#include "core/predict/calibration.h"
#include "core/predict/loader_model.h"
#include "core/trace/trace_log.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

namespace loaderlab {
using verdict::format;
using verdict::ratio;

namespace {

// The model held when the measured samples/s is within this share of the predicted:
// about its median error over whole sweeps (docs/what-if.md, "Predicted against
// measured").
constexpr double kPredictionTolerance = 0.15;
// A calibration leaves out the warm-up batches (5 by default): fewer than this
// leaves too few to read a sample's cost from, and phase 2 too few to measure.
constexpr std::int64_t kMinPredictionBatches = 10;
// The rule for which prediction phase 2 is judged against: other programs' demand on
// the machine (otherDemandCores, busy_machine.h: the cores they took, with programs of
// LoaderLab's own session counted as busy threads, so that phase 2's extra worker does
// not change it) differs by more than kLoadChangeCores between phase 1 and phase 2:
// the load changed noticeably, and phase 2 is judged against the re-prediction for the
// load measured while it ran; otherwise against the prediction made before it
// (docs/lessons.md).

int machineCores()
{
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// The phase's records as the trace of a run of its own: its epochs counted from its
// first (a phase in the middle of the window's run starts at a later epoch), on this
// machine's cores, as busy as they were while it ran.
Calibration calibrationOfPhase(const LessonPhaseResult &phase)
{
    std::vector<TraceRecord> records = phase.records;
    const std::int32_t firstEpoch = records.empty() ? 0 : records.front().epoch;
    for (TraceRecord &r : records)
        r.epoch -= firstEpoch;
    RunReport report;
    report.config = phase.config;
    report.summary = phase.summary;
    report.configVersions = {ConfigVersion{0, 0, 0, phase.config}};
    report.machine.logicalCores = machineCores();
    report.machineLoad = phase.load;
    return calibrateFromRun(records, report);
}

// "other programs", or "other programs and the hypervisor" where steal took a share.
std::string othersText(const MachineLoad &load)
{
    return load.stealCores >= 0.05 ? "other programs and the hypervisor" : "other programs";
}

// The cores other programs took while a phase ran, as the model counts them.
std::string takenText(const LessonPhaseResult &phase, const BusyMachine &busy)
{
    if (!phase.load.known())
        return "unmeasured";
    return busy.busy ? coresText(busy.takenCores) : std::string("under 0.1");
}

nlohmann::json loadFigures(const MachineLoad &load)
{
    return load.known() ? toJson(load) : nlohmann::json();
}

// Phase 2 predicted again from phase 1's costs, for the same setting and amount of
// work as the prediction made before it, but on the machine as busy as it was while
// phase 2 ran: other programs' load counted as a calibration on phase 2 would count
// it (B fitted over phase 2's own busy threads). Not made when phase 2's load is
// unknown or the model cannot be calibrated.
struct Reprediction
{
    bool made = false;
    BusyMachine busy; // phase 2's load as the model counts it
    double samplesPerSec = 0.0;
    WaitPattern waits;
};

Reprediction repredict(const LessonPhaseResult &first, const LessonPhaseResult &watched,
                       const nlohmann::json &predicted)
{
    Reprediction out;
    if (!watched.load.known())
        return out;
    try {
        const Calibration cal = calibrationOfPhase(first);
        out.busy = calibrationOfPhase(watched).busyMachine;
        RunConfig next = watched.config;
        next.maxBatches = predicted.value("max_batches", next.maxBatches);
        ModelSetting setting = settingFor(cal, next);
        setting.outsideCores = out.busy.outsideCores;
        setting.otherLoad = out.busy.otherLoad;
        const Prediction p = predictLoader(costsFor(cal, next), setting);
        out.samplesPerSec = p.samplesPerSecond;
        out.waits = analyzeWaits(
            predictedRecords(p.batches), std::max(1, next.loader.numWorkers),
            loaderFirstFillBatches(next.loader.numWorkers, next.loader.prefetchFactor));
        out.made = true;
    } catch (const std::invalid_argument &) {
        out = {};
    }
    return out;
}

// Wall time a sample took to load (read, decode, transform, its share of collate),
// over the phase's batches; 0 when none was loaded.
double lessonSampleLoadMs(const std::vector<TraceRecord> &records)
{
    double ns = 0.0;
    std::int64_t samples = 0;
    for (const TraceRecord &r : records) {
        if (r.loadEndNs <= r.loadStartNs || r.samples + r.skipped <= 0)
            continue;
        ns += static_cast<double>(r.loadNs());
        samples += r.samples + r.skipped;
    }
    return samples > 0 ? ns / 1e6 / static_cast<double>(samples) : 0.0;
}

std::string periodPhrase(int period)
{
    return period > 0 ? format("every %d batches", period) : std::string("no regular spikes");
}

std::string workersText(int workers)
{
    return workers == 1 ? std::string("1 worker") : format("%d workers", workers);
}

// Why the model missed, from what the two phases measured (docs/what-if.md, "Where
// it was wrong"): more workers than cores, samples that cost more or less than in
// the phase the model was calibrated on, or the pipeline around them.
std::string likelyReason(const LessonPhaseResult &first, const LessonPhaseResult &watched,
                         const nlohmann::json &predicted, double error)
{
    const int workers = watched.config.loader.numWorkers;
    const int cores = predicted.value("cores", 0);
    std::string why;
    if (cores > 0 && workers > cores) {
        why += format("Phase 2 ran %d workers on %d cores: past one worker per core they take "
                      "turns in ways the model's processor sharing does not capture (memory "
                      "bandwidth, caches, the scheduler), and docs/what-if.md found such "
                      "settings slower than predicted. ",
                      workers, cores);
    }
    const double before = lessonSampleLoadMs(first.records);
    const double after = lessonSampleLoadMs(watched.records);
    const double change = ratio(after, before) - 1.0;
    if (before > 0.0 && after > 0.0 && change > kPredictionTolerance) {
        why += format("A sample took %.2f ms to load in phase 2 against %.2f ms in phase 1 "
                      "(%+.0f %%): the workers slowed each other (memory bandwidth, caches) or "
                      "other programs took the cores, while the model carries phase 1's cost "
                      "per sample over unchanged. ",
                      after, before, change * 100.0);
    } else if (before > 0.0 && after > 0.0 && change < -kPredictionTolerance) {
        why += format("A sample took %.2f ms to load in phase 2 against %.2f ms in phase 1 "
                      "(%+.0f %%): phase 1 paid for something phase 2 did not (files read "
                      "from disk before they were in the page cache, another program), and "
                      "the model carried that cost over. ",
                      after, before, change * 100.0);
    } else if (before > 0.0 && after > 0.0) {
        why += format("A sample loaded in about the time it did in phase 1 (%.2f ms against "
                      "%.2f ms), so the %s lies in what the model replays around the samples: "
                      "the step, the hand-over to the consumer, the new workers' start. ",
                      after, before, error < 0 ? "shortfall" : "gain");
    }
    const double back = predicted.value("calibrated_predicted_back_samples_per_sec", 0.0);
    const double backError = ratio(back, first.summary.samplesPerSecMean) - 1.0;
    if (back > 0.0 && std::abs(backError) > kPredictionTolerance) {
        why += format("The model already missed phase 1 itself by %+.0f %% (%.0f samples/s "
                      "predicted back, %.0f measured): that phase's own timings were not "
                      "steady enough to calibrate on; run it on a quieter machine. ",
                      backError * 100.0, back, first.summary.samplesPerSecMean);
    }
    return why + "See docs/what-if.md, \"Where it was wrong\".";
}

} // namespace

LessonBriefing predictionBriefing(const std::vector<LessonPhaseResult> &before,
                                  const RunConfig &next)
{
    LessonBriefing b;
    LessonVerdict unusable;
    if (before.empty()) {
        b.text = "No prediction: no phase ran to calibrate the model on.";
        b.figures = {{"error", b.text}};
        return b;
    }
    const LessonPhaseResult &measured = before.back();
    if (!verdict::phasesUsable({measured}, 1, kMinPredictionBatches, unusable)) {
        b.text = "No prediction: " + unusable.text;
        b.figures = {{"error", unusable.text}};
        return b;
    }
    try {
        const Calibration cal = calibrationOfPhase(measured);
        const Prediction back = predictLoader(cal.costs, cal.setting);
        const ModelSetting setting = settingFor(cal, next);
        const Prediction ahead = predictLoader(costsFor(cal, next), setting);
        const WaitPattern waits = analyzeWaits(
            predictedRecords(ahead.batches), std::max(1, next.loader.numWorkers),
            loaderFirstFillBatches(next.loader.numWorkers, next.loader.prefetchFactor));
        const double measuredRate = measured.summary.samplesPerSecMean;
        b.figures = {{"calibrated_phase", measured.label},
                     {"calibrated_workers", measured.config.loader.numWorkers},
                     {"calibrated_samples_per_sec", measuredRate},
                     {"calibrated_predicted_back_samples_per_sec", back.samplesPerSecond},
                     {"cores", setting.cores},
                     {"workers", setting.workers},
                     {"batch_size", setting.batchSize},
                     {"batches", static_cast<std::int64_t>(ahead.batches.size())},
                     {"samples_per_sec", ahead.samplesPerSecond},
                     {"wait_p95_ms", waits.p95Ms},
                     {"wait_period", waits.period},
                     {"input_bound_share", ahead.inputBoundShare},
                     {"max_batches", next.maxBatches},
                     {"calibrated_load", loadFigures(measured.load)},
                     {"calibrated_other_cores", cal.busyMachine.takenCores},
                     {"calibrated_other_demand_cores", otherDemandCores(cal.busyMachine)},
                     {"notes", cal.notes}};
        b.text = format("The loader model, calibrated on the phase \"%s\" (%.0f samples/s "
                        "measured; it predicts that phase back at %.0f, %+.1f %%), predicts for "
                        "%s, batch %d, on %d cores: %.0f samples/s, a 95th percentile wait of "
                        "%.2f ms, ",
                        measured.label.c_str(), measuredRate, back.samplesPerSecond,
                        (ratio(back.samplesPerSecond, measuredRate) - 1.0) * 100.0,
                        workersText(setting.workers).c_str(), setting.batchSize, setting.cores,
                        ahead.samplesPerSecond, waits.p95Ms);
        b.text += waits.period > 0 ? format("the wait spiking every %d batches.", waits.period)
                                   : std::string("no regular spikes in the wait.");
        if (cal.busyMachine.busy) {
            std::string others = othersText(measured.load);
            others[0] = 'O';
            b.text += format(" %s used %s of the %d cores while phase %zu ran; the prediction "
                             "assumes they go on doing so.",
                             others.c_str(), coresText(cal.busyMachine.takenCores).c_str(),
                             setting.cores, before.size());
        }
    } catch (const std::invalid_argument &e) {
        b.text = std::string("No prediction: the model cannot be calibrated on the phase \"")
                 + measured.label + "\": " + e.what();
        b.figures = {{"error", e.what()}};
    }
    return b;
}

LessonVerdict predictionVerdict(const std::vector<LessonPhaseResult> &phases)
{
    LessonVerdict v;
    if (!verdict::phasesUsable(phases, 2, kMinPredictionBatches, v))
        return v;
    const LessonPhaseResult &first = phases[0];
    const LessonPhaseResult &watched = phases[1];
    const nlohmann::json &predicted = watched.briefing.figures;
    if (!predicted.contains("samples_per_sec")) {
        v.text = watched.briefing.text.empty()
                     ? format("No data: no prediction was made before the phase \"%s\" ran.",
                              watched.label.c_str())
                     : "No data: there is no prediction to compare with. " + watched.briefing.text;
        return v;
    }
    const double before = predicted.at("samples_per_sec").get<double>();
    const double beforeP95 = predicted.value("wait_p95_ms", 0.0);
    const int beforePeriod = predicted.value("wait_period", 0);
    // Judged against the re-prediction only when the load changed noticeably
    // (kLoadChangeCores).
    const Reprediction again = repredict(first, watched, predicted);
    const double assumed = predicted.value("calibrated_other_cores", 0.0);
    const double demandBefore = predicted.value("calibrated_other_demand_cores", assumed);
    const double change = again.made ? otherDemandCores(again.busy) - demandBefore : 0.0;
    const bool changed = again.made && !sameMachineLoad(demandBefore, otherDemandCores(again.busy));
    const double rate = changed ? again.samplesPerSec : before;
    const double p95 = changed ? again.waits.p95Ms : beforeP95;
    const int period = changed ? again.waits.period : beforePeriod;
    const double measured = watched.summary.samplesPerSecMean;
    const double error = ratio(measured, rate) - 1.0;
    const bool held = rate > 0.0 && std::abs(error) <= kPredictionTolerance;
    const int workers = watched.config.loader.numWorkers;
    const int cores = predicted.value("cores", 0);
    v.observed = held;
    v.figures = {{"predicted_samples_per_sec", before},
                 {"repredicted_samples_per_sec",
                  again.made ? nlohmann::json(again.samplesPerSec) : nlohmann::json()},
                 {"measured_samples_per_sec", measured},
                 {"judged_against", changed ? "re-prediction" : "prediction"},
                 {"error_percent", error * 100.0},
                 {"prediction_error_percent", (ratio(measured, before) - 1.0) * 100.0},
                 {"tolerance_percent", kPredictionTolerance * 100.0},
                 {"predicted_wait_p95_ms", beforeP95},
                 {"repredicted_wait_p95_ms",
                  again.made ? nlohmann::json(again.waits.p95Ms) : nlohmann::json()},
                 {"measured_wait_p95_ms", watched.waits.p95Ms},
                 {"predicted_wait_period", beforePeriod},
                 {"repredicted_wait_period",
                  again.made ? nlohmann::json(again.waits.period) : nlohmann::json()},
                 {"measured_wait_period", watched.waits.period},
                 {"load_phase1", loadFigures(first.load)},
                 {"load_phase2", loadFigures(watched.load)},
                 {"other_cores_phase1", assumed},
                 {"other_cores_phase2",
                  again.made ? nlohmann::json(again.busy.takenCores) : nlohmann::json()},
                 {"load_change_cores", change},
                 {"load_change_limit_cores", kLoadChangeCores},
                 {"workers", workers},
                 {"cores", cores},
                 {"held", held}};
    BusyMachine firstBusy;
    firstBusy.busy = assumed > 0.0;
    firstBusy.takenCores = assumed;
    const std::string loads = again.made
                                  ? format("%s used %s of the %d cores; %s while phase 1 ran",
                                           othersText(watched.load).c_str(),
                                           takenText(watched, again.busy).c_str(), cores,
                                           takenText(first, firstBusy).c_str())
                                  : std::string();
    if (changed) {
        v.text = format(
            "%s: for %s the model predicted %.0f samples/s before phase 2 and %.0f re-predicted "
            "for the load measured while it ran (%s); the phase measured %.0f (%+.1f %% from "
            "the re-prediction, %s the %.0f %% it is allowed; %+.1f %% from the prediction "
            "made before); the 95th percentile wait was re-predicted %.2f ms and measured "
            "%.2f ms; the wait period re-predicted %s, measured %s. The re-prediction is "
            "judged because the load changed by %.2f of a core between the phases, more than "
            "%.2f. ",
            held ? "Held" : "Did not hold", workersText(workers).c_str(), before,
            again.samplesPerSec, loads.c_str(), measured, error * 100.0, held ? "within" : "beyond",
            kPredictionTolerance * 100.0, (ratio(measured, before) - 1.0) * 100.0, p95,
            watched.waits.p95Ms, periodPhrase(period).c_str(),
            periodPhrase(watched.waits.period).c_str(), std::abs(change), kLoadChangeCores);
    } else {
        v.text = format("%s: for %s the model predicted %.0f samples/s and the phase measured %.0f "
                        "(%+.1f %%, %s the %.0f %% it is allowed); the 95th percentile wait was "
                        "predicted %.2f ms and measured %.2f ms; the wait period predicted %s, "
                        "measured %s. ",
                        held ? "Held" : "Did not hold", workersText(workers).c_str(), rate,
                        measured, error * 100.0, held ? "within" : "beyond",
                        kPredictionTolerance * 100.0, p95, watched.waits.p95Ms,
                        periodPhrase(period).c_str(), periodPhrase(watched.waits.period).c_str());
        if (again.made)
            v.text += format("Re-predicted for the load measured while phase 2 ran (%s), the "
                             "model gives %.0f samples/s; the load changed by %.2f of a core, "
                             "not more than %.2f, so the prediction made before is the one "
                             "judged. ",
                             loads.c_str(), again.samplesPerSec, std::abs(change),
                             kLoadChangeCores);
    }
    if (!held) {
        v.text += likelyReason(first, watched, predicted, error);
        return v;
    }
    v.text += "The model replays the loader from phase 1's costs (a sample's load, collate, "
              "the hand-over, the step, the workers' start) and simulates how the workers, "
              "the queue and the step overlap at the new setting.";
    if (period != watched.waits.period) {
        const double sampleBefore = lessonSampleLoadMs(first.records);
        const double sampleAfter = lessonSampleLoadMs(watched.records);
        v.text += format(" The waits' pattern differed, though: a sample took %.2f ms to load "
                         "in phase 2 against %.2f ms in phase 1 (%+.0f %%), which the model "
                         "does not foresee, and where loading a batch takes about as long as "
                         "the step such a difference decides whether the consumer waits.",
                         sampleAfter, sampleBefore,
                         (ratio(sampleAfter, sampleBefore) - 1.0) * 100.0);
    }
    return v;
}

} // namespace loaderlab
