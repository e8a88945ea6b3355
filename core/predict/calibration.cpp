#include "core/predict/calibration.h"

#include "core/io/run_reader.h"
#include "core/predict/contention_profile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace loaderlab {
namespace {

// The most per-sample cost values a calibration keeps (evenly thinned beyond).
constexpr std::size_t kMaxCostValues = 100'000;

// The loader's own settings, as the model takes them.
void copyLoaderSettings(const LoaderConfig &loader, ModelSetting &s)
{
    s.workers = loader.numWorkers;
    s.batchSize = loader.batchSize;
    s.prefetchFactor = loader.prefetchFactor;
    s.strategy = loader.strategy;
    s.persistentWorkers = loader.persistentWorkers;
    s.pinMemory = loader.pinMemory;
    s.inOrder = loader.inOrder;
    s.dropLast = loader.dropLast;
}

double secondsOf(std::int64_t ns)
{
    return static_cast<double>(ns) / 1e9;
}

std::string millisText(double seconds)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
    return text;
}

// The threads a run's step keeps busy on its CPU: a CPU model's intra-op threads
// (the configured count or every core, split over the ranks); 0 for anything else.
double stepThreads(const RunConfig &config, int cores)
{
    if (config.consumer.kind != ConsumerKind::Model
        || config.consumer.model.device.rfind("cpu", 0) != 0)
        return 0.0;
    const int threads = config.consumer.model.threads > 0 ? config.consumer.model.threads : cores;
    return std::max(1.0, static_cast<double>(threads) / std::max(1, config.devices));
}

double sleepSeconds(const ConsumerConfig &c, int samples)
{
    return (c.sleepPerBatchMs + c.sleepPerSampleMs * samples) / 1e3;
}

// Each rank's batches after its first `warmup` (all of them when that leaves none).
std::vector<const TraceRecord *> afterWarmup(const std::vector<TraceRecord> &records, int warmup)
{
    std::map<int, int> seen;
    std::vector<const TraceRecord *> kept;
    for (const TraceRecord &r : records) {
        if (seen[r.rank]++ >= warmup)
            kept.push_back(&r);
    }
    if (kept.empty()) {
        for (const TraceRecord &r : records)
            kept.push_back(&r);
    }
    return kept;
}

// The batches' mean per-sample costs, evenly thinned to kMaxCostValues. They are
// drawn per batch (SampleDraw::PerBatch): a batch's load time varies as the measured
// ones did, hiccups of the machine (a preempted worker, a cold file) included, which
// spreading them back to single samples would average away.
std::vector<double> batchMeanCosts(const std::vector<double> &batchMeans)
{
    std::vector<double> values;
    const std::size_t step = std::max<std::size_t>(1, batchMeans.size() / kMaxCostValues);
    for (std::size_t k = 0; k < batchMeans.size(); k += step)
        values.push_back(batchMeans[k]);
    if (values.empty())
        values.push_back(0.0);
    return values;
}

// The consumer's own time from a step's end to its next request, within epochs (an
// epoch's start holds the workers' restart). With synchronised ranks each step's gap
// is the smallest of the ranks': the others' hold their wait at the barrier.
double afterStepSeconds(const std::vector<TraceRecord> &records, const RunConfig &config)
{
    std::map<int, std::vector<double>> gaps;
    std::map<int, const TraceRecord *> previous;
    for (const TraceRecord &r : records) {
        const TraceRecord *before = previous[r.rank];
        if (before && before->epoch == r.epoch)
            gaps[r.rank].push_back(std::max(0.0, secondsOf(r.requestNs - before->computeEndNs)));
        previous[r.rank] = &r;
    }
    const bool barrier = config.devices > 1 && config.syncDevices;
    double total = 0.0;
    std::size_t count = 0;
    if (!barrier) {
        for (const auto &[rank, list] : gaps) {
            for (const double g : list)
                total += g;
            count += list.size();
        }
    } else if (!gaps.empty()) {
        std::size_t steps = SIZE_MAX;
        for (const auto &[rank, list] : gaps)
            steps = std::min(steps, list.size());
        for (std::size_t k = 0; k < steps; ++k) {
            double least = gaps.begin()->second[k];
            for (const auto &[rank, list] : gaps)
                least = std::min(least, list[k]);
            total += least;
        }
        count = steps;
    }
    return count > 0 ? total / static_cast<double>(count) : 0.0;
}

