#pragma once

// `run --slurm-ranks`: each task of a Slurm job step (srun -N NODES -n TASKS) runs one
// data-parallel rank of the PyTorch engine. The rank and the ranks come from Slurm's
// variables; the ranks meet at MASTER_ADDR:MASTER_PORT when set, else at the job's
// first node on port 29500 + SLURM_JOB_ID mod 1000. Each task writes its own run
// under rank names (core/io/rank_set.h), which File > Open run merges into one.

#include "core/config/run_config.h"
#include "core/io/summary_json.h"

#include <string>

namespace loaderlab::cli {

struct SlurmRank
{
    int rank = 0;
    int world = 1;
    std::string address;
    int port = 0;
    std::string host; // this task's node
};

// From this process's environment. Throws std::invalid_argument saying what is
// missing (not in a Slurm job step) or out of range.
SlurmRank slurmRankFromEnvironment();

// `config` as rank `rank.rank` of `rank.world` processes (RunConfig::launchRank).
// Throws std::invalid_argument for an engine other than the PyTorch engine.
void applySlurmRank(RunConfig &config, const SlurmRank &rank);

// "runs/r.csv" as rank 1's: "runs/r.rank1.csv" (the extension kept; none: added).
std::string rankOutputPath(const std::string &path, int rank, const std::string &extension);

// The summary's "probe" object for this rank.
ProbeInfo slurmProbeInfo(const SlurmRank &rank, std::int64_t startUnixNs);

} // namespace loaderlab::cli
