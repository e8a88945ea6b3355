#include "core/sweep/sweep.h"

#include "core/config/config_fields.h"
#include "core/config/run_config_json.h"
#include "core/system/regular_file.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace loaderlab {
namespace {

using nlohmann::json;

constexpr int kMaxRepeats = 1'000;
constexpr std::int64_t kMaxCells = 1'000'000;
// Slurm's own ceiling for array task ids (MaxArraySize is at most 4000001).
constexpr long kMaxSlurmTaskId = 4'000'000;

SweepBudget::Kind budgetKindFromName(const std::string &name)
{
    for (auto kind :
         {SweepBudget::Kind::Samples, SweepBudget::Kind::Batches, SweepBudget::Kind::Seconds}) {
        if (name == sweepBudgetKindName(kind))
            return kind;
    }
    throw std::invalid_argument("budget.kind: '" + name + "' is not samples, batches or seconds");
}

void checkBudget(const SweepBudget &budget)
{
    if (!(budget.amount > 0) || !std::isfinite(budget.amount) || budget.amount > 1e15)
        throw std::invalid_argument("budget: " + std::to_string(budget.amount) + " "
                                    + sweepBudgetKindName(budget.kind)
                                    + " is not a positive amount");
}

void applyBudget(RunConfig &config, const SweepBudget &budget)
{
    config.epochs = 0;
    config.maxSeconds = 0.0;
    config.maxBatches = 0;
    switch (budget.kind) {
    case SweepBudget::Kind::Samples:
        config.maxBatches = static_cast<std::int64_t>(
            std::ceil(budget.amount / static_cast<double>(std::max(config.loader.batchSize, 1))));
        break;
    case SweepBudget::Kind::Batches:
        config.maxBatches = static_cast<std::int64_t>(std::ceil(budget.amount));
        break;
    case SweepBudget::Kind::Seconds:
        config.maxSeconds = budget.amount;
        break;
    }
}

// FNV-1a, 64 bits: a stable fingerprint of the definition's canonical JSON.
std::string fnv1a(const std::string &text)
{
    std::uint64_t hash = 14695981039346656037ull;
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return hex;
}

} // namespace

std::int64_t sweepCellCount(const SweepDefinition &definition)
{
    std::int64_t cells = std::max(definition.repeats, 0);
    for (const auto &axis : definition.axes) {
        cells *= static_cast<std::int64_t>(axis.values.size());
        if (cells > kMaxCells)
            return kMaxCells + 1;
    }
    return cells;
}

void checkSweep(const SweepDefinition &definition)
{
    if (definition.repeats < 1 || definition.repeats > kMaxRepeats)
        throw std::invalid_argument("repeats: " + std::to_string(definition.repeats)
                                    + " is not between 1 and " + std::to_string(kMaxRepeats));
    checkBudget(definition.budget);
    for (std::size_t a = 0; a < definition.axes.size(); ++a) {
        const SweepAxis &axis = definition.axes[a];
        if (!findConfigField(axis.key))
            throw ConfigError(axis.key, "unknown key (docs/config.md lists them all)");
        if (axis.values.empty())
            throw ConfigError(axis.key, "the axis has no values");
        for (std::size_t b = 0; b < a; ++b) {
            if (definition.axes[b].key == axis.key)
                throw ConfigError(axis.key, "given as two axes");
        }
        RunConfig probe = definition.base;
        for (const json &value : axis.values)
            setConfigField(probe, axis.key, value); // throws ConfigError naming the key
    }
    if (sweepCellCount(definition) > kMaxCells)
        throw std::invalid_argument("the sweep has more than " + std::to_string(kMaxCells)
                                    + " cells");
}

std::vector<SweepCell> expandSweep(const SweepDefinition &definition)
{
    checkSweep(definition);
    const std::int64_t total = sweepCellCount(definition);
    const std::int64_t gridSize = total / definition.repeats;

    std::vector<SweepCell> cells;
    cells.reserve(static_cast<std::size_t>(total));
    for (int repeat = 0; repeat < definition.repeats; ++repeat) {
        for (std::int64_t grid = 0; grid < gridSize; ++grid) {
            SweepCell cell;
            cell.order = repeat * gridSize + grid;
            cell.grid = grid;
            cell.repeat = repeat;
            cell.config = definition.base;
            cell.values = sweepGridValues(definition, grid);
            for (std::size_t a = 0; a < definition.axes.size(); ++a)
                setConfigField(cell.config, definition.axes[a].key, cell.values[a]);
            applyBudget(cell.config, definition.budget);
            cells.push_back(std::move(cell));
        }
    }
    return cells;
}

