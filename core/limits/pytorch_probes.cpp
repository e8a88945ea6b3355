// The ceilings of PyTorch's DataLoader, measured by running it as LoaderLab's PyTorch
// engine does (core/engine/pytorch/pytorch_run.h): the decode of one worker process on
// the run's data, and the hand-over of the run's workers on samples of one float.

#include "core/engine/engine.h"
#include "core/limits/ceiling_probes.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace loaderlab {
namespace {

// Python's start, torch's import and the workers' fork come before the first batch.
constexpr double kStartSeconds = 120.0;

// The samples of the records after records[first] over the time from its `stamp` to
// the last one's: a rate with what came before `first` (start-up, warm-up) left out.
struct SpanRate
{
    std::int64_t samples = 0;
    double seconds = 0.0;
    std::size_t intervals = 0; // records counted; 0: too few records
};

SpanRate spanRate(const std::vector<TraceRecord> &records, std::size_t first,
                  std::int64_t TraceRecord::*stamp)
{
    SpanRate rate;
    if (records.size() < first + 2)
        return rate;
    for (std::size_t i = first + 1; i < records.size(); ++i)
        rate.samples += records[i].samples;
    rate.seconds = static_cast<double>(records.back().*stamp - records[first].*stamp) / 1e9;
    rate.intervals = records.size() - first - 1;
    return rate;
}

// Runs `run` on the PyTorch engine, epoch after epoch, until `seconds` after its batch
// number `from` came (or its end) and returns its batches; empty, with `why` said,
// when none came.
std::vector<TraceRecord> pytorchBatches(const RunConfig &run, double seconds, std::stop_token stop,
                                        std::string &why, std::size_t from = 0)
{
    RunConfig config = run;
    config.engine = EngineKind::PyTorch;
    config.devices = 1;
    config.epochs = 0;
    config.maxBatches = 0;
    config.maxSeconds = kStartSeconds + seconds + 60.0; // a bound, should the stop be lost
    const std::unique_ptr<Engine> engine = makeEngine(EngineKind::PyTorch);
    try {
        engine->start(config, [&] { return stop.stop_requested(); });
    } catch (const std::exception &e) {
        why = std::string("not measured: ") + e.what();
        return {};
    }
    const auto started = std::chrono::steady_clock::now();
    std::optional<std::chrono::steady_clock::time_point> first;
    while (!stop.stop_requested() && !engine->finished()) {
        const auto now = std::chrono::steady_clock::now();
        if (!first && engine->trace()->size() > from)
            first = now;
        if (first && now - *first >= std::chrono::duration<double>(seconds))
            break;
        if (!first && now - started >= std::chrono::duration<double>(kStartSeconds))
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    engine->stop();
    engine->waitForEnd();
    std::vector<TraceRecord> records = engine->trace()->records();
    if (records.empty())
        why = stop.stop_requested() ? "not measured: stopped"
              : !engine->error().empty()
                  ? "not measured: " + engine->error()
                  : probeText("not measured: PyTorch's DataLoader gave no batch in %.0f s",
                              kStartSeconds);
    return records;
}

} // namespace

Ceiling probePytorchDecode(const RunConfig &run, double seconds, std::stop_token stop,
                           const FreeCores &freeCores, double loaderlabPerCore)
{
    RunConfig config = run;
    config.consumer = {};
    config.replayBatches = 0;
    config.loader.numWorkers = 1;
    config.loader.persistentWorkers = true;
    config.loader.pinMemory = false;
    Ceiling ceiling{CeilingKind::Decode, 0.0, {}, {}};
    std::string why;
    const std::vector<TraceRecord> records = pytorchBatches(config, seconds, stop, why);
    // The worker's time on each batch after the first (its start), read + decode +
    // transform + collate as it built them.
    std::int64_t samples = 0;
    std::int64_t busyNs = 0;
    for (std::size_t i = 1; i < records.size(); ++i) {
        samples += records[i].samples;
        busyNs += std::max<std::int64_t>(0, records[i].loadEndNs - records[i].loadStartNs);
    }
    if (samples == 0 || busyNs <= 0) {
        ceiling.basis = why.empty() ? "not measured: too few batches in the time" : why;
        return ceiling;
    }
    const double perCore = static_cast<double>(samples) / (static_cast<double>(busyNs) / 1e9);
    ceiling.samplesPerSecond = perCore * freeCores.free;
    if (run.dataset.kind == DatasetKind::Python) {
        ceiling.basis = probeText("the pipeline file's DataLoader, 1 worker process: %.0f "
                                  "samples per s of its time x %.1f free cores",
                                  perCore, freeCores.free);
        ceiling.lift = probeText("more cores (%.0f samples/s each); less work a sample in the "
                                 "pipeline's dataset; preprocessing",
                                 perCore);
        return ceiling;
    }
    ceiling.basis = probeText("PyTorch's DataLoader, 1 worker process: %.0f samples per s of "
                              "its time (PIL) x %.1f free cores; ",
                              perCore, freeCores.free)
                    + probeText("LoaderLab's decode of the same, 1 thread: %.0f per CPU s",
                                loaderlabPerCore);
    ceiling.lift = probeText("more cores (%.0f samples/s each); LoaderLab's engine (%.0f "
                             "samples/s a core here); smaller inputs; preprocessing (below)",
                             perCore, loaderlabPerCore);
    return ceiling;
}

Ceiling probePytorchHandover(const RunConfig &run, double seconds, std::stop_token stop)
{
    // Samples of one float: what is left is the DataLoader's work per batch.
    RunConfig config;
    config.loader = run.loader;
    config.loader.persistentWorkers = true;
    config.loader.pinMemory = false;
    config.dataset.kind = DatasetKind::Synthetic;
    config.dataset.syntheticShape = {1, 1, 1};
    config.dataset.syntheticSamples = std::int64_t{1} << 22;
    Ceiling ceiling{CeilingKind::Handover, 0.0, {}, "bigger batches: the cost is per batch"};
    std::string why;
    const std::vector<TraceRecord> records = pytorchBatches(config, seconds, stop, why);
    // Each worker's first batch carries its start.
    const std::size_t skip = static_cast<std::size_t>(std::max(1, run.loader.numWorkers));
    const SpanRate span = spanRate(records, skip, &TraceRecord::deliveryNs);
    if (span.intervals == 0) {
        ceiling.basis = why.empty() ? "not measured: too few batches in the time" : why;
        return ceiling;
    }
    const double elapsed = span.seconds;
    const auto batches = static_cast<double>(span.intervals);
    if (elapsed <= 0.0) {
        ceiling.basis = "not measured: too few batches in the time";
        return ceiling;
    }
    ceiling.samplesPerSecond = static_cast<double>(span.samples) / elapsed;
    ceiling.basis = probeText("%.1f us a batch of %.0f over %.0f batches (PyTorch's DataLoader "
                              "as LoaderLab's PyTorch engine runs it, samples of one float)",
                              elapsed * 1e6 / batches, double(run.loader.batchSize), batches);
    return ceiling;
}

Ceiling probePytorchStep(const RunConfig &run, double seconds, std::stop_token stop)
{
    // The run's first batches kept, then its step on them over and over (run --replay).
    constexpr std::int64_t kKept = 3;
    RunConfig config = run;
    config.replayBatches = kKept;
    Ceiling ceiling{CeilingKind::Step,
                    0.0,
                    {},
                    "a faster step: half precision, channels-last, a smaller model, a faster "
                    "device"};
    std::string why;
    // One replayed step of warm-up, then the rest.
    const std::vector<TraceRecord> records = pytorchBatches(config, seconds, stop, why,
                                                            static_cast<std::size_t>(kKept) + 1);
    // Records are in batch order: the replayed ones follow the kept ones.
    const std::size_t firstReplayed = static_cast<std::size_t>(
        std::find_if(records.begin(), records.end(),
                     [](const TraceRecord &r) { return r.index > kKept; })
        - records.begin());
    const SpanRate span = spanRate(records, firstReplayed, &TraceRecord::computeEndNs);
    if (span.intervals == 0) {
        ceiling.basis = why.empty() ? "not measured: too few steps in the time" : why;
        return ceiling;
    }
    const double elapsed = span.seconds;
    if (elapsed <= 0.0) {
        ceiling.basis = "not measured: too few steps in the time";
        return ceiling;
    }
    const auto steps = static_cast<double>(span.intervals);
    ceiling.samplesPerSecond = static_cast<double>(span.samples) / elapsed;
    ceiling.basis = probeText("replay on the PyTorch engine: %.0f steps of the run's step on %.0f "
                              "batches kept in memory, %.2f ms a step",
                              steps, double(kKept), elapsed * 1e3 / steps);
    return ceiling;
}

CeilingReport measurePipelineCeilings(const RunConfig &config, const CeilingOptions &options)
{
    CeilingReport report;
    report.dataset = "pipeline file " + config.dataset.path;
    ProbeProgress next(options);
    const double t = options.secondsEach;
    if (next(CeilingKind::Storage))
        report.ceilings.push_back(
            {CeilingKind::Storage, 0.0, "not measured: a pipeline file reads its data itself", {}});
    if (next(CeilingKind::Decode)) {
        const FreeCores free = probeFreeCores(t / 2, options.stop);
        report.cores = free.cores;
        report.freeCores = free.free;
        report.ceilings.push_back(probePytorchDecode(config, t, options.stop, free, 0.0));
    }
    if (next(CeilingKind::Handover))
        report.ceilings.push_back(probePytorchHandover(config, std::min(t, 1.0), options.stop));
    if (next(CeilingKind::Step))
        report.ceilings.push_back(probePytorchStep(config, t, options.stop));
    if (next(CeilingKind::Preprocessed))
        report.ceilings.push_back({CeilingKind::Preprocessed,
                                   0.0,
                                   "not measured: only image folders are preprocessed",
                                   {}});
    return report;
}

} // namespace loaderlab
