#include "core/predict/predicted_sweep.h"

#include "core/engine/engine.h"
#include "core/io/summary_json.h"
#include "core/memory/run_memory.h"
#include "core/run/run_controller.h"
#include "core/system/memory_budget.h"

#include <algorithm>
#include <stdexcept>

namespace loaderlab {
namespace {

// The fields the model reads (calibration.cpp, settingFor and costsFor), or that do not
// change what it predicts.
constexpr const char *kPredictableKeys[] = {
    "loader.batch_size",
    "loader.num_workers",
    "loader.prefetch_factor",
    "loader.strategy",
    "loader.persistent_workers",
    "loader.pin_memory",
    "loader.in_order",
    "loader.drop_last",
    "loader.shuffle",
    "loader.seed",
    "devices",
    "sync_devices",
    "consumer.sleep_per_batch_ms",
    "consumer.sleep_per_sample_ms",
    "warmup_batches",
};

} // namespace

std::string unpredictableAxisProblem(const std::string &key)
{
    for (const char *k : kPredictableKeys) {
        if (key == k)
            return {};
    }
    if (key.rfind("dataset", 0) == 0 || key == "engine" || key.rfind("consumer", 0) == 0)
        return "the model cannot predict " + key
               + ": it changes the costs themselves (record a run with each value and predict "
                 "from that)";
    return "the model cannot predict " + key
           + ": not one of the loader's settings, devices or "
             "the simulated step";
}

std::string runRefusal(const RunConfig &config)
{
    // RunService::start refuses what the engine cannot run.
    if (std::string why = engineProblem(config); !why.empty())
        return why;
    try {
        // RunController::start's checks: the loader's settings, the device count, then
        // the threads and memory the run needs.
        validateRun(config);
        checkRunMemory(config, memoryBudgetFromMegabytes(config.memoryBudgetMb));
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return {};
}

PredictedSweep predictSweep(const Calibration &calibration, const std::vector<SweepAxis> &axes,
                            int cores, int repeats)
{
    if (repeats < 1 || repeats > 1000)
        throw std::invalid_argument("repeats must be 1..1000, not " + std::to_string(repeats));
    for (const SweepAxis &axis : axes) {
        if (const std::string problem = unpredictableAxisProblem(axis.key); !problem.empty())
            throw std::invalid_argument(problem);
    }
    PredictedSweep out;
    SweepDefinition &d = out.definition;
    d.base = calibration.config;
    d.axes = axes;
    d.budget.kind = SweepBudget::Kind::Samples;
    d.budget.amount = static_cast<double>(std::max<std::int64_t>(1, calibration.measuredSamples));
    d.repeats = repeats;
    out.cells = expandSweep(d);
    std::map<std::int64_t, std::string> refusals; // by grid: the repeats share a config
    for (const SweepCell &cell : out.cells) {
        const auto [refusal, first] = refusals.try_emplace(cell.grid);
        if (first)
            refusal->second = runRefusal(cell.config);
        out.cannotRun.push_back(refusal->second);
        if (!refusal->second.empty()) {
            SweepRecord r = sweepRecordOf(cell, "failed");
            r.error = "cannot run: " + refusal->second;
            out.records.emplace(cell.order, std::move(r));
            out.predictions.emplace_back();
            continue;
        }
        ModelCosts costs = costsFor(calibration, cell.config);
        // Each repeat draws the recorded costs in another order.
        costs.seed += static_cast<std::uint64_t>(cell.repeat) * 0x9e3779b97f4a7c15ULL;
        const ModelSetting setting = settingFor(calibration, cell.config, cores);
        SweepRecord r;
        r.order = cell.order;
        r.grid = cell.grid;
        r.repeat = cell.repeat;
        r.values = cell.values;
        Prediction p;
        try {
            p = predictLoader(costs, setting);
            r.state = "finished";
            r.cellSeconds = p.endToEndSeconds;
            r.summary = toJson(p.summary);
        } catch (const std::invalid_argument &e) {
            r.state = "failed";
            r.error = e.what();
        }
        out.records.emplace(cell.order, std::move(r));
        out.predictions.push_back(std::move(p));
    }
    return out;
}

} // namespace loaderlab
