#include "core/predict/loader_model.h"

#include "core/predict/loader_simulation.h"
#include "core/stats/wait_pattern.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace loaderlab {
namespace {

// The most batches one prediction simulates (all ranks): a few seconds of work.
constexpr std::int64_t kMaxModelBatches = 20'000'000;
constexpr int kMaxModelWorkers = 4096;
constexpr int kMaxModelDevices = 1024;
// An autocorrelation a wait period must reach to count (the lessons read 0.5 as strong).
constexpr double kPeriodStrength = 0.3;
// The longest predicted run whose times, in nanoseconds, fit the trace's 64-bit
// integers: about 290 years.
constexpr double kMaxPredictedSeconds = 9.2e9;

bool nonNegative(double v)
{
    return std::isfinite(v) && v >= 0.0;
}

std::string linearCostProblem(const LinearCost &c, const char *name)
{
    if (!nonNegative(c.fixed) || !nonNegative(c.perSample))
        return std::string(name) + ": costs must be finite and not negative";
    return {};
}

std::int64_t nanoseconds(double seconds)
{
    return std::llround(seconds * 1e9);
}

// Rank 0's waits, one stretch per epoch, each epoch's first round (W batches, the
// workers starting) left out: as the lessons read a measured run's waits.
int waitPeriod(const std::vector<PredictedBatch> &batches, int workers)
{
    std::vector<std::vector<double>> stretches;
    int epoch = -1;
    const std::int64_t round = std::max(1, workers);
    for (const PredictedBatch &b : batches) {
        if (b.rank != 0)
            continue;
        if (b.epoch != epoch) {
            epoch = b.epoch;
            stretches.emplace_back();
        }
        if (b.ordinal >= round)
            stretches.back().push_back(b.wait());
    }
    const int period = dominantPeriod(stretches, 2 * workers + 2, kPeriodStrength);
    return std::max(1, period);
}

} // namespace

std::string modelInputProblem(const ModelCosts &costs, const ModelSetting &s)
{
    if (s.workers < 0 || s.workers > kMaxModelWorkers)
        return "workers: expected 0.." + std::to_string(kMaxModelWorkers);
    if (s.batchSize < 1)
        return "batch size: expected at least 1";
    if (s.workers > 0 && s.prefetchFactor < 1)
        return "prefetch factor: expected at least 1";
    if (s.cores < 1)
        return "cores: expected at least 1";
    if (!nonNegative(s.otherLoad) || !nonNegative(s.outsideCores) || s.outsideCores >= s.cores)
        return "other programs' load: expected finite numbers, not negative, and fewer cores "
               "than the machine's";
    if (s.devices < 1 || s.devices > kMaxModelDevices)
        return "devices: expected 1.." + std::to_string(kMaxModelDevices);
    if (s.nodes < 1 || s.nodes > kMaxModelDevices / s.devices)
        return "nodes: expected 1.." + std::to_string(kMaxModelDevices / s.devices) + " ("
               + std::to_string(kMaxModelDevices) + " ranks at most)";
    if (s.nodes > 1 && costs.gradientBytes > 0.0 && !costs.betweenNodes.known())
        return "several nodes all-reduce their gradient over a link between them: none named";
    if (s.samplesPerEpoch < 1)
        return "samples per epoch: expected at least 1";
    if (s.epochs < 0 || s.batches < 0 || s.warmupBatches < 0)
        return "epochs, batches and warm-up batches must not be negative";
    if (s.epochs == 0 && s.batches == 0)
        return "no limit: give epochs or a batch count";
    const std::int64_t perRank = (s.samplesPerEpoch + s.ranks() - 1) / s.ranks();
    const std::int64_t perEpoch = s.dropLast ? perRank / s.batchSize
                                             : (perRank + s.batchSize - 1) / s.batchSize;
    if (perEpoch < 1)
        return "an epoch of " + std::to_string(perRank)
               + " samples per rank holds no whole batch (drop_last)";
    const double total = s.batches > 0 ? static_cast<double>(s.batches)
                                       : static_cast<double>(perEpoch) * s.epochs * s.ranks();
    if (total > static_cast<double>(kMaxModelBatches))
        return "more than " + std::to_string(kMaxModelBatches) + " batches to simulate";
    if (costs.sampleSeconds.empty())
        return "per-sample costs: none given";
    for (const double v : costs.sampleSeconds) {
        if (!nonNegative(v))
            return "per-sample costs must be finite and not negative";
    }
    for (const auto &[cost, name] : {std::pair{&costs.collate, "collate"},
                                     {&costs.pin, "pin"},
                                     {&costs.copy, "copy"},
                                     {&costs.step, "step"},
                                     {&costs.handoff, "handoff"},
                                     {&costs.firstFill, "first fill"}}) {
        if (auto problem = linearCostProblem(*cost, name); !problem.empty())
            return problem;
    }
    if (!nonNegative(costs.consumerThreads) || !nonNegative(costs.startupSeconds)
        || !nonNegative(costs.restartSeconds) || !nonNegative(costs.afterStepSeconds)
        || !nonNegative(costs.taskStartSeconds) || !nonNegative(costs.faultLanes))
        return "consumer threads, fault lanes and start-up times must be finite and not "
               "negative";
    for (const double f : costs.rankLoadFactor) {
        if (!std::isfinite(f) || f <= 0.0)
            return "rank load factors must be finite and positive";
    }
    return {};
}

