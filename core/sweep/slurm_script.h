#pragma once

// The sbatch scripts of LoaderLab's Slurm job arrays. A sweep's: one task per shard,
// every task resuming the same results folder (which must be on storage all nodes
// share), each writing its own cells-K-of-N.jsonl. Slurm schedules; LoaderLab only
// writes the script. `--exclusive` keeps two cells from running on one node at once,
// which would skew both.

#include <cstdint>
#include <string>
#include <vector>

namespace loaderlab {

struct SlurmScriptOptions
{
    std::string loaderlab;  // absolute path of the binary the tasks run
    std::string resultsDir; // absolute; holds sweep.json already
    std::string scriptPath; // where the script goes, for its comment
    int tasks = 1;          // array size: the shard count
    std::int64_t cells = 0; // of the sweep, for the comment and the check
    std::string jobName = "loaderlab-sweep";
    std::vector<std::string> extra; // further #SBATCH options, "--partition=gpu"
};

// Any LoaderLab job array (a sweep's, preprocess's shards): its tasks are 0..tasks-1.
struct SlurmJobArray
{
    std::string comment; // "# ..." lines, each ending in a line break
    std::string jobName;
    int tasks = 1;
    std::string logDir; // absolute: slurm-%A_%a.out go there
    bool exclusive = false;
    int cpusPerTask = 0;            // 0: no such line
    std::vector<std::string> extra; // further #SBATCH options
    std::string command;            // what the task execs, quoted for bash
};

// Throws std::invalid_argument when an option cannot go into the script.
std::string slurmJobArrayScript(const SlurmJobArray &array);

// The default array size: one task per cell, at most 8.
int defaultSlurmTasks(std::int64_t cells);

// Throws std::invalid_argument when an option cannot go into the script (a line
// break, a task count below 1 or above the cell count, a relative path).
std::string slurmArrayScript(const SlurmScriptOptions &options);

// The mark the second line of each of LoaderLab's scripts starts with.
inline constexpr const char *kSweepScriptMark = "# A LoaderLab sweep as a Slurm job array";
inline constexpr const char *kPreprocessScriptMark =
    "# A LoaderLab preprocess as a Slurm job array";

// Why writing a script of `mark` to `path` would replace a file that is not such a
// script (a user's file, a script of another kind); empty when `path` is missing or
// one. A script is rewritten only over its own kind.
std::string slurmScriptPathProblem(const std::string &path, const char *mark);

// `text` in single quotes for bash, inner quotes escaped.
std::string shellQuote(const std::string &text);

} // namespace loaderlab