// Per-worker batches: the mean time from a worker having its next task (dispatched,
// and its previous batch loaded) to starting it. Only where the trace has dispatch
// times (LoaderLab's engine): without them an idle worker's wait would count.
double taskStartSeconds(const std::vector<const TraceRecord *> &steady)
{
    std::map<std::tuple<int, int, int>, const TraceRecord *> previous;
    double total = 0.0;
    std::size_t count = 0;
    for (const TraceRecord *r : steady) {
        if (r->worker < 0 || r->dispatchNs <= 0)
            continue;
        const TraceRecord *&before = previous[{r->rank, r->epoch, r->worker}];
        if (before && before->loadEndNs <= r->loadStartNs) {
            const std::int64_t available = std::max(r->dispatchNs, before->loadEndNs);
            total += std::max(0.0, secondsOf(r->loadStartNs - available));
            ++count;
        }
        before = r;
    }
    return count > 0 ? total / static_cast<double>(count) : 0.0;
}

// The median wall time of a batch's load after the warm-up.
double steadyLoadSeconds(const std::vector<const TraceRecord *> &steady)
{
    std::vector<double> spans;
    for (const TraceRecord *r : steady) {
        if (r->loadEndNs > r->loadStartNs && r->worker != kConsumerThread)
            spans.push_back(secondsOf(r->loadEndNs - r->loadStartNs));
    }
    if (spans.empty())
        return 0.0;
    std::nth_element(spans.begin(), spans.begin() + static_cast<std::ptrdiff_t>(spans.size() / 2),
                     spans.end());
    return spans[spans.size() / 2];
}

// Worker start-up: how much later than a steady load the first batch of an epoch was
// loaded, counted from the epoch's start (the run's, or the rank's last step of the
// epoch before). It holds the workers' start and whatever the first loads cost beyond
// later ones (a decoder's set-up, cold caches).
void measureStartup(const std::vector<TraceRecord> &records, const LoaderConfig &loader,
                    EngineKind engine, Calibration &cal)
{
    // A steady load, and the delay before it that the model adds to every task.
    const double steady = steadyLoadSeconds(afterWarmup(records, cal.config.warmupBatches))
                          + cal.costs.taskStartSeconds;
    std::map<std::pair<int, int>, std::int64_t> firstLoaded, lastEnd;
    for (const TraceRecord &r : records) {
        auto &end = lastEnd[{r.rank, r.epoch}];
        end = std::max(end, r.computeEndNs);
        if (r.worker == kConsumerThread)
            continue;
        auto [at, fresh] = firstLoaded.emplace(std::make_pair(r.rank, r.epoch), r.loadEndNs);
        if (!fresh)
            at->second = std::min(at->second, r.loadEndNs);
    }
    double first = 0.0, later = 0.0;
    int firstCount = 0, laterCount = 0;
    for (const auto &[key, loaded] : firstLoaded) {
        const auto [rank, epoch] = key;
        const auto before = lastEnd.find({rank, epoch - 1});
        if (before == lastEnd.end()) { // the rank's first epoch in the trace
            first += std::max(0.0, secondsOf(loaded) - steady);
            ++firstCount;
        } else if (!loader.persistentWorkers) {
            later += std::max(0.0, secondsOf(loaded - before->second) - steady);
            ++laterCount;
        }
    }
    ModelCosts &c = cal.costs;
    c.startupSeconds = firstCount > 0 ? first / firstCount : 0.0;
    if (laterCount > 0) {
        c.restartSeconds = later / laterCount;
    } else if (engine == EngineKind::PyTorch) {
        c.restartSeconds = c.startupSeconds;
        cal.notes.push_back("no epoch restarted the workers: a restart is taken to cost the "
                            "first start-up, "
                            + millisText(c.startupSeconds));
    }
}

} // namespace

