// The verdicts: each reads the phases' traces and says what happened here.
#include "core/lessons/lesson.h"
#include "core/lessons/verdict_support.h"

#include <algorithm>

namespace loaderlab {
using verdict::format;
using verdict::ratio;

namespace {

// The later epochs' first batches are left out of the later waits: say so, with
// their longest wait.
std::string epochStarts(const WaitPattern &w)
{
    if (w.epochs < 2)
        return {};
    return format(" The phase spans %d epochs; each later epoch starts its workers again, so "
                  "its first batch waits as batch 0 did (up to %.1f ms here): those are left "
                  "out of the later waits.",
                  w.epochs, w.epochStartMaxMs);
}

} // namespace

LessonVerdict firstBatchVerdict(const std::vector<LessonPhaseResult> &phases)
{
    LessonVerdict v;
    if (!verdict::phasesUsable(phases, 1, 4, v))
        return v;
    const WaitPattern &w = phases[0].waits;
    v.figures = {{"first_wait_ms", w.firstMs},
                 {"later_max_wait_ms", w.laterMaxMs},
                 {"later_median_wait_ms", w.medianMs},
                 {"epochs", w.epochs},
                 {"epoch_start_max_wait_ms", w.epochStartMaxMs}};
    if (w.firstMs < w.laterMaxMs) {
        v.text = format("Not seen: batch %lld waited %.1f ms, longer than the first batch's %.1f "
                        "ms. Something slowed the loader mid-run (another program on the "
                        "machine, files not yet in the disk cache); run it again with nothing "
                        "else running.",
                        static_cast<long long>(w.laterMaxBatch), w.laterMaxMs, w.firstMs);
        v.text += epochStarts(w);
        return v;
    }
    if (w.firstMs < 2.0 * w.p95Ms) {
        v.text = format("Only just: the first batch waited longest (%.1f ms), but later waits "
                        "come close (95th percentile %.1f ms): the loader is slower than the "
                        "step all along. Add workers or a longer step to see the first batch "
                        "stand out.",
                        w.firstMs, w.p95Ms);
        return v;
    }
    v.observed = true;
    v.text = w.laterMaxMs >= 1.0
                 ? format("Seen: the first batch waited %.1f ms, %.1fx the longest wait after "
                          "it (%.1f ms at batch %lld; median %.2f ms). ",
                          w.firstMs, ratio(w.firstMs, w.laterMaxMs), w.laterMaxMs,
                          static_cast<long long>(w.laterMaxBatch), w.medianMs)
                 : format("Seen: the first batch waited %.1f ms; no batch after it waited as "
                          "much as 1 ms (longest %.2f ms). ",
                          w.firstMs, w.laterMaxMs);
    v.text += "Every worker starts with an empty queue: the first batch needs a whole batch "
              "read, decoded and transformed before the step can start, while later batches "
              "were built during earlier steps.";
    v.text += epochStarts(w);
    return v;
}

LessonVerdict periodVerdict(const std::vector<LessonPhaseResult> &phases)
{
    LessonVerdict v;
    if (!verdict::phasesUsable(phases, 2, 4, v) || !verdict::periodReadable(phases, v))
        return v;
    // A phase with more workers than the machine has cores cannot show the pattern for
    // sure: its workers cannot all load at once, so their rounds blur, and whether the
    // period still shows varies from run to run. Such a phase counts when it shows W;
    // when it misses, the finding rests on the phases that can show it.
    const auto canShow = [](const LessonPhaseResult &p) {
        return !p.load.known() || p.config.loader.numWorkers <= p.load.cores;
    };
    std::string seen;
    bool allShown = true, allThatCanShow = true, anyCanShow = false;
    const LessonPhaseResult *blurred = nullptr;
    nlohmann::json list = nlohmann::json::array();
    for (const auto &p : phases) {
        const int workers = p.config.loader.numWorkers;
        const bool shown = p.waits.period == workers;
        const bool can = canShow(p);
        list.push_back({{"workers", workers},
                        {"period", p.waits.period},
                        {"strength", p.waits.periodStrength},
                        {"can_show", can}});
        seen += format("%s%d workers: ", seen.empty() ? "" : "; ", workers);
        seen += p.waits.period > 0 ? format("the wait spikes every %d batches (autocorrelation "
                                            "%.2f)",
                                            p.waits.period, p.waits.periodStrength)
                                   : std::string("no regular spikes");
        allShown = allShown && shown;
        if (can) {
            anyCanShow = true;
            allThatCanShow = allThatCanShow && shown;
        } else if (!shown && !blurred) {
            blurred = &p;
        }
    }
    v.figures = {{"phases", list}};
    const auto blurText = [](const LessonPhaseResult &p) {
        const int workers = p.config.loader.numWorkers;
        return format(" With %d workers on this machine's %d cores, the workers cannot all "
                      "load at once and their rounds blur: the period of %d shows in some "
                      "runs and not in others. Run the lesson on a machine with %d cores or "
                      "more to see it there.",
                      workers, p.load.cores, workers, workers);
    };
    v.observed = allShown || (allThatCanShow && anyCanShow);
    if (allShown) {
        v.text = "Seen: " + seen
                 + ". Each worker builds whole batches, and the workers started together, so a "
                   "round of W batches arrives almost at once: the consumer takes them one "
                   "after another, then waits for the next round.";
    } else if (v.observed) {
        v.text = "Seen where this machine can show it: " + seen
                 + ". Each worker builds whole batches, and the workers started together, so a "
                   "round of W batches arrives almost at once: the consumer takes them one "
                   "after another, then waits for the next round."
                 + blurText(*blurred);
    } else {
        v.text = "Not seen as expected: " + seen
                 + ". The spikes follow W only while the loader is the bottleneck (the "
                   "consumer waits) and the workers stay in step; a step slower than loading "
                   "hides them, and more workers than cores blur them. Shorten the step "
                   "(--sleep-batch-ms) or use fewer workers.";
        if (blurred)
            v.text += blurText(*blurred);
    }
    if (phases[0].waits.epochs > 1) {
        v.text += " The period is read within each epoch, after its first round of W "
                  "batches: each epoch starts its workers again, and that restart is not "
                  "the pattern.";
    }
    return v;
}

LessonVerdict slowModelVerdict(const std::vector<LessonPhaseResult> &phases)
{
    LessonVerdict v;
    if (!verdict::phasesUsable(phases, 1, 4, v))
        return v;
    const WaitPattern &w = phases[0].waits;
    v.figures = {{"first_wait_ms", w.firstMs},
                 {"later_p95_wait_ms", w.p95Ms},
                 {"mean_step_ms", w.meanStepMs}};
    if (w.p95Ms <= 0.05 * w.meanStepMs && w.firstMs > 5.0 * std::max(w.p95Ms, 0.1)) {
        v.observed = true;
        v.text = format("Seen: only the first batch waited (%.1f ms); after it the 95th "
                        "percentile wait is %.2f ms against a %.0f ms step. The workers build "
                        "the next batches while the step runs, so loading is hidden behind it.",
                        w.firstMs, w.p95Ms, w.meanStepMs);
    } else {
        v.text = format("Not seen: later batches still wait (95th percentile %.1f ms against a "
                        "%.0f ms step): loading a batch takes longer than the step on this "
                        "machine. Make the step slower or add workers.",
                        w.p95Ms, w.meanStepMs);
    }
    return v;
}

LessonVerdict biggerBatchVerdict(const std::vector<LessonPhaseResult> &phases)
{
    LessonVerdict v;
    if (!verdict::phasesUsable(phases, 2, 4, v))
        return v;
    const auto &small = phases.front();
    const auto &big = phases.back();
    const int bs = small.config.loader.batchSize, bb = big.config.loader.batchSize;
    v.figures = {{"small_batch", bs},
                 {"big_batch", bb},
                 {"small_first_ms", small.waits.firstMs},
                 {"big_first_ms", big.waits.firstMs},
                 {"small_max_spike_ms", small.waits.laterMaxMs},
                 {"big_max_spike_ms", big.waits.laterMaxMs}};
    const bool slowerFirst = big.waits.firstMs > 2.0 * small.waits.firstMs;
    const bool higherSpikes = big.waits.p95Ms > small.waits.p95Ms;
    v.observed = slowerFirst && higherSpikes;
    // A folder whose epoch holds no more big batches than the workers build at once:
    // every batch is in its epoch's first round, waiting as the first batch does,
    // and there are no later rounds whose waits could show the spikes.
    const int workers = std::max(1, big.config.loader.numWorkers);
    const std::int64_t perEpoch =
        big.waits.epochs > 0 ? (big.waits.batches + big.waits.epochs - 1) / big.waits.epochs : 0;
    if (!v.observed && big.waits.epochs > 1 && perEpoch <= workers) {
        v.applies = false;
        v.text = format(
            "%san epoch holds %lld samples (%lld %s of up to %d), no more "
            "batches than the %d workers build at once: every batch of the phase "
            "\"%s\" is in its epoch's first round and waits as the first batch "
            "does, so there are no later waits to compare. A folder several times "
            "larger than a batch of %d shows it (batch %d waited %.1f ms for its "
            "first batch here, batch %d %.1f ms).",
            verdict::kDoesNotApply, static_cast<long long>(big.waits.samples / big.waits.epochs),
            static_cast<long long>(perEpoch), perEpoch == 1 ? "batch" : "batches", bb, workers,
            big.label.c_str(), bb, bs, small.waits.firstMs, bb, big.waits.firstMs);
        return v;
    }
    v.text = format("%s: batch %d waited %.1f ms for its first batch and %.1f ms at the 95th "
                    "percentile; batch %d waited %.1f ms and %.1f ms. ",
                    v.observed ? "Seen" : "Not fully seen", bs, small.waits.firstMs,
                    small.waits.p95Ms, bb, big.waits.firstMs, big.waits.p95Ms);
    v.text += v.observed ? "A worker must finish a whole batch before it is delivered: more "
                           "samples per batch means a longer first wait and higher spikes."
                         : "Expected both figures higher with the bigger batch. A step slower "
                           "than loading hides the spikes; shorten it and try again.";
    return v;
}

LessonVerdict tensorVerdict(const std::vector<LessonPhaseResult> &phases)
{
    LessonVerdict v;
    if (!verdict::phasesUsable(phases, 2, 4, v))
        return v;
    const auto &jpeg = phases[0];
    const auto &tensor = phases[1];
    const double speed = ratio(tensor.summary.samplesPerSecMean, jpeg.summary.samplesPerSecMean);
    const double size = ratio(static_cast<double>(tensor.datasetBytes),
                              static_cast<double>(jpeg.datasetBytes));
    v.figures = {{"jpeg_samples_per_sec", jpeg.summary.samplesPerSecMean},
                 {"tensor_samples_per_sec", tensor.summary.samplesPerSecMean},
                 {"jpeg_bytes", jpeg.datasetBytes},
                 {"tensor_bytes", tensor.datasetBytes}};
    v.observed = speed > 1.5 && size > 1.0;
    // JPEGs larger than the tensor file made from them (large photos, cropped to
    // 224 px): the finding is that the tensor file loads faster although it is the
    // larger one; here it is not.
    if (!v.observed && size > 0.0 && size <= 1.0) {
        v.applies = false;
        v.text = format("%sthe JPEG folder (%.1f MB) is larger than the tensor file "
                        "preprocessed from it (%.1f MB, %.1fx its size): the finding is that "
                        "the tensor file loads faster although it is the larger one, and these "
                        "JPEGs are larger than their decoded, resized and cropped samples. The "
                        "tensor file loads %.1fx as fast here (%.0f vs %.0f samples/s); a "
                        "folder of smaller JPEGs shows the finding.",
                        verdict::kDoesNotApply, static_cast<double>(jpeg.datasetBytes) / 1e6,
                        static_cast<double>(tensor.datasetBytes) / 1e6, size, speed,
                        tensor.summary.samplesPerSecMean, jpeg.summary.samplesPerSecMean);
        return v;
    }
    // JPEGs smaller than the samples made from them (thumbnails enlarged to 224 px):
    // the tensor file is not the same images with their decoding done ahead of time
    // but more pixels than the JPEGs ever held, and such JPEGs decode in microseconds.
    if (!v.observed && jpeg.storedPixels > 0.0 && tensor.storedPixels > jpeg.storedPixels) {
        v.applies = false;
        v.figures["jpeg_pixels"] = jpeg.storedPixels;
        v.figures["tensor_pixels"] = tensor.storedPixels;
        v.text = format("%sthese JPEGs hold %.0f pixels each on average, fewer than the %.0f of "
                        "each sample the tensor file was preprocessed into: preprocessing "
                        "enlarged them %.1fx, and decoding images this small costs about as "
                        "little as reading the tensor file's %.1fx more bytes. The tensor file "
                        "loads %.1fx as fast here (%.0f vs %.0f samples/s); the finding needs "
                        "JPEGs at least as large as the samples, as photos are.",
                        verdict::kDoesNotApply, jpeg.storedPixels, tensor.storedPixels,
                        tensor.storedPixels / jpeg.storedPixels, size, speed,
                        tensor.summary.samplesPerSecMean, jpeg.summary.samplesPerSecMean);
        return v;
    }
    v.text = format("%s: the preprocessed tensor file (%.1f MB) loads %.1fx as fast as the JPEG "
                    "folder (%.1f MB; %.0f vs %.0f samples/s), although it is %.1fx the size. ",
                    v.observed ? "Seen" : "Not seen",
                    static_cast<double>(tensor.datasetBytes) / 1e6, speed,
                    static_cast<double>(jpeg.datasetBytes) / 1e6, tensor.summary.samplesPerSecMean,
                    jpeg.summary.samplesPerSecMean, size);
    v.text += v.observed ? "Reading bytes is cheap; decoding and resizing JPEGs is what costs, "
                           "and preprocessing did it once, ahead of time."
                         : "Expected the tensor file to be much faster: check that the step "
                           "is not the bottleneck (the consumer should be 'none' or fast).";
    return v;
}

} // namespace loaderlab
