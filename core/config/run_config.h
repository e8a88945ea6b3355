#pragma once

// RunConfig: one run = a dataset, loader settings, a consumer and when to stop.
// Every field is described once in core/config/config_fields.h (key path, range, help).

#include "core/config/consumer_config.h"
#include "core/config/dataset_config.h"
#include "core/config/engine_config.h"
#include "core/config/loader_config.h"

#include <cstdint>
#include <string>

namespace loaderlab {

struct RunConfig
{
    EngineKind engine = EngineKind::LoaderLab;
    DatasetConfig dataset;
    LoaderConfig loader;
    ConsumerConfig consumer;
    int epochs = 1;              // 0: until stopped (or a limit below)
    std::int64_t maxBatches = 0; // 0: no limit
    double maxSeconds = 0.0;     // 0: no limit
    int warmupBatches = 5;
    // Replay (core/run/batch_replay.h): after this many batches the loader stops and the
    // step runs on those batches, kept in memory, for the rest of the run: the job's
    // speed with a loader that costs nothing. 0: off.
    std::int64_t replayBatches = 0;
    // Data-parallel ranks on this host (core/run/run_controller.h): each has its own
    // loader over a DistributedSampler-like shard, its own workers and consumer.
    int devices = 1;
    // Every step of every rank waits for all ranks, as DDP's gradient all-reduce does;
    // false: ranks run independently (inference).
    bool syncDevices = true;
    // With synchronised devices: the float32 gradient each rank all-reduces with the
    // others after every step (core/consumer/gradient_exchange.h), in MB (10^6 bytes);
    // 0: none, the ranks only wait for each other.
    double gradientMb = 0.0;
    // The collective library's backend for that exchange: "gloo" or "nccl".
    std::string commBackend = "gloo";
    // Set by `run --slurm-ranks`, never read from or written to a config: this process
    // is rank `launchRank` of `devices` rank processes another program started (Slurm's
    // srun), which meet at launchAddress:launchPort. -1: the engine starts its ranks.
    int launchRank = -1;
    std::string launchAddress;
    int launchPort = 0;
    // Host memory the run may plan to use (core/system/memory_budget.h); 0: the default
    // share of the machine's memory.
    std::int64_t memoryBudgetMb = 0;
};

} // namespace loaderlab
