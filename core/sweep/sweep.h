#pragma once

// A sweep: a grid of runs that answers "which setting is best" by measuring every
// combination. Base config + axes (any config field by its key path, each with a
// list of values) + a budget per cell + repeats. Cells run one after another through
// the run service (core/sweep/sweep_runner.h); repeats go round the whole grid
// (repeat 0 of every cell, then repeat 1, ...) so a slow drift of the machine does
// not favour one cell. The order is fixed by the definition, and so is each shard
// (`--shard K/N`: the cells whose position in that order is K modulo N).

#include "core/config/run_config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace loaderlab {

struct SweepAxis
{
    std::string key;                    // a config field's key path, "loader.num_workers"
    std::vector<nlohmann::json> values; // as the field stores them (getConfigField)
};

// How much each cell runs. Samples (the default, as the research notes compare
// cells: the same amount of data each, 10 x 1024 samples) becomes a batch limit of
// ceil(samples / batch size); the run goes over epoch boundaries as needed.
struct SweepBudget
{
    enum class Kind { Samples, Batches, Seconds };
    Kind kind = Kind::Samples;
    double amount = 10'240;
};

struct SweepDefinition
{
    RunConfig base;
    std::vector<SweepAxis> axes;
    SweepBudget budget;
    int repeats = 1;
};

struct SweepCell
{
    std::int64_t order = 0; // position in the sweep's run order
    std::int64_t grid = 0;  // the combination of axis values (row-major over the axes)
    int repeat = 0;
    std::vector<nlohmann::json> values; // one per axis
    RunConfig config;                   // base + values + budget
};

// The most shards (--shard K/N, SLURM_ARRAY_TASK_COUNT) a sweep is split into.
inline constexpr int kMaxShards = 100'000;

struct SweepShard
{
    int index = 0; // 0-based
    int count = 1;
    bool contains(std::int64_t order) const { return order % count == index; }
};

// Checks the definition (every key a config field, every value valid for it, at
// least one value per axis, repeats 1..1000) and lists its cells in run order.
// Throws ConfigError naming the key, or std::invalid_argument.
std::vector<SweepCell> expandSweep(const SweepDefinition &definition);
// The same checks without listing the cells.
void checkSweep(const SweepDefinition &definition);
std::int64_t sweepCellCount(const SweepDefinition &definition);
// The axis values of the combination `grid` (0 <= grid < cells / repeats), as
// expandSweep gives them, without building the cells' configs.
std::vector<nlohmann::json> sweepGridValues(const SweepDefinition &definition, std::int64_t grid);

// "KEY=v1,v2,..." as given to --axis; values parsed by the field's type.
SweepAxis parseSweepAxis(const std::string &text);
// "K/N" with 1 <= K <= N (as people count); throws std::invalid_argument.
SweepShard parseSweepShard(const std::string &text);
// From SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT (and SLURM_ARRAY_TASK_MIN);
// false when they are not set. Each is digits only: the count 1..kMaxShards, the
// id and the minimum 0..4000000, and id - minimum below the count; anything else
// throws std::invalid_argument naming the variable.
bool sweepShardFromSlurm(SweepShard &shard);

std::string sweepBudgetText(const SweepBudget &budget);  // "10240 samples", "30 s"
const char *sweepBudgetKindName(SweepBudget::Kind kind); // "samples", "batches", "seconds"

nlohmann::json toJson(const SweepDefinition &definition);
// Throws ConfigError / std::invalid_argument naming the key.
SweepDefinition sweepFromJson(const nlohmann::json &json);
// Reads a sweep JSON file; throws std::invalid_argument naming the file.
SweepDefinition loadSweep(const std::string &path);
// Identifies the definition: results of another sweep are refused (sweep_results.h).
std::string sweepFingerprint(const SweepDefinition &definition);

// "4 workers", "batch 128", "consumer.model.name resnet50": an axis value as a
// recommendation or table shows it.
std::string sweepValueText(const std::string &key, const nlohmann::json &value);

} // namespace loaderlab
