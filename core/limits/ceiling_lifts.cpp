#include "core/limits/ceiling_lifts.h"

#include "core/predict/loader_model.h"

#include <algorithm>
#include <string>

namespace loaderlab {
namespace {

// Enough batches after the warm-up for the steady rate, in one epoch.
constexpr int kPredictedBatches = 200;

struct LiftInputs
{
    double sampleSeconds = 0.0;   // CPU time a sample: 1 / the decode's rate a core
    double handoverSeconds = 0.0; // a batch, from the hand-over ceiling
    double stepSeconds = 0.0;     // a batch, from the step ceiling
    double stepThreads = 0.0;     // a CPU model's intra-op threads; 0: it only waits
    double storage = 0.0;         // samples/s, 0: not measured
};

double predictedRate(const LiftInputs &in, const RunConfig &config, int workers, int cores,
                     double outsideCores)
{
    ModelCosts costs;
    costs.sampleSeconds = {in.sampleSeconds};
    costs.handoff.fixed = in.handoverSeconds;
    costs.step.fixed = in.stepSeconds;
    costs.consumerThreads = in.stepThreads;
    ModelSetting setting;
    setting.workers = workers;
    setting.batchSize = config.loader.batchSize;
    setting.prefetchFactor = config.loader.prefetchFactor;
    setting.strategy = config.loader.strategy;
    setting.persistentWorkers = true;
    setting.inOrder = config.loader.inOrder;
    setting.cores = cores;
    setting.outsideCores = outsideCores;
    setting.samplesPerEpoch = static_cast<std::int64_t>(config.loader.batchSize)
                              * (kPredictedBatches + setting.warmupBatches);
    setting.epochs = 1;
    return predictLoader(costs, setting).samplesPerSecond;
}

PredictedLift lift(LiftKind kind, int workers, double rate, double storage)
{
    const bool cut = storage > 0.0 && rate > storage;
    return {kind, workers, cut ? storage : rate, cut};
}

std::string workersText(int workers)
{
    return std::to_string(workers) + (workers == 1 ? " worker" : " workers");
}

} // namespace

std::string liftName(const PredictedLift &lift)
{
    switch (lift.kind) {
    case LiftKind::AsSet:
        return "as set (" + workersText(lift.workers) + ")";
    case LiftKind::MoreWorkers:
        return workersText(lift.workers);
    case LiftKind::MoreCores:
        return "a core more, " + workersText(lift.workers);
    case LiftKind::Preprocessed:
        return "preprocessed tensors";
    case LiftKind::FasterStep:
        return "a step twice as fast";
    }
    return {};
}

std::vector<PredictedLift> predictLifts(const CeilingReport &report, const RunConfig &config)
{
    const Ceiling *decode = report.find(CeilingKind::Decode);
    const Ceiling *step = report.find(CeilingKind::Step);
    if (!decode || !decode->measured() || !step || !step->measured() || report.cores <= 0
        || report.freeCores <= 0.0 || config.loader.batchSize <= 0)
        return {};
    const double batch = config.loader.batchSize;
    LiftInputs in;
    in.sampleSeconds = report.freeCores / decode->samplesPerSecond;
    if (const Ceiling *handover = report.find(CeilingKind::Handover);
        handover && handover->measured())
        in.handoverSeconds = batch / handover->samplesPerSecond;
    in.stepSeconds = batch / step->samplesPerSecond;
    if (config.consumer.kind == ConsumerKind::Model && config.consumer.model.device == "cpu")
        in.stepThreads = config.consumer.model.threads > 0 ? config.consumer.model.threads
                                                           : report.cores;
    if (const Ceiling *storage = report.find(CeilingKind::Storage); storage && storage->measured())
        in.storage = storage->samplesPerSecond;

    const int workers = config.loader.numWorkers;
    const int cores = report.cores;
    const double outside = std::max(0.0, cores - report.freeCores);
    std::vector<PredictedLift> lifts;
    lifts.push_back(lift(LiftKind::AsSet, workers,
                         predictedRate(in, config, workers, cores, outside), in.storage));
    lifts.push_back(lift(LiftKind::MoreWorkers, workers + 1,
                         predictedRate(in, config, workers + 1, cores, outside), in.storage));
    lifts.push_back(lift(LiftKind::MoreCores, workers + 1,
                         predictedRate(in, config, workers + 1, cores + 1, outside), in.storage));
    if (const Ceiling *pre = report.find(CeilingKind::Preprocessed); pre && pre->measured()) {
        LiftInputs tensors = in;
        tensors.sampleSeconds = report.freeCores / pre->samplesPerSecond;
        lifts.push_back(lift(LiftKind::Preprocessed, workers,
                             predictedRate(tensors, config, workers, cores, outside), in.storage));
    }
    LiftInputs faster = in;
    faster.stepSeconds /= 2.0;
    lifts.push_back(lift(LiftKind::FasterStep, workers,
                         predictedRate(faster, config, workers, cores, outside), in.storage));
    return lifts;
}

} // namespace loaderlab
