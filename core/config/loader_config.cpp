#include "core/config/loader_config.h"

#include "core/config/config_fields.h"
#include "core/system/memory_budget.h"

#include <limits>
#include <stdexcept>

namespace loaderlab {
namespace {

// Refuses a value outside the range of the config field `key` (the config table is
// the one place a range is written): "number of workers must be 0..1024 (got 2000)",
// "batch size must be at least 1 (got 0)" when only the type bounds the field above.
void checkRange(const char *what, std::string_view key, int value)
{
    const ConfigField &field = configField(key);
    if (configFieldAllows(field, value))
        return;
    const std::string range = field.max >= std::numeric_limits<int>::max()
                                  ? "at least " + std::to_string(static_cast<long long>(field.min))
                                  : configFieldRange(field);
    throw std::invalid_argument(std::string(what) + " must be " + range + " (got "
                                + std::to_string(value) + ")");
}

} // namespace

// The tables' names are literals, so their data is NUL-terminated.
const char *strategyName(Strategy strategy)
{
    return enumName(kStrategyNames, strategy).data();
}

std::optional<Strategy> strategyFromName(const std::string &name)
{
    return enumFromName(kStrategyNames, name);
}

const char *badSamplePolicyName(BadSamplePolicy policy)
{
    return enumName(kBadSamplePolicyNames, policy).data();
}

std::optional<BadSamplePolicy> badSamplePolicyFromName(const std::string &name)
{
    return enumFromName(kBadSamplePolicyNames, name);
}

void validate(const LoaderConfig &config)
{
    checkRange("batch size", "loader.batch_size", config.batchSize);
    checkRange("number of workers", "loader.num_workers", config.numWorkers);
    // The loader's own threads (workers, the pin thread) and the thread that takes
    // the batches; the whole run's count is checked by checkRunThreads.
    const SystemLimit &threads = threadLimit();
    const std::int64_t loaderThreads = std::int64_t{config.numWorkers} + (config.pinMemory ? 1 : 0)
                                       + 1;
    if (loaderThreads > threads.value)
        throw std::invalid_argument("number of workers " + std::to_string(config.numWorkers)
                                    + ": the loader would start " + std::to_string(loaderThreads)
                                    + " threads, over the limit of " + std::to_string(threads.value)
                                    + " (" + threads.source + ")");
    checkRange("prefetch factor", "loader.prefetch_factor", config.prefetchFactor);
}

} // namespace loaderlab