LinearCost fitLinearCost(const std::vector<std::pair<int, double>> &points, bool *oneSize)
{
    if (oneSize)
        *oneSize = false;
    if (points.empty())
        return {};
    std::set<int> sizes;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto &[x, y] : points) {
        sizes.insert(x);
        sx += x;
        sy += y;
        sxx += static_cast<double>(x) * x;
        sxy += x * y;
    }
    const auto n = static_cast<double>(points.size());
    if (sizes.size() < 2) {
        if (oneSize)
            *oneSize = true;
        const int x = *sizes.begin();
        return x > 0 ? LinearCost{0.0, std::max(0.0, sy / n / x)}
                     : LinearCost{std::max(0.0, sy / n), 0};
    }
    const double b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    const double a = (sy - b * sx) / n;
    if (b < 0.0)
        return {std::max(0.0, sy / n), 0.0};
    if (a < 0.0)
        return {0.0, std::max(0.0, sxy / sxx)}; // through the origin
    return {a, b};
}

Calibration calibrateFromRun(const std::vector<TraceRecord> &records, const RunReport &report)
{
    if (records.empty())
        throw std::invalid_argument("the run has no batch to calibrate from");
    Calibration cal;
    cal.config = report.configVersions.empty() ? report.config
                                               : report.configVersions.front().config;
    if (report.configVersions.size() > 1)
        cal.notes.push_back("the run was reconfigured while it ran: its costs come from all "
                            "its batches, the setting predicted back is its first");
    const RunConfig &config = cal.config;
    const LoaderConfig &loader = config.loader;
    int cores = report.machine.logicalCores;
    if (cores < 1) {
        cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
        cal.notes.push_back("the run's JSON names no core count: this machine's "
                            + std::to_string(cores) + " assumed");
    }
    const double threads = stepThreads(config, cores);

    // How crowded the run's cores were: every load, pin and CPU step, with its threads.
    int mostWorkers = 0;
    for (const ConfigVersion &v : report.configVersions)
        mostWorkers = std::max(mostWorkers, v.config.loader.numWorkers);
    const int ranks = std::max(1, config.devices);
    ContentionProfile profile(cores, std::max(1, std::max(mostWorkers, loader.numWorkers)) * ranks);
    for (const TraceRecord &r : records) {
        const double loadThreads = r.worker == kAllWorkers
                                       ? std::min(loader.numWorkers, r.samples + r.skipped)
                                       : 1.0;
        profile.addLoad(r.loadStartNs, r.loadEndNs, loadThreads);
        profile.addBusy(r.pinStartNs, r.pinEndNs, 1.0);
        profile.addBusy(r.computeStartNs, r.computeEndNs, threads);
    }
    profile.finish();
    if (profile.meanBusyThreads() > cores + 0.5)
        cal.notes.push_back("the run kept about "
                            + std::to_string(std::lround(profile.meanBusyThreads()))
                            + " threads busy on " + std::to_string(cores)
                            + " cores: its times were scaled down to the work they hold");

    // Per-sample load, collate, the rest of the load span, pin, copy, step.
    std::vector<double> sampleMeans;
    std::vector<std::pair<int, double>> collate, pin, copy, step, handoff;
    double rest = 0.0, stepOver = 0.0;
    int restCount = 0, stepCount = 0, stageless = 0;
    for (const TraceRecord *p : afterWarmup(records, config.warmupBatches)) {
        const TraceRecord &r = *p;
        const int loaded = r.samples + r.skipped;
        const double wall = secondsOf(r.loadEndNs - r.loadStartNs);
        if (loaded > 0 && wall > 0.0) {
            const double work = profile.workSeconds(r.loadStartNs, r.loadEndNs);
            const double factor = work / wall;
            const double stages = secondsOf(r.readNs + r.decodeNs + r.transformNs) * factor;
            const double collated = secondsOf(r.collateNs) * factor;
            if (r.worker == kAllWorkers) {
                // The span is the batch's, all workers together: only its stages say
                // what a sample costs.
                const double all = stages > 0.0
                                       ? stages
                                       : work * std::min(loader.numWorkers, loaded) - collated;
                sampleMeans.push_back(std::max(0.0, all) / loaded);
            } else if (stages > 0.0) {
                sampleMeans.push_back(stages / loaded);
                rest += std::max(0.0, work - stages - collated);
                ++restCount;
            } else {
                sampleMeans.push_back(std::max(0.0, work - collated) / loaded);
                ++stageless;
            }
            collate.emplace_back(loaded, collated);
        }
        if (r.pinEndNs > r.pinStartNs)
            pin.emplace_back(r.samples, profile.workSeconds(r.pinStartNs, r.pinEndNs));
        if (r.copyEndNs > r.copyStartNs)
            copy.emplace_back(r.samples, secondsOf(r.copyEndNs - r.copyStartNs));
        const double computed = threads > 0.0
                                    ? profile.workSeconds(r.computeStartNs, r.computeEndNs)
                                    : secondsOf(r.computeEndNs - r.computeStartNs);
        step.emplace_back(r.samples, computed);
        // How long a consumer that waited took to hold the batch once it was ready.
        if (r.worker != kConsumerThread && r.readyNs > r.requestNs && r.deliveryNs >= r.readyNs)
            handoff.emplace_back(r.samples, secondsOf(r.deliveryNs - r.readyNs));
        stepOver += secondsOf(r.computeEndNs - r.computeStartNs)
                    - sleepSeconds(config.consumer, r.samples);
        ++stepCount;
    }
    ModelCosts &c = cal.costs;
    c.sampleSeconds = batchMeanCosts(sampleMeans);
    c.draw = SampleDraw::PerBatch;
    if (stageless > 0)
        cal.notes.push_back("the trace has no read/decode/transform times for "
                            + std::to_string(stageless)
                            + " batches: their samples cost their load span less collate");
    bool oneSize = false;
    c.collate = fitLinearCost(collate);
    if (restCount > 0 && rest > 0.0) {
        c.collate.fixed += rest / restCount;
        cal.notes.push_back("a batch's load holds " + millisText(rest / restCount)
                            + " beyond its samples and collate: counted with collate");
    }
    c.pin = fitLinearCost(pin);
    if (loader.pinMemory && pin.empty())
        cal.notes.push_back("the run pinned no batch it recorded: pinning costs nothing here");
    c.copy = fitLinearCost(copy);
    c.handoff = fitLinearCost(handoff);
    c.afterStepSeconds = afterStepSeconds(records, config);
    c.taskStartSeconds = taskStartSeconds(afterWarmup(records, config.warmupBatches));
    c.consumerThreads = threads;
    if (config.consumer.kind == ConsumerKind::Sleep) {
        cal.stepOverheadSeconds = stepCount > 0 ? std::max(0.0, stepOver / stepCount) : 0.0;
        c.step = {config.consumer.sleepPerBatchMs / 1e3 + cal.stepOverheadSeconds,
                  config.consumer.sleepPerSampleMs / 1e3};
    } else {
        c.step = fitLinearCost(step, &oneSize);
        if (oneSize && c.step.at(loader.batchSize) > 1e-6)
            cal.notes.push_back("the run had one batch size: its step is taken as proportional "
                                "to the batch (a = 0, b = step / batch)");
    }

    measureStartup(records, loader, config.engine, cal);

    // The run's own setting.
    ModelSetting &s = cal.setting;
    copyLoaderSettings(loader, s);
    s.cores = cores;
    s.devices = std::max(1, config.devices);
    s.syncDevices = config.syncDevices;
    s.warmupBatches = config.warmupBatches;
    s.epochs = 0;
    s.batches = static_cast<std::int64_t>(records.size());
    std::int64_t epochZero = 0;
    int lastEpoch = 0;
    for (const TraceRecord &r : records) {
        cal.measuredSamples += r.samples;
        lastEpoch = std::max(lastEpoch, r.epoch);
        if (r.epoch == 0)
            epochZero += r.samples + r.skipped;
    }
    if (lastEpoch > 0) {
        s.samplesPerEpoch = epochZero;
    } else if (config.dataset.kind == DatasetKind::Synthetic) {
        s.samplesPerEpoch = config.dataset.syntheticSamples;
    } else {
        s.samplesPerEpoch = std::max<std::int64_t>(1, cal.measuredSamples);
        cal.notes.push_back("the run ended within its first epoch: an epoch is taken to be the "
                            + std::to_string(cal.measuredSamples) + " samples it read");
    }
    cal.measured = report.summary;
    return cal;
}

