#pragma once

// A sweep predicted instead of run: every cell of a grid over a calibrated run's
// config (calibration.h) goes through the loader model, and comes out as the record
// a sweep writes for a cell it ran, so the sweep's analysis (the best cell, the
// recommendation, speedup and efficiency) and its table apply unchanged. Every cell
// gets the calibrated run's amount of data (a samples budget of what it delivered).
// A cell `loaderlab run` would refuse (runRefusal) is not simulated: its record is a
// failure, "cannot run: <reason>", so no recommendation or speedup counts it.

#include "core/predict/calibration.h"
#include "core/sweep/sweep_records.h"

#include <map>
#include <string>
#include <vector>

namespace loaderlab {

struct PredictedSweep
{
    SweepDefinition definition;
    std::vector<SweepCell> cells;
    std::vector<Prediction> predictions; // one per cell, in cell order
    // One per cell, in cell order: why `loaderlab run` would refuse it (runRefusal);
    // "" for a cell that can run.
    std::vector<std::string> cannotRun;
    std::map<std::int64_t, SweepRecord> records;
};

// Why `config` cannot run on this machine, or "" when it can: what `loaderlab run`
// refuses before it starts, by the checks the run itself makes: its engine cannot run
// it (engineProblem, core/engine/engine.h: the PyTorch engine has no sample-parallel
// strategy and runs one device), a loader setting or the device count outside its
// config field's range, more threads than this machine allows, or a host memory
// estimate over the memory budget (checkRunMemory, core/memory/run_memory.h, with the
// config's memory_budget_mb or this machine's default). The memory estimate is
// counted for either engine: PyTorch's DataLoader holds the same batches in flight,
// though its runs are not refused by it before they start.
std::string runRefusal(const RunConfig &config);

// Why the model cannot predict an axis over `key`, or "" when it can: it predicts the
// loader's settings, the devices and the simulated step; the dataset, the model, the
// engine and the like change the costs themselves, which only a run can measure.
std::string unpredictableAxisProblem(const std::string &key);

// Predicts every cell of `axes` over the calibrated run's config on `cores` cores
// (0: the run's), `repeats` times each, every repeat drawing the recorded costs in
// another order (the spread over the repeats is the model's own, not its error). With
// no axes, the one cell is the run's own setting. A cell that cannot run
// (runRefusal) is marked, not predicted. Throws std::invalid_argument for an axis the
// model cannot predict (naming it and why), a value the config field refuses, or
// repeats outside 1..1000.
PredictedSweep predictSweep(const Calibration &calibration, const std::vector<SweepAxis> &axes,
                            int cores = 0, int repeats = 1);

} // namespace loaderlab
