#include "core/autotune/live_loader_model.h"

#include "core/autotune/autotuner.h"
#include "core/io/summary_json.h"
#include "core/predict/calibration.h"
#include "core/predict/loader_model.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace loaderlab {
namespace {

constexpr std::size_t kMinBatches = 8;
constexpr std::int64_t kPredictedBatches = 240; // per prediction: ms of simulation

RunConfig variant(const RunConfig &config, const AutotuneSettings &s)
{
    RunConfig c = config;
    c.loader.numWorkers = s.workers;
    c.loader.prefetchFactor = s.prefetch;
    c.loader.batchSize = s.batchSize;
    c.maxBatches = kPredictedBatches;
    c.maxSeconds = 0.0;
    return c;
}

// One stretch of one setting as a run of its own: one config version, one epoch, no
// warm-up left to leave out (the caller left the new loader's first round out).
Calibration calibrateStretch(const std::vector<TraceRecord> &records, const RunConfig &config,
                             int cores, const MachineLoad &load)
{
    std::vector<TraceRecord> stretch = records;
    for (TraceRecord &r : stretch) {
        r.epoch = 0;
        r.configVersion = 0;
    }
    RunReport report;
    report.config = config;
    report.config.warmupBatches = 0;
    report.configVersions.push_back({0, stretch.front().index, 0, report.config});
    report.machine.logicalCores = std::max(1, cores);
    report.machineLoad = load;
    report.state = "stopped";
    return calibrateFromRun(stretch, report);
}

} // namespace

std::optional<double> liveOtherDemand(const std::vector<TraceRecord> &records,
                                      const RunConfig &config, int cores, const MachineLoad &load)
{
    if (!load.known() || records.size() < 2)
        return std::nullopt;
    try {
        return otherDemandCores(calibrateStretch(records, config, cores, load).busyMachine);
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

LiveLoaderModel calibrateLiveModel(const std::vector<TraceRecord> &records, const RunConfig &config,
                                   int cores, const MachineLoad &load)
{
    if (records.size() < kMinBatches)
        throw std::invalid_argument("the loader model needs at least " + std::to_string(kMinBatches)
                                    + " batches to calibrate from, "
                                    + std::to_string(records.size()) + " measured");
    const auto calibration = std::make_shared<const Calibration>(
        calibrateStretch(records, config, cores, load));

    LiveLoaderModel model;
    model.notes = calibration->notes;
    model.busy = calibration->busyMachine;
    // On the calibrated machine as busy as it was (settingFor's 0 cores): an idle
    // machine when the load was unknown or small.
    model.predict = [calibration, config](const AutotuneSettings &s) {
        const RunConfig c = variant(config, s);
        ModelCosts costs = costsFor(*calibration, c);
        costs.startupSeconds = 0.0;
        costs.restartSeconds = 0.0;
        costs.firstFill =
            {}; // the new loader's first buffers: a cost of the change, not of the setting
        ModelSetting setting = settingFor(*calibration, c, 0);
        setting.epochs = 0;
        setting.batches = kPredictedBatches * std::max(1, setting.devices);
        setting.samplesPerEpoch = (setting.batches + 1) * std::int64_t{s.batchSize};
        if (!modelInputProblem(costs, setting).empty())
            return 0.0;
        return predictLoader(costs, setting).samplesPerSecond;
    };
    model.measured = autotuneWindowRate(records);
    model.predicted = model.predict(
        {config.loader.numWorkers, config.loader.prefetchFactor, config.loader.batchSize});
    return model;
}

} // namespace loaderlab