Calibration calibrateFromFiles(const std::string &path)
{
    const bool csvGiven = path.size() > 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
    const std::string csv = csvGiven ? path : traceCsvBeside(path);
    const std::string json = csvGiven ? summaryJsonBeside(path) : path;
    if (csv.empty() || json.empty())
        throw std::runtime_error(path + ": no " + (csv.empty() ? "per-batch CSV" : "summary JSON")
                                 + " of the same name beside it (loaderlab run --csv RUN.csv "
                                   "--json RUN.json writes both)");
    const OpenedRun run = openRun(csv, json);
    try {
        return calibrateFromRun(run.trace->records(), run.report);
    } catch (const std::invalid_argument &e) {
        throw std::runtime_error(path + ": " + e.what());
    }
}

ModelCosts costsFor(const Calibration &calibration, const RunConfig &config)
{
    ModelCosts c = calibration.costs;
    // A simulated step is what its settings say (plus the oversleep measured), also
    // when a run without a step is given one (as `loaderlab run --sleep-batch-ms` implies
    // it); no step costs nothing; a model's step is the calibrated run's.
    const ConsumerConfig &consumer = config.consumer;
    const bool sleeps = consumer.kind == ConsumerKind::Sleep
                        || (consumer.kind == ConsumerKind::None
                            && (consumer.sleepPerBatchMs > 0.0 || consumer.sleepPerSampleMs > 0.0));
    if (sleeps)
        c.step = {consumer.sleepPerBatchMs / 1e3 + calibration.stepOverheadSeconds,
                  consumer.sleepPerSampleMs / 1e3};
    else if (consumer.kind == ConsumerKind::None)
        c.step = {};
    c.consumerThreads = stepThreads(config, calibration.setting.cores);
    return c;
}

ModelSetting settingFor(const Calibration &calibration, const RunConfig &config, int cores)
{
    ModelSetting s = calibration.setting;
    const LoaderConfig &loader = config.loader;
    copyLoaderSettings(loader, s);
    s.devices = std::max(1, config.devices);
    s.syncDevices = config.syncDevices;
    s.warmupBatches = config.warmupBatches;
    if (cores > 0)
        s.cores = cores;
    if (config.maxBatches > 0) {
        s.batches = config.maxBatches;
        s.epochs = config.epochs;
    } else if (config.epochs > 0 && config.maxSeconds <= 0.0) {
        s.batches = 0;
        s.epochs = config.epochs;
    } else {
        s.epochs = 0;
        s.batches = std::max<std::int64_t>(1, (calibration.measuredSamples + loader.batchSize - 1)
                                                  / loader.batchSize);
    }
    return s;
}

} // namespace loaderlab