Prediction predictLoader(const ModelCosts &costs, const ModelSetting &setting)
{
    if (auto problem = modelInputProblem(costs, setting); !problem.empty())
        throw std::invalid_argument("loader model: " + problem);
    Prediction p;
    p.batches = LoaderSimulation(costs, setting).run();
    if (p.batches.empty())
        return p;
    for (const PredictedBatch &b : p.batches)
        p.endToEndSeconds = std::max(p.endToEndSeconds, b.computeEnd);
    if (!(p.endToEndSeconds <= kMaxPredictedSeconds)) {
        char years[64];
        std::snprintf(years, sizeof years, "%.3g", p.endToEndSeconds / (365.25 * 24 * 3600));
        throw std::invalid_argument(std::string("loader model: the prediction runs for ") + years
                                    + " years, longer than a trace's nanoseconds can hold "
                                      "(about 290 years)");
    }
    const auto records = predictedRecords(p.batches);
    p.summary = summarize(records, predictedSpans(p.batches, setting.workers), setting.workers,
                          setting.warmupBatches, 0);
    p.samplesPerSecond = p.summary.samplesPerSecMean;
    p.inputBoundShare = p.summary.inputBoundShare;
    p.waitP50Seconds = p.summary.waitP50Ms / 1e3;
    p.waitP95Seconds = p.summary.waitP95Ms / 1e3;
    p.firstBatchSeconds = p.batches.front().delivery;
    p.dominantWaitPeriod = waitPeriod(p.batches, setting.workers);
    return p;
}

std::vector<TraceRecord> predictedRecords(const std::vector<PredictedBatch> &batches)
{
    std::vector<TraceRecord> records;
    records.reserve(batches.size());
    for (const PredictedBatch &b : batches) {
        TraceRecord r;
        r.index = b.index;
        r.epoch = b.epoch;
        r.worker = b.worker;
        r.samples = b.samples;
        r.rank = b.rank;
        r.dispatchNs = nanoseconds(b.dispatch);
        r.loadStartNs = nanoseconds(b.loadStart);
        r.loadEndNs = nanoseconds(b.loadEnd);
        r.readyNs = nanoseconds(b.ready);
        r.pinStartNs = nanoseconds(b.pinStart);
        r.pinEndNs = nanoseconds(b.pinEnd);
        r.requestNs = nanoseconds(b.request);
        r.deliveryNs = nanoseconds(b.delivery);
        if (b.copyEnd > b.delivery) {
            r.copyStartNs = r.deliveryNs;
            r.copyEndNs = nanoseconds(b.copyEnd);
        }
        r.computeStartNs = nanoseconds(b.computeStart);
        r.computeEndNs = nanoseconds(b.computeEnd);
        records.push_back(r);
    }
    return records;
}

std::vector<WorkerSpan> predictedSpans(const std::vector<PredictedBatch> &batches, int workers)
{
    // As a read-back run rebuilds them (core/io/run_reader.h): one span per batch, a
    // sample-parallel batch one per worker over its whole load.
    std::vector<WorkerSpan> spans;
    for (const PredictedBatch &b : batches) {
        const std::int64_t start = nanoseconds(b.loadStart);
        const std::int64_t end = nanoseconds(b.loadEnd);
        if (b.worker == kAllWorkers) {
            for (int w = 0; w < workers; ++w)
                spans.push_back({b.index, w, b.rank, start, end});
        } else {
            spans.push_back({b.index, b.worker, b.rank, start, end});
        }
    }
    return spans;
}

} // namespace loaderlab
