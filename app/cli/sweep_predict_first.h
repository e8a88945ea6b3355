#pragma once

// `loaderlab sweep --predict-first`: the sweep run the predict-first way
// (core/predict/predict_first.h) with its progress on stderr (each cell as a sweep
// shows it, with what the model predicted for it, and a line per skipped cell saying
// why; how busy the machine was during the calibration run, and each measured cell
// whose load differed from it) and the sweep's table and recommendation on stdout.

#include "core/predict/predict_first.h"

#include <QCommandLineParser>

#include <string>

namespace loaderlab::cli {

// --predict-first and its options (--predict-margin), checked against the sweep
// before anything runs; false without it. Throws std::invalid_argument naming the
// option, or why the sweep cannot be run this way (predictFirstProblem).
bool predictFirstFromOptions(const QCommandLineParser &parser,
                             const loaderlab::SweepDefinition &definition,
                             const loaderlab::SweepShard &shard,
                             loaderlab::PredictFirstOptions &options);

// Runs it; returns the command's exit code (as `sweep`'s).
int runPredictFirstSweep(loaderlab::SweepRunner &runner,
                         const loaderlab::PredictFirstOptions &options, bool quiet,
                         const std::string &scalingKey);

} // namespace loaderlab::cli