SweepAxis parseSweepAxis(const std::string &text)
{
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw std::invalid_argument("--axis '" + text + "': expected KEY=v1,v2,...");
    SweepAxis axis;
    axis.key = text.substr(0, eq);
    if (!findConfigField(axis.key))
        throw ConfigError(axis.key, "unknown key (docs/config.md lists them all)");
    std::stringstream values(text.substr(eq + 1));
    std::string value;
    while (std::getline(values, value, ',')) {
        if (value.empty())
            throw ConfigError(axis.key, "an empty value in '" + text.substr(eq + 1) + "'");
        RunConfig probe;
        setConfigFieldFromText(probe, axis.key, value);
        axis.values.push_back(getConfigField(probe, axis.key));
    }
    return axis;
}

SweepShard parseSweepShard(const std::string &text)
{
    const auto slash = text.find('/');
    char *end = nullptr;
    SweepShard shard;
    if (slash != std::string::npos) {
        const long k = std::strtol(text.c_str(), &end, 10);
        const bool kOk = end == text.c_str() + slash;
        const long n = std::strtol(text.c_str() + slash + 1, &end, 10);
        if (kOk && *end == '\0' && n >= 1 && n <= kMaxShards && k >= 1 && k <= n) {
            shard.index = static_cast<int>(k - 1);
            shard.count = static_cast<int>(n);
            return shard;
        }
    }
    throw std::invalid_argument("--shard '" + text + "': expected K/N with 1 <= K <= N");
}

namespace {

// A Slurm variable as a whole number in [min, max]: digits only (no sign, no space,
// no hex), so "abc", "", "-1" and 4294967296 are refused instead of becoming 0, a
// negative count or a division by zero.
long slurmNumber(const char *name, const char *text, long min, long max)
{
    const std::string value = text;
    bool digits = !value.empty() && value.size() <= 9;
    for (const char c : value)
        digits = digits && c >= '0' && c <= '9';
    const long n = digits ? std::strtol(value.c_str(), nullptr, 10) : -1;
    if (!digits || n < min || n > max)
        throw std::invalid_argument(std::string(name) + "='" + value
                                    + "': expected a whole number from " + std::to_string(min)
                                    + " to " + std::to_string(max));
    return n;
}

} // namespace

bool sweepShardFromSlurm(SweepShard &shard)
{
    const char *id = std::getenv("SLURM_ARRAY_TASK_ID");
    const char *count = std::getenv("SLURM_ARRAY_TASK_COUNT");
    if (!id || !count)
        return false;
    const char *min = std::getenv("SLURM_ARRAY_TASK_MIN");
    const long n = slurmNumber("SLURM_ARRAY_TASK_COUNT", count, 1, kMaxShards);
    const long first = min ? slurmNumber("SLURM_ARRAY_TASK_MIN", min, 0, kMaxSlurmTaskId) : 0;
    const long k = slurmNumber("SLURM_ARRAY_TASK_ID", id, 0, kMaxSlurmTaskId) - first;
    if (k < 0 || k >= n)
        throw std::invalid_argument(
            std::string("SLURM_ARRAY_TASK_ID=") + id + " does not fit SLURM_ARRAY_TASK_COUNT="
            + count + (min ? std::string(" and SLURM_ARRAY_TASK_MIN=") + min : std::string())
            + " (submit the array as --array=0-" + std::to_string(n - 1) + ")");
    shard.index = static_cast<int>(k);
    shard.count = static_cast<int>(n);
    return true;
}

std::vector<json> sweepGridValues(const SweepDefinition &definition, std::int64_t grid)
{
    // Row-major: the last axis varies fastest (as expandSweep lists the cells).
    std::vector<json> values(definition.axes.size());
    for (std::size_t a = definition.axes.size(); a-- > 0;) {
        const auto n = static_cast<std::int64_t>(definition.axes[a].values.size());
        values[a] = definition.axes[a].values[static_cast<std::size_t>(grid % n)];
        grid /= n;
    }
    return values;
}

