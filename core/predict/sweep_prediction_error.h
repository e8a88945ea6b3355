#pragma once

// Predicted beside measured for a recorded sweep: the loader model is calibrated from
// one measured cell (its per-batch trace, traces/cell-N.csv, and its config from the
// sweep's definition), predicts every cell of the grid, and each measured cell gets
// the error of its prediction, (predicted - measured) / measured. Cells that differ
// from the calibrated one in an axis the model cannot predict (the dataset, the
// engine, the model: unpredictableAxisProblem) are not predicted, with the reason.
// Only records of state "finished" count as measured: a failed cell, or one a sweep
// skipped because it was predicted instead of run, shows its prediction alone.

#include "core/predict/calibration.h"
#include "core/sweep/sweep.h"
#include "core/sweep/sweep_figures.h"
#include "core/sweep/sweep_records.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loaderlab {

// The figures of one cell: those of the figure table (core/sweep/sweep_figures.h), as
// SweepCellStats holds them.
struct SweepCellFigures
{
    double samplesPerSecond = 0.0;
    double endToEndSeconds = 0.0;
    double firstBatchMs = 0.0;
    double inputBoundShare = 0.0;
    double waitP95Ms = 0.0;

    double figure(SweepFigureId id) const;
    // By name; throws std::invalid_argument for a name the table does not know.
    double figure(const std::string &name) const;
};

struct SweepCellPrediction
{
    std::int64_t grid = 0;
    std::vector<nlohmann::json> values; // one per axis
    bool predicted = false;
    std::string problem; // why it was not predicted
    SweepCellFigures prediction;
    int waitPeriod = 1; // Prediction::dominantWaitPeriod
    int measuredRuns = 0;
    SweepCellFigures measured; // means over the finished repeats

    // (predicted - measured) / measured of a figure; NaN when the cell was not both
    // measured and predicted, or the measured figure is 0. Throws
    // std::invalid_argument for a name the figure table does not know.
    double error(const std::string &figure = "samples_per_sec") const;
};

struct SweepPrediction
{
    std::int64_t calibrationOrder = -1; // the record calibrated from
    std::int64_t calibrationGrid = -1;
    Calibration calibration;
    int cores = 0;                          // the cores predicted for
    std::vector<SweepCellPrediction> cells; // one per grid cell, in grid order

    // The median of |error| of a figure over the cells that have one; NaN when none.
    // Throws std::invalid_argument for an unknown figure, even without cells.
    double medianAbsoluteError(const std::string &figure = "samples_per_sec") const;
    int measuredAndPredicted() const;
};

// The cell a prediction is calibrated from when none is chosen: the first finished
// record in the sweep's run order that kept a trace; -1 when there is none.
std::int64_t defaultCalibrationOrder(const std::map<std::int64_t, SweepRecord> &records);

// Calibrates from the record's trace in `dir`, the config of its cell and the load
// it recorded (SweepRecord::machineLoad: the costs then count only the cores other
// programs left, as calibrateFromRun's do). The cores are `cores` when given, else
// those of the cell's recorded load, else (an older record) this machine's, said in
// the notes; a recorded load of another core count than `cores` is left out. Throws
// std::invalid_argument for a record that is not a finished cell of the sweep with a trace,
// std::runtime_error naming the trace file it cannot read or calibrate from.
Calibration calibrateFromSweepCell(const std::string &dir, const SweepDefinition &definition,
                                   const SweepRecord &record, int cores = 0);

// Calibrates from the record at `calibrationOrder` (-1: defaultCalibrationOrder) and
// predicts every grid cell on `cores` cores (0: this machine's), each with the amount
// of work its config gives (the sweep's budget). Throws std::invalid_argument when no
// record can be calibrated from (naming why), and what calibrateFromSweepCell throws.
SweepPrediction predictRecordedSweep(const std::string &dir, const SweepDefinition &definition,
                                     const std::map<std::int64_t, SweepRecord> &records,
                                     std::int64_t calibrationOrder = -1, int cores = 0);

// Sets each cell's measured figures from `records` (a sweep that has gone on since it
// was predicted), keeping the predictions: no cell is simulated again.
void remeasureSweepPrediction(SweepPrediction &prediction,
                              const std::map<std::int64_t, SweepRecord> &records);

} // namespace loaderlab
