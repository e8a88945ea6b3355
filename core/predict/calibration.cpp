#include "core/predict/calibration.h"

#include "core/io/run_reader.h"
#include "core/predict/busy_machine.h"
#include "core/predict/contention_profile.h"
#include "core/predict/exchange_calibration.h"
#include "core/predict/trace_timings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
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

// A batch's load as CPU work: per sample, its collate, and what its span holds beyond
// both (the span less stages and collate, where the trace has stages).
struct LoadWork
{
    int samples = 0; // 0: no load to read
    double perSample = 0.0;
    double collate = 0.0;
    double rest = 0.0;
    bool staged = false;
};

LoadWork loadWork(const TraceRecord &r, const ContentionProfile &profile, int workers)
{
    LoadWork w;
    const int loaded = r.samples + r.skipped;
    const double wall = secondsOf(r.loadEndNs - r.loadStartNs);
    if (loaded <= 0 || wall <= 0.0)
        return w;
    w.samples = loaded;
    const double work = profile.workSeconds(r.loadStartNs, r.loadEndNs);
    const double factor = work / wall;
    const double stages = secondsOf(r.readNs + r.decodeNs + r.transformNs) * factor;
    w.collate = secondsOf(r.collateNs) * factor;
    w.staged = stages > 0.0;
    if (r.worker == kAllWorkers) {
        // The span is the batch's, all workers together: only its stages say what a
        // sample costs.
        const double all = w.staged ? stages : work * std::min(workers, loaded) - w.collate;
        w.perSample = std::max(0.0, all) / loaded;
    } else if (w.staged) {
        w.perSample = stages / loaded;
        w.rest = std::max(0.0, work - stages - w.collate);
    } else {
        w.perSample = std::max(0.0, work - w.collate) / loaded;
    }
    return w;
}

