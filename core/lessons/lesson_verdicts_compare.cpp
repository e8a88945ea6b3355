// The verdicts that compare settings: 0 vs 1 worker, more workers than cores,
// sample-parallel loading, and what precision, channels-last and checkpointing
// trade on a real model.
#include "core/lessons/lesson.h"
#include "core/lessons/verdict_support.h"

#include <algorithm>
#include <cmath>

namespace loaderlab {
using verdict::format;
using verdict::ratio;

LessonVerdict zeroWorkerVerdict(const std::vector<LessonPhaseResult> &phases)
{
    LessonVerdict v;
    if (!verdict::phasesUsable(phases, 2, 0, v))
        return v;
    const WaitPattern &zero = phases[0].waits;
    const WaitPattern &one = phases[1].waits;
    v.figures = {{"zero_workers_mean_wait_ms", zero.meanMs},
                 {"one_worker_mean_wait_ms", one.meanMs},
                 {"mean_step_ms", one.meanStepMs}};
    v.observed = zero.meanMs > 3.0 * std::max(one.meanMs, 0.05);
    v.text = format("%s: with 0 workers each step waited %.1f ms on average for its batch (the "
                    "step's own thread loads it); with 1 worker, %.2f ms. ",
                    v.observed ? "Seen" : "Not seen", zero.meanMs, one.meanMs);
    v.text += v.observed ? "One worker loads the next batch while the step runs: loading moves "
                           "off the step's path as long as it is not slower than the step."
                         : format("With 1 worker the loader is still slower than the %.0f ms "
                                  "step, so the step waits either way: lengthen the step or "
                                  "use smaller batches.",
                                  one.meanStepMs);
    return v;
}

LessonVerdict oversubscribedVerdict(const std::vector<LessonPhaseResult> &phases)
{
    LessonVerdict v;
    if (!verdict::phasesUsable(phases, 2, 0, v))
        return v;
    // The lesson ends on its first setting again; the two phases of that setting give
    // the reference (their mean) and the spread a gain must beat.
    const int perCore = phases[0].config.loader.numWorkers;
    const bool repeated = phases.size() >= 3 && phases.back().config.loader.numWorkers == perCore;
    const std::size_t compared = repeated ? phases.size() - 1 : phases.size();
    std::string seen;
    nlohmann::json list = nlohmann::json::array();
    double best = 0.0;
    for (std::size_t i = 0; i < phases.size(); ++i) {
        const auto &p = phases[i];
        const double rate = p.summary.samplesPerSecMean;
        list.push_back({{"workers", p.config.loader.numWorkers}, {"samples_per_sec", rate}});
        const bool again = repeated && i + 1 == phases.size();
        seen += format("%s%d workers%s %.0f samples/s", i ? ", " : "", p.config.loader.numWorkers,
                       again ? " again" : "", rate);
        if (i > 0 && i < compared)
            best = std::max(best, rate);
    }
    const double first = phases[0].summary.samplesPerSecMean;
    const double atCores = repeated ? 0.5 * (first + phases.back().summary.samplesPerSecMean)
                                    : first;
    const double spread =
        repeated ? std::abs(ratio(phases.back().summary.samplesPerSecMean, first) - 1.0) : 0.0;
    const double allowed = std::max(0.1, spread);
    v.figures = {{"phases", list}, {"allowed_gain", allowed}};
    if (repeated)
        v.figures["repeat_spread"] = spread;
    v.observed = best <= (1.0 + allowed) * atCores;
    v.text = (v.observed ? "Seen: " : "Not seen: ") + seen + ". ";
    const double gain = (ratio(best, atCores) - 1.0) * 100.0;
    if (v.observed) {
        if (gain > 10.0)
            v.text += format("More workers than cores measured %.0f %% more than one per core "
                             "on average, less than the %.0f %% by which one per core differed "
                             "from itself: no gain beyond chance. ",
                             gain, spread * 100.0);
        v.text += format("Past one worker per core (%d here) decoding has no core left to run "
                         "on: more workers only take turns, and each one costs memory and "
                         "start-up time.",
                         perCore);
        return v;
    }
    // Whether one worker per core already kept the cores the run had busy: then more
    // workers had no CPU to add, and a gain is the spread of phases this short.
    const MachineLoad &load = phases[0].load;
    const bool measured = load.known() && load.availableCores > 0.0;
    if (measured) {
        v.figures["busy_cores_at_one_per_core"] = load.ownBusyCores;
        v.figures["available_cores"] = load.availableCores;
    }
    const std::string against =
        repeated ? format(" (the mean of the two phases with one per core, which differed by "
                          "%.0f %%)",
                          spread * 100.0)
                 : std::string();
    if (measured && load.ownBusyCores >= 0.9 * load.availableCores) {
        v.text += format("More workers than cores measured %.0f %% more%s, but %d workers "
                         "already kept %.2f of the %.2f cores the run had busy: there was no "
                         "CPU left for more workers to use, so the gain is the spread between "
                         "phases this short, not a real one. Run the lesson again.",
                         gain, against.c_str(), perCore, load.ownBusyCores, load.availableCores);
    } else {
        v.text += format("More workers than cores gained %.0f %%%s: the loader waits on "
                         "something other than the CPU here (disk, the page cache), which "
                         "extra workers can overlap.",
                         gain, against.c_str());
    }
    return v;
}

LessonVerdict sampleParallelVerdict(const std::vector<LessonPhaseResult> &phases)
{
    LessonVerdict v;
    if (!verdict::phasesUsable(phases, 2, 4, v) || !verdict::periodReadable({phases[0]}, v))
        return v;
    const WaitPattern &perWorker = phases[0].waits;
    const WaitPattern &shared = phases[1].waits;
    const int workers = phases[0].config.loader.numWorkers;
    // The spikes of the steady rounds: each epoch's start-up round and the loader's
    // first fill are the same in both phases, and on a small folder (epochs of a few
    // batches) they would be most of the 95th percentile.
    v.figures = {{"per_worker_period", perWorker.period},
                 {"per_worker_p95_ms", perWorker.steadyP95Ms},
                 {"per_worker_median_ms", perWorker.steadyMedianMs},
                 {"sample_parallel_period", shared.period},
                 {"sample_parallel_p95_ms", shared.steadyP95Ms},
                 {"sample_parallel_median_ms", shared.steadyMedianMs}};
    const double spikesBefore = perWorker.steadyP95Ms - perWorker.steadyMedianMs;
    const double spikesAfter = shared.steadyP95Ms - shared.steadyMedianMs;
    v.observed = perWorker.period == workers && shared.period != workers
                 && spikesAfter < 0.5 * spikesBefore;
    const auto spikes = [](int period) {
        return period > 0 ? format("the wait spikes every %d batches", period)
                          : std::string("no regular spikes");
    };
    v.text = format("%s: batch per worker, %s (95th percentile %.1f ms over a median of %.1f "
                    "ms in the steady rounds); sample-parallel, %s (95th percentile %.1f ms "
                    "over %.1f ms). ",
                    v.observed ? "Seen" : "Not seen", spikes(perWorker.period).c_str(),
                    perWorker.steadyP95Ms, perWorker.steadyMedianMs, spikes(shared.period).c_str(),
                    shared.steadyP95Ms, shared.steadyMedianMs);
    v.text += format("Throughput: %.0f samples/s batch per worker, %.0f sample-parallel. ",
                     phases[0].summary.samplesPerSecMean, phases[1].summary.samplesPerSecMean);
    v.text += v.observed ? "When every worker builds a part of each batch, batches arrive one "
                           "at a time, evenly, instead of in rounds of W."
                         : "Expected the spikes of the per-worker phase to flatten; they only "
                           "show while the consumer waits for the loader: shorten the step.";
    return v;
}

LessonVerdict modelTradeVerdict(const std::vector<LessonPhaseResult> &phases)
{
    LessonVerdict v;
    if (!verdict::phasesUsable(phases, 2, 0, v))
        return v;
    const auto &base = phases[0].summary;
    if (base.computeMeanMs <= 0 || base.peakMemoryBytes <= 0) {
        v.text = "No data: the model consumer reported no step time or peak memory.";
        return v;
    }
    nlohmann::json list = nlohmann::json::array();
    std::string seen = format("%s: step %.0f ms, peak memory %.0f MiB", phases[0].label.c_str(),
                              base.computeMeanMs,
                              static_cast<double>(base.peakMemoryBytes) / (1 << 20));
    const LessonPhaseResult *checkpointing = nullptr;
    double checkpointTime = 0.0, checkpointMemory = 0.0;
    for (std::size_t i = 1; i < phases.size(); ++i) {
        const auto &s = phases[i].summary;
        const double time = ratio(s.computeMeanMs, base.computeMeanMs);
        const double memory = ratio(static_cast<double>(s.peakMemoryBytes),
                                    static_cast<double>(base.peakMemoryBytes));
        list.push_back({{"label", phases[i].label},
                        {"step_ms", s.computeMeanMs},
                        {"peak_memory_bytes", s.peakMemoryBytes},
                        {"step_ratio", time},
                        {"peak_memory_ratio", memory}});
        const auto change = [](double r, const char *less, const char *more) {
            if (r > 0.95 && r < 1.05)
                return std::string("about the same");
            return r < 1 ? format("%.2fx (%s)", r, less) : format("%.2fx (%s)", r, more);
        };
        seen += format("; %s: step %s, peak memory %s", phases[i].label.c_str(),
                       change(time, "faster", "slower").c_str(),
                       change(memory, "less", "more").c_str());
        if (phases[i].config.consumer.model.checkpointing
            && !phases[0].config.consumer.model.checkpointing && s.computeMeanMs > 0
            && s.peakMemoryBytes > 0) {
            checkpointing = &phases[i];
            checkpointTime = time;
            checkpointMemory = memory;
        }
    }
    v.figures = {{"phases", list},
                 {"base_step_ms", base.computeMeanMs},
                 {"base_peak_memory_bytes", base.peakMemoryBytes}};
    if (!checkpointing) {
        v.text = "No data: no phase ran with activation checkpointing (or it reported no step "
                 "time or peak memory), so the trade cannot be read. Measured: "
                 + seen + ".";
        return v;
    }
    v.figures["checkpointing_step_ratio"] = checkpointTime;
    v.figures["checkpointing_peak_memory_ratio"] = checkpointMemory;
    // The finding: checkpointing pays for less memory with more time. Both must show,
    // by more than the 5 % a repeated measurement moves.
    const bool lessMemory = checkpointMemory < 0.95;
    const bool moreTime = checkpointTime > 1.05;
    v.observed = lessMemory && moreTime;
    if (v.observed) {
        v.text = format("Seen: activation checkpointing took %.2fx the fp32 step time for %.2fx "
                        "its peak memory. ",
                        checkpointTime, checkpointMemory);
    } else {
        v.text = format("Not seen: activation checkpointing took %.2fx the fp32 step time "
                        "and %.2fx its peak memory: ",
                        checkpointTime, checkpointMemory);
        if (!lessMemory)
            v.text += "it saved no memory, because at this model, input and batch size the "
                      "activations it frees are smaller than what the recomputation and its "
                      "bookkeeping add (and than the weights, the optimizer and the libraries, "
                      "which it does not touch); ";
        if (!moreTime)
            v.text += "it cost no time, so the recomputation was hidden by something slower "
                      "(another program on the machine?); ";
        v.text += "the trade shows when activations dominate the step's memory: a larger "
                  "model, input or batch (the preset's resnet50 training at 3x128x128, batch "
                  "32, showed it on a 2-core machine). ";
    }
    v.text += "Measured on this machine: " + seen
              + ". None of these is free or always a gain: bf16 halves the bytes per value "
                "but is slow where the processor has no bf16 arithmetic (it is emulated); "
                "channels-last pays where the convolution kernels prefer it (GPU tensor "
                "cores); checkpointing recomputes activations in the backward pass, trading "
                "step time for memory, which shows at large batches. Measure before "
                "choosing.";
    return v;
}

} // namespace loaderlab