const char *sweepBudgetKindName(SweepBudget::Kind kind)
{
    switch (kind) {
    case SweepBudget::Kind::Samples:
        return "samples";
    case SweepBudget::Kind::Batches:
        return "batches";
    case SweepBudget::Kind::Seconds:
        return "seconds";
    }
    return "";
}

std::string sweepBudgetText(const SweepBudget &budget)
{
    char text[64];
    std::snprintf(text, sizeof text, "%g %s", budget.amount, sweepBudgetKindName(budget.kind));
    return text;
}

json toJson(const SweepDefinition &definition)
{
    json axes = json::array();
    for (const auto &axis : definition.axes)
        axes.push_back({{"key", axis.key}, {"values", axis.values}});
    return {{"base", toJson(definition.base)},
            {"axes", axes},
            {"budget",
             {{"kind", sweepBudgetKindName(definition.budget.kind)},
              {"amount", definition.budget.amount}}},
            {"repeats", definition.repeats}};
}

SweepDefinition sweepFromJson(const json &j)
{
    if (!j.is_object())
        throw std::invalid_argument("a sweep is a JSON object with base, axes, budget, repeats");
    SweepDefinition d;
    for (const auto &[key, value] : j.items()) {
        if (key == "base") {
            d.base = runConfigFromJson(value);
        } else if (key == "axes") {
            if (!value.is_array())
                throw std::invalid_argument("axes: expected a list of {key, values}");
            for (const auto &a : value) {
                if (!a.is_object() || !a.contains("key") || !a["key"].is_string()
                    || !a.contains("values") || !a["values"].is_array())
                    throw std::invalid_argument(
                        "axes: each axis is {\"key\": ..., \"values\": [...]}, not "
                        + describeJsonValue(a));
                SweepAxis axis{a["key"].get<std::string>(), {}};
                for (const auto &v : a["values"]) {
                    RunConfig probe;
                    setConfigField(probe, axis.key, v);
                    axis.values.push_back(getConfigField(probe, axis.key));
                }
                d.axes.push_back(std::move(axis));
            }
        } else if (key == "budget") {
            if (!value.is_object() || !value.contains("kind") || !value["kind"].is_string()
                || !value.contains("amount") || !value["amount"].is_number())
                throw std::invalid_argument("budget: expected {\"kind\": \"samples\"|\"batches\"|"
                                            "\"seconds\", \"amount\": number}");
            d.budget.kind = budgetKindFromName(value["kind"].get<std::string>());
            d.budget.amount = value["amount"].get<double>();
        } else if (key == "repeats") {
            if (!value.is_number_integer())
                throw std::invalid_argument("repeats: expected a whole number, not "
                                            + describeJsonValue(value));
            d.repeats = value.get<int>();
        } else {
            throw std::invalid_argument(key + ": unknown key (base, axes, budget, repeats)");
        }
    }
    checkSweep(d); // checks everything once, here, with the key named
    return d;
}

SweepDefinition loadSweep(const std::string &path)
{
    if (const std::string problem = regularFileProblem(path); !problem.empty())
        throw std::invalid_argument(path + ": cannot read sweep file: " + problem);
    std::ifstream in(path);
    if (!in)
        throw std::invalid_argument(path + ": cannot open sweep file");
    try {
        return sweepFromJson(parseConfigJson(in));
    } catch (const std::invalid_argument &e) {
        throw std::invalid_argument(path + ": " + e.what());
    }
}

std::string sweepFingerprint(const SweepDefinition &definition)
{
    return fnv1a(toJson(definition).dump());
}

std::string sweepValueText(const std::string &key, const json &value)
{
    const ConfigField *field = findConfigField(key);
    const std::string text = field ? configValueText(*field, value) : value.dump();
    if (key == "loader.num_workers")
        return text + (text == "1" ? " worker" : " workers");
    if (key == "loader.batch_size")
        return "batch " + text;
    if (key == "loader.prefetch_factor")
        return "prefetch " + text;
    return key + " " + text;
}

} // namespace loaderlab
