#pragma once

// SweepResults: a sweep's results folder, written so that an interrupted sweep
// (Ctrl-C, a crash, kill -9) loses at most the cell that was running:
//   sweep.json                  the definition and its fingerprint
//   cells.jsonl                 one JSON line per ended cell, appended with one
//   cells-K-of-N.jsonl          write() and fsync'd (a shard writes its own file)
//   traces/cell-000012.csv      the per-batch trace of the cell at order 12
//   sweep.lock, cells-K-of-N.lock  held while a writer is at work (sweep_lock.h)
// A line cut short by a kill is ignored when read and cut off before the next
// append. A folder holding another sweep's results is refused with the reason, and
// so is any record that is not one of this sweep's cells (sweep_records.h).

#include "core/stats/run_summary.h"
#include "core/sweep/sweep.h"
#include "core/sweep/sweep_lock.h"
#include "core/sweep/sweep_records.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loaderlab {

class SweepResults
{
public:
    // Opens `dir` (created if missing) for `definition` and locks it for writing
    // (SweepFolderLock) until destroyed. Throws std::invalid_argument naming the
    // folder and what differs when it holds another sweep's results, naming the
    // holder when another process writes there, naming the file and line of a bad
    // record, or why the folder cannot be written (checked before anything runs).
    SweepResults(std::string dir, const SweepDefinition &definition, SweepShard shard = {});

    const std::string &dir() const { return m_dir; }
    // The latest record of each cell, from every cells*.jsonl in the folder.
    const std::map<std::int64_t, SweepRecord> &records() const { return m_records; }
    bool finished(std::int64_t order) const;
    bool recorded(std::int64_t order) const { return m_records.count(order) > 0; }
    // Where the cell's trace goes (absolute), and its name relative to the folder.
    std::string tracePath(std::int64_t order) const;
    static std::string traceName(std::int64_t order) { return sweepTraceName(order); }
    // Appends one line and syncs it. Throws std::runtime_error naming the file.
    void append(const SweepRecord &record);

private:
    std::string m_dir;
    SweepFolderLock m_lock;
    std::string m_cellsFile;
    std::map<std::int64_t, SweepRecord> m_records;
};

// Reads every record of a results folder (all cells*.jsonl), the latest per cell,
// and its definition, without a lock. Throws std::invalid_argument naming the
// folder, or the file and line of a record that is not one of the sweep's cells.
std::map<std::int64_t, SweepRecord> readSweepRecords(const std::string &dir,
                                                     SweepDefinition *definition = nullptr);

// Merges the folders of one sweep's shards into `out` (sweep.json, cells.jsonl,
// traces/), holding `out`'s lock; refuses folders of different sweeps, and an `out`
// that is neither new, nor empty, nor one of `dirs` (its results would be
// replaced). Returns the number of cells. (sweep_merge.cpp)
std::int64_t mergeSweepResults(const std::string &out, const std::vector<std::string> &dirs);

// Why `path` must not be written by anything but the sweep in `dir`: it is the
// folder, one of the files the sweep reads or writes there (sweep.json, cells*.jsonl,
// the lock files, traces/..., Slurm's slurm-*.out logs; by name, also when they do
// not exist yet), or the same file (device and inode) as any file in the folder.
// Empty when it is none of them.
std::string sweepFolderFileProblem(const std::string &dir, const std::string &path);

// Why `a` and `b` are not the same sweep, in a few words; empty if they are.
std::string sweepDifference(const SweepDefinition &a, const SweepDefinition &b);

} // namespace loaderlab