double medianOf(std::vector<double> values)
{
    if (values.empty())
        return 0.0;
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

// The first fill of a fresh pool buffer: how much more a sample of the batches that
// filled one cost than a steady one (medians: a few batches, each of which another
// process can slow down). Each rank's first batch is left out where it had others: it
// also holds the cold start of the workers' first loads, which measureStartup counts.
void measureFirstFill(const std::vector<TraceRecord> &records, const std::vector<char> &fresh,
                      const ContentionProfile &profile, int workers, Calibration &cal)
{
    std::map<int, std::vector<std::pair<std::int64_t, double>>> byRank; // (dispatch, per sample)
    for (std::size_t k = 0; k < records.size(); ++k) {
        const LoadWork load = loadWork(records[k], profile, workers);
        if (fresh[k] && load.samples > 0)
            byRank[records[k].rank].emplace_back(records[k].dispatchNs, load.perSample);
    }
    std::vector<double> filled;
    for (auto &[rank, list] : byRank) {
        std::sort(list.begin(), list.end());
        for (std::size_t k = list.size() > 1 ? 1 : 0; k < list.size(); ++k)
            filled.push_back(list[k].second);
    }
    const double extra = medianOf(filled) - medianOf(cal.costs.sampleSeconds);
    if (filled.empty() || extra <= 0.0)
        return;
    cal.costs.firstFill = {0.0, extra};
    cal.notes.push_back("the batches that filled fresh pool buffers cost "
                        + calibrationMillis(extra)
                        + " more per sample (their pages faulting in): counted for the first "
                          "W x prefetch + 1 batches of each setting");
}

// Throws std::invalid_argument when the records measured nothing: no time (every time
// 0), no duration (from the first request to the last time recorded), or no delivered
// sample. The model would be calibrated to costs of 0 and predict any rate at all.
void checkSomethingMeasured(const std::vector<TraceRecord> &records)
{
    std::int64_t firstRequest = std::numeric_limits<std::int64_t>::max();
    std::int64_t last = 0;
    std::int64_t samples = 0;
    for (const TraceRecord &r : records) {
        samples += r.samples;
        firstRequest = std::min(firstRequest, r.requestNs);
        for (const std::int64_t t : {r.dispatchNs, r.loadStartNs, r.loadEndNs, r.readyNs,
                                     r.pinStartNs, r.pinEndNs, r.requestNs, r.deliveryNs,
                                     r.copyStartNs, r.copyEndNs, r.computeStartNs, r.computeEndNs})
            last = std::max(last, t);
    }
    if (last == 0)
        throw std::invalid_argument(
            "no batch has a measured time (all 0): nothing to calibrate from");
    if (last <= firstRequest)
        throw std::invalid_argument("the run took no time (its first request and its last "
                                    "time are both at "
                                    + std::to_string(last) + " ns): nothing to calibrate from");
    if (samples <= 0)
        throw std::invalid_argument("the run delivered no sample (its "
                                    + std::to_string(records.size())
                                    + " batches hold none): nothing to calibrate from");
}

// The setting the calibration predicts back: the run's first, where it was
// reconfigured while it ran.
RunConfig calibratedConfig(const RunReport &report, std::vector<std::string> &notes)
{
    if (report.configVersions.size() > 1)
        notes.push_back("the run was reconfigured while it ran: its costs come from all "
                        "its batches, the setting predicted back is its first");
    return report.configVersions.empty() ? report.config : report.configVersions.front().config;
}

// The cores the run had: its JSON's, else this machine's.
int calibrationCores(const RunReport &report, std::vector<std::string> &notes)
{
    int cores = report.machine.logicalCores;
    if (cores < 1) {
        cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
        notes.push_back("the run's JSON names no core count: this machine's "
                        + std::to_string(cores) + " assumed");
    }
    return cores;
}

// How crowded the run's cores were: every load, pin and CPU step, with its threads.
ContentionProfile profileContention(const std::vector<TraceRecord> &records,
                                    const RunReport &report, const RunConfig &config, int cores,
                                    double threads, std::vector<std::string> &notes)
{
    const LoaderConfig &loader = config.loader;
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
        notes.push_back("the run kept about "
                        + std::to_string(std::lround(profile.meanBusyThreads()))
                        + " threads busy on " + std::to_string(cores)
                        + " cores: its times were scaled down to the work they hold");
    return profile;
}

// What the steady batches (after warm-up) measured, batch by batch: per-sample load,
// collate, the rest of the load span, pin, copy, step and handoff. The batches that
// filled fresh buffers are kept apart (their loads and pins) where there are others.
struct SteadyMeasures
{
    std::vector<char> fresh;
    bool freshApart = false;
    std::vector<double> sampleMeans;
    std::vector<std::pair<int, double>> collate, pin, copy, step, handoff;
    double rest = 0.0, stepOver = 0.0;
    int restCount = 0, stepCount = 0, stageless = 0;
};

SteadyMeasures measureSteadyBatches(const std::vector<TraceRecord> &records,
                                    const RunConfig &config, const ContentionProfile &profile,
                                    double threads)
{
    const LoaderConfig &loader = config.loader;
    SteadyMeasures m;
    m.fresh = freshBufferBatches(records, config);
    const std::vector<const TraceRecord *> steady = afterWarmup(records, config.warmupBatches);
    m.freshApart = std::any_of(steady.begin(), steady.end(), [&](const TraceRecord *r) {
        return !m.fresh[static_cast<std::size_t>(r - records.data())];
    });
    for (const TraceRecord *p : steady) {
        const TraceRecord &r = *p;
        const int loaded = r.samples + r.skipped;
        const bool freshOne = m.freshApart && m.fresh[static_cast<std::size_t>(p - records.data())];
        const LoadWork load = loadWork(r, profile, loader.numWorkers);
        if (load.samples > 0 && !freshOne) {
            m.sampleMeans.push_back(load.perSample);
            if (r.worker != kAllWorkers) {
                m.rest += load.rest;
                m.restCount += load.staged ? 1 : 0;
                m.stageless += load.staged ? 0 : 1;
            }
            m.collate.emplace_back(loaded, load.collate);
        }
        if (r.pinEndNs > r.pinStartNs && !freshOne)
            m.pin.emplace_back(r.samples, profile.workSeconds(r.pinStartNs, r.pinEndNs));
        if (r.copyEndNs > r.copyStartNs)
            m.copy.emplace_back(r.samples, secondsOf(r.copyEndNs - r.copyStartNs));
        const double computed = threads > 0.0
                                    ? profile.workSeconds(r.computeStartNs, r.computeEndNs)
                                    : secondsOf(r.computeEndNs - r.computeStartNs);
        m.step.emplace_back(r.samples, computed);
        // How long a consumer that waited took to hold the batch once it was ready.
        if (r.worker != kConsumerThread && r.readyNs > r.requestNs && r.deliveryNs >= r.readyNs)
            m.handoff.emplace_back(r.samples, secondsOf(r.deliveryNs - r.readyNs));
        m.stepOver += secondsOf(r.computeEndNs - r.computeStartNs)
                      - sleepSeconds(config.consumer, r.samples);
        ++m.stepCount;
    }
    return m;
}

// The model's costs from the steady batches: per-sample costs as measured, the first
// fill of fresh buffers, and a line (fixed + per sample) for collate, pin, copy,
// handoff and step.
void fitCosts(const std::vector<TraceRecord> &records, const ContentionProfile &profile,
              double threads, Calibration &cal)
{
    const RunConfig &config = cal.config;
    const LoaderConfig &loader = config.loader;
    const SteadyMeasures m = measureSteadyBatches(records, config, profile, threads);
    ModelCosts &c = cal.costs;
    c.sampleSeconds = batchMeanCosts(m.sampleMeans);
    c.draw = SampleDraw::PerBatch;
    if (m.freshApart)
        measureFirstFill(records, m.fresh, profile, loader.numWorkers, cal);
    if (m.stageless > 0)
        cal.notes.push_back("the trace has no read/decode/transform times for "
                            + std::to_string(m.stageless)
                            + " batches: their samples cost their load span less collate");
    bool oneSize = false;
    c.collate = fitLinearCost(m.collate);
    if (m.restCount > 0 && m.rest > 0.0) {
        c.collate.fixed += m.rest / m.restCount;
        cal.notes.push_back("a batch's load holds " + calibrationMillis(m.rest / m.restCount)
                            + " beyond its samples and collate: counted with collate");
    }
    c.pin = fitLinearCost(m.pin);
    if (loader.pinMemory && m.pin.empty())
        cal.notes.push_back("the run pinned no batch it recorded: pinning costs nothing here");
    c.copy = fitLinearCost(m.copy);
    c.handoff = fitLinearCost(m.handoff);
    c.afterStepSeconds = afterStepSeconds(records, config);
    c.taskStartSeconds = taskStartSeconds(afterWarmup(records, config.warmupBatches));
    c.consumerThreads = threads;
    if (config.consumer.kind == ConsumerKind::Sleep) {
        cal.stepOverheadSeconds = m.stepCount > 0 ? std::max(0.0, m.stepOver / m.stepCount) : 0.0;
        c.step = {config.consumer.sleepPerBatchMs / 1e3 + cal.stepOverheadSeconds,
                  config.consumer.sleepPerSampleMs / 1e3};
    } else {
        c.step = fitLinearCost(m.step, &oneSize);
        if (oneSize && c.step.at(loader.batchSize) > 1e-6)
            cal.notes.push_back("the run had one batch size: its step is taken as proportional "
                                "to the batch (a = 0, b = step / batch)");
    }
}

// The run's own setting, and how many samples it delivered and an epoch holds.
void describeRunSetting(const std::vector<TraceRecord> &records, const RunReport &report, int cores,
                        Calibration &cal)
{
    const RunConfig &config = cal.config;
    ModelSetting &s = cal.setting;
    copyLoaderSettings(config.loader, s);
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
    cal.machine = report.machine;
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
    checkSomethingMeasured(records);
    Calibration cal;
    cal.config = calibratedConfig(report, cal.notes);
    const int cores = calibrationCores(report, cal.notes);
    const double threads = stepThreads(cal.config, cores);
    ContentionProfile profile = profileContention(records, report, cal.config, cores, threads,
                                                  cal.notes);
    // Other programs' load (busy_machine.h): the costs are the threads' own work.
    cal.load = report.machineLoad;
    cal.busyMachine = busyMachine(report.machineLoad, cores, profile);
    if (cal.busyMachine.busy) {
        profile.shareMachine(cal.busyMachine.shareCores, cal.busyMachine.otherLoad);
        cal.notes.push_back(busyMachineNote(cal.busyMachine, cores));
    }
    fitCosts(records, profile, threads, cal);
    measureStartup(records, cal);
    describeRunSetting(records, report, cores, cal);
    calibrateExchange(records, cal);
    for (const TraceRecord *r : afterWarmup(records, cal.config.warmupBatches))
        cal.stepWaitSeconds.push_back(static_cast<double>(r->waitNs()) * 1e-9);
    cal.setting.outsideCores = cal.busyMachine.outsideCores;
    cal.setting.otherLoad = cal.busyMachine.otherLoad;
    return cal;
}

Calibration calibrateFromFiles(const std::string &path)
{
    const OpenedRun run = openRunBeside(path);
    try {
        return calibrateFromRun(run.trace->records(), run.report);
    } catch (const std::invalid_argument &e) {
        // The batches and their times are the CSV's.
        throw std::runtime_error(run.csvPath + ": " + e.what());
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
    // The variant's gradient (an axis may change it), on the calibrated link.
    c.gradientBytes = config.syncDevices ? config.gradientMb * 1e6 : 0.0;
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
    if (cores > 0) {
        s.cores = cores;
        s.outsideCores = 0.0; // a machine of `cores` cores with nothing else to do
        s.otherLoad = 0.0;
    }
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
