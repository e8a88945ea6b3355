#pragma once

// What a sweep's results say: figures per cell over its repeats, the best cell of
// each model/dataset by end-to-end time and by throughput with a recommendation
// that says whether the margin to the runner-up is larger than the run-to-run
// spread, and speedup / efficiency along a numeric axis (throughput_v /
// throughput_first, and that / (v / first)), as the research notes report them.

#include "core/sweep/sweep.h"
#include "core/sweep/sweep_figures.h"
#include "core/sweep/sweep_results.h"

#include <map>
#include <string>
#include <vector>

namespace loaderlab {

// One combination of axis values, over its repeats.
struct SweepCellStats
{
    std::int64_t grid = 0;
    std::vector<nlohmann::json> values;
    int runs = 0;                                                    // finished repeats
    int failures = 0;                                                // failed repeats
    std::string error;                                               // the first failure's reason
    double endToEndMean = 0.0, endToEndMin = 0.0, endToEndMax = 0.0; // s
    double throughputMean = 0.0, throughputMin = 0.0, throughputMax = 0.0; // samples/s
    double firstBatchMs = 0.0;                                             // means over the repeats
    double inputBoundShare = 0.0;
    double waitP95Ms = 0.0;
    // (max - min) / mean of the end-to-end time; 0 with fewer than 2 runs.
    double spread() const;
    // A figure of the table (core/sweep/sweep_figures.h): the mean over the repeats.
    double figure(SweepFigureId id) const;
    // By name; throws std::invalid_argument for a name the table does not know.
    double figure(const std::string &name) const;
};

struct SweepRecommendation
{
    std::string group; // "consumer.model.name resnet50, dataset.kind folder"; "" if one
    const SweepCellStats *best = nullptr; // by end-to-end time
    const SweepCellStats *runnerUp = nullptr;
    const SweepCellStats *fastest = nullptr; // by throughput
    double marginPercent = 0.0;              // runner-up slower than the best by this much
    double noisePercent = 0.0;               // the larger spread of the two; 0 if unknown
    bool noiseKnown = false;                 // both had 2 or more runs
    bool withinNoise = false;
    // Every cell like the best but with more workers is no faster beyond the noise
    // (the sentence's "more workers add nothing past W").
    bool moreWorkersAddNothing = false;
    std::string sentence;
};

struct SweepAnalysis
{
    std::vector<std::string> keys;     // the axes
    std::vector<SweepCellStats> cells; // in grid order; cells without a record are left out
    std::vector<SweepRecommendation> recommendations;
    // Cells `sweep --predict-first` skipped (none of their repeats ran), in grid order,
    // with the figures the loader model predicted for them and `runs` 0: not results,
    // so in neither `cells` nor a recommendation.
    std::vector<SweepCellStats> skipped;
};

// Axes that say what runs (the engine, dataset.*, the model, the simulated step)
// group the cells; the others are the settings a recommendation chooses. With the
// engine as an axis each engine gets its own recommendation: the best settings for
// PyTorch's DataLoader are not LoaderLab's.
bool isSweepGroupAxis(const std::string &key);

SweepAnalysis analyzeSweep(const SweepDefinition &definition,
                           const std::map<std::int64_t, SweepRecord> &records);

struct ScalingPoint
{
    nlohmann::json value;
    double throughput = 0.0;
    double speedup = 0.0;
    double efficiency = 0.0; // NaN where the axis value is not a positive number
};

struct ScalingLine
{
    std::string label;                  // the other axes' values, "batch 128"
    std::vector<nlohmann::json> values; // a cell's on the line: the other axes' name it
    nlohmann::json baseValue;           // speedup 1: the first positive axis value, else the first
    std::vector<ScalingPoint> points;
};

// Speedup = throughput_v / throughput_base, efficiency = speedup / (v / base).
// Throws std::invalid_argument when `key` is not an axis of the sweep.
std::vector<ScalingLine> scalingAlong(const SweepAnalysis &analysis, const std::string &key);

} // namespace loaderlab
