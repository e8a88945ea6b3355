#pragma once

// `sweep --predict-first`: a sweep that runs only the cells the loader model cannot
// rule out. It runs one cell first, the one closest to the base config (the setting
// the user has now), calibrates the model from that run in memory (its trace and
// report, calibration.h), and predicts every cell's end-to-end time. Then it runs the
// cells in the order of their predicted time, best first, and after each one
// re-weighs the rest by the rule of predict_first_selection.h: a cell is skipped once
// its predicted time, less the model's error, is still longer than the best measured
// time of its group. Every cell it runs is recorded as a sweep records it, with what
// the model predicted for it (SweepRecord::predicted); every cell it skips is recorded
// with state "skipped" and its prediction, so the results folder says which cells
// were not run and what the model expected of them. A cell `loaderlab run` would
// refuse (runRefusal, predicted_sweep.h) gets no prediction: it is run like a cell the
// model cannot predict, last, fails with the run's reason, and is never recommended.
// With repeats, the repeats of the cells it ran follow, round by round. The model is
// calibrated for the calibration cell's machine as it was (its recorded load,
// busy_machine.h); the progress says how busy that was, and flags each measured cell
// whose load differed from it (predictFirstLoadNote).
//
// Running it again on the same folder resumes: the calibration comes from the kept
// run of the calibrated cell (its trace and summary JSON, traces/cell-NNNNNN.{csv,json})
// when there is one, the cells measured before count, and cells skipped before are
// weighed again. A plain resume (SweepRunner::run) leaves skipped cells alone unless
// asked to run them (SweepRunner::Options::runSkipped).

#include "core/predict/calibration.h"
#include "core/predict/predict_first_selection.h"
#include "core/sweep/sweep_runner.h"

#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace loaderlab {

struct PredictFirstOptions
{
    double margin = kDefaultPredictMargin; // the least error the model is given
};

struct PredictFirstProgress
{
    enum class Event {
        Starting, // `cell` starts
        Ended,    // `cell` ended and is recorded (`record`)
        Skipped,  // `cell` (repeat 0 of a skipped combination) is recorded as skipped
        // The model is calibrated from the kept run of `cell`, measured before (a
        // resume): `note` and `loadNote` say so; nothing ran.
        Calibrated,
    };
    Event event = Event::Starting;
    int done = 0;  // cells of the sweep with a record now (found, ran or skipped)
    int total = 0; // cells of the sweep
    const SweepCell *cell = nullptr;
    const SweepRecord *record = nullptr; // Ended, Skipped
    bool calibration = false;            // the cell the model is calibrated from
    double predictedSeconds = -1.0;      // end to end as predicted; < 0: no prediction
    double error = 0.0;                  // Ended, Skipped: the model's error now
    // Ended calibration: what the model was calibrated with, or why it could not be.
    std::string note;
    // Ended, Calibrated: how busy the machine was, when worth saying
    // (predictFirstLoadNote): the calibration cell's busy machine, or another cell's
    // load that differed from it.
    std::string loadNote;
    const PredictFirstSkip *skip = nullptr; // Skipped: why
    const SweepCell *best = nullptr;        // Skipped: the measured best it lost to
};

struct PredictFirstOutcome
{
    int ran = 0;
    int failed = 0;
    int found = 0;   // recorded in the folder before, not run again
    int skipped = 0; // recorded as skipped (this time or before)
    bool stopped = false;
    std::int64_t calibrationOrder = -1; // the cell the model was calibrated from; -1: none
    double error = 0.0;                 // the model's error at the end
    // The calibration run's steady per-step data waits, in seconds (Calibration::
    // stepWaitSeconds): what the stragglers of more ranks are figured from.
    std::vector<double> stepWaitSeconds;
};

// Other programs (and the hypervisor's steal) taking more than this many cores more,
// or fewer, while a cell ran than while the calibration cell did make its prediction
// and its measurement not like for like: the model predicted the calibration's load.
inline constexpr double kLoadDifferenceCores = 0.25;

// What `sweep --predict-first` says of the machine's load while a cell ran (`cell`,
// its record's SweepRecord::machineLoad). For the calibration cell
// (`calibrationCell`), the busy machine the model was calibrated for
// (busyCalibrationLine); for another cell, a line when its load differed from the
// calibration's by more than kLoadDifferenceCores. Empty otherwise, and when either
// load is unknown.
std::string predictFirstLoadNote(const Calibration &calibration, const MachineLoad &cell,
                                 bool calibrationCell);

// Why `definition` cannot run with --predict-first, or "": a shard of it (the choice
// needs every cell), a budget of seconds (every cell's end-to-end time would be the
// budget), or an axis the model cannot predict (unpredictableAxisProblem).
std::string predictFirstProblem(const SweepDefinition &definition, const SweepShard &shard);

// Runs the sweep of `runner` the predict-first way (above). `onProgress` is called on
// the calling thread. Throws std::invalid_argument for what predictFirstProblem names,
// and what SweepRunner::runCell throws (a record or trace that cannot be written).
PredictFirstOutcome
runPredictFirst(SweepRunner &runner, const PredictFirstOptions &options, std::stop_token stop,
                const std::function<void(const PredictFirstProgress &)> &onProgress = {});

// The cells of the grid (repeat 0, by grid position) in the order they are tried as
// the one to calibrate from: by how far their axis values are from the base config's
// (0 for the base's value, |v - b| / max(|v|, |b|) for another number, 1 for another
// text or choice, summed over the axes), the first in grid order on a tie.
std::vector<std::int64_t> predictFirstCalibrationOrder(const SweepDefinition &definition);

} // namespace loaderlab
