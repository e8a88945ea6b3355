#pragma once

// LoaderConfig: the DataLoader knobs, with PyTorch's names and defaults where
// PyTorch has them.

#include "core/config/enum_names.h"

#include <cstdint>
#include <optional>
#include <string>

namespace loaderlab {

// How work is split among workers.
enum class Strategy {
    // PyTorch: batch k goes whole to worker k mod W (the cause of the wait spikes
    // every W batches and of a first batch that costs a whole batch's load time).
    PerWorkerBatch,
    // tf.data / DALI style: all workers build the oldest outstanding batch together.
    SampleParallel,
};

inline constexpr EnumNames<Strategy, 2> kStrategyNames{{
    {Strategy::PerWorkerBatch, "per-worker"},
    {Strategy::SampleParallel, "sample-parallel"},
}};

// What happens to a sample that cannot be read or decoded.
enum class BadSamplePolicy {
    Skip, // drop it from its batch, record file and reason, count it
    Fail, // stop the run with the error
};

inline constexpr EnumNames<BadSamplePolicy, 2> kBadSamplePolicyNames{{
    {BadSamplePolicy::Skip, "skip"},
    {BadSamplePolicy::Fail, "fail"},
}};

struct LoaderConfig
{
    int batchSize = 32;
    int numWorkers = 2;     // 0: the consumer thread loads each batch itself
    int prefetchFactor = 2; // outstanding batches per worker
    bool shuffle = false;
    std::uint64_t seed = 0;
    bool dropLast = false;
    bool persistentWorkers = false;
    bool pinMemory = false;
    bool inOrder = true;
    Strategy strategy = Strategy::PerWorkerBatch;
    BadSamplePolicy badSamples = BadSamplePolicy::Skip;

    bool operator==(const LoaderConfig &) const = default;
};

// The names in kStrategyNames and kBadSamplePolicyNames; each string lives for the
// program (a literal).
const char *strategyName(Strategy strategy);
std::optional<Strategy> strategyFromName(const std::string &name);
const char *badSamplePolicyName(BadSamplePolicy policy);
std::optional<BadSamplePolicy> badSamplePolicyFromName(const std::string &name);

// Throws std::invalid_argument naming the first setting out of the range its config
// field allows (core/config/config_fields.h), or a worker count over the thread limit.
void validate(const LoaderConfig &config);

} // namespace loaderlab
