#include "widgets/what_if/what_if_prediction.h"

#include "core/io/run_reader.h"
#include "core/predict/node_scaling.h"
#include "core/system/machine_info.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace loaderlab {

namespace {

// A prediction's figures without its batches (the panel keeps only the figures).
Prediction figuresOnly(Prediction p)
{
    p.batches.clear();
    p.batches.shrink_to_fit();
    return p;
}

} // namespace

WhatIfCalibration calibrateWhatIf(const TraceLog &trace, const RunReport &report)
{
    WhatIfCalibration out;
    const std::size_t first = trace.firstKept();
    const std::vector<TraceRecord> records = trace.records(first,
                                                           first + kWhatIfMaxCalibrationBatches);
    out.cut = trace.size() - first > records.size();
    out.batches = static_cast<std::int64_t>(records.size());
    out.calibration = calibrateFromRun(records, report);
    out.measuredSamplesPerSecond = out.calibration.measured.samplesPerSecMean;
    out.self = figuresOnly(predictLoader(out.calibration.costs, out.calibration.setting));
    out.reconfigured = report.configVersions.size() > 1;
    return out;
}

RunReport keptRunReport(const std::string &source, const RunConfig &config,
                        const RunSummary &summary, const TraceLog &trace)
{
    if (!source.empty()) {
        const std::string json = summaryJsonBeside(source);
        std::error_code error;
        if (!json.empty() && std::filesystem::is_regular_file(json, error)) {
            try {
                RunReport report = loadRunReport(json);
                report.summary = summary;
                return report;
            } catch (const std::exception &) {
                // A summary that cannot be read back: what the window holds instead.
            }
        }
    }
    RunReport report;
    report.config = config;
    report.summary = summary;
    report.configVersions = trace.configVersions();
    if (report.configVersions.empty())
        report.configVersions.push_back({0, 0, 0, config});
    report.machine.logicalCores = machineInfo().logicalCores;
    return report;
}

WhatIfSetting runSetting(const Calibration &calibration)
{
    WhatIfSetting s;
    s.cores = calibration.setting.cores;
    s.devices = calibration.setting.devices;
    s.workers = calibration.config.loader.numWorkers;
    s.batchSize = calibration.config.loader.batchSize;
    return s;
}

RunConfig whatIfConfig(const Calibration &calibration, const WhatIfSetting &setting)
{
    RunConfig config = calibration.config;
    config.loader.numWorkers = setting.workers;
    config.loader.batchSize = std::max(1, setting.batchSize);
    config.devices = std::max(1, setting.devices);
    const std::int64_t samples = std::max<std::int64_t>(1, calibration.measuredSamples);
    config.maxBatches = std::clamp<std::int64_t>(
        (samples + config.loader.batchSize - 1) / config.loader.batchSize, 1, kWhatIfMaxBatches);
    if (setting.nodes > 1) // each of the many ranks past its warm-up
        config.maxBatches = std::max<std::int64_t>(
            config.maxBatches, static_cast<std::int64_t>(setting.nodes) * config.devices
                                   * (config.warmupBatches + kLeastRankBatches));
    config.maxSeconds = 0.0;
    return config;
}

Prediction predictWhatIfSetting(const Calibration &calibration, const WhatIfSetting &setting)
{
    const RunConfig config = whatIfConfig(calibration, setting);
    const int cores = std::max(1, setting.cores);
    ModelSetting model = settingFor(calibration, config, cores); // an idle machine
    if (!setting.idleMachine && calibration.busyMachine.busy) {
        // As it was: other sessions keep the cores they held, and the programs of the
        // run's own session stay as many busy threads, whatever the cores.
        model.outsideCores = calibration.setting.outsideCores;
        model.otherLoad = calibration.setting.otherLoad;
        if (model.outsideCores >= cores)
            throw std::invalid_argument("other programs held " + coresText(model.outsideCores)
                                        + " cores while the run was recorded, as many as the "
                                        + std::to_string(cores)
                                        + " chosen or more: choose more cores, or an idle machine");
    }
    model.nodes = std::max(1, setting.nodes);
    ModelCosts costs = costsFor(calibration, config);
    if (model.nodes > 1)
        costs.betweenNodes = networkLinkNamed(setting.betweenNodes);
    return figuresOnly(predictLoader(costs, model));
}

WhatIfOutcome predictWhatIf(const Calibration &calibration, const WhatIfSetting &setting)
{
    WhatIfOutcome out;
    out.setting = setting;
    out.prediction = predictWhatIfSetting(calibration, setting);
    for (int w = 0; w <= 2 * std::max(1, setting.cores); ++w) {
        WhatIfSetting point = setting;
        point.workers = w;
        try {
            const double rate = w == setting.workers
                                    ? out.prediction.samplesPerSecond
                                    : predictWhatIfSetting(calibration, point).samplesPerSecond;
            out.curve.push_back({w, rate});
        } catch (const std::invalid_argument &) {
            // A worker count the model refuses for this setting: no point there.
        }
    }
    return out;
}

} // namespace loaderlab
