#pragma once

// SweepResults: a sweep's results folder, written so that an interrupted sweep
// (Ctrl-C, a crash, kill -9) loses at most the cell that was running:
//   sweep.json                  the definition and its fingerprint
//   cells.jsonl                 one JSON line per ended cell, appended with one
//   cells-K-of-N.jsonl          write() and fsync'd (a shard writes its own file)
//   traces/cell-000012.csv      the per-batch trace of the cell at order 12
// A line cut short by a kill is ignored when read and cut off before the next
// append. A folder holding another sweep's results is refused with the reason.

#include "core/stats/run_summary.h"
#include "core/sweep/sweep.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loaderlab {

struct SweepRecord
{
    std::int64_t order = 0;
    std::int64_t grid = 0;
    int repeat = 0;
    std::vector<nlohmann::json> values; // one per axis
    std::string state;                  // "finished" or "failed"
    std::string error;                  // why it failed
    double cellSeconds = 0.0;           // the cell's wall time, set-up included
    nlohmann::json summary;             // the run's summary (toJson(RunSummary)); null if failed
    std::string trace;                  // relative to the folder; empty if none

    bool failed() const { return state != "finished"; }
    // Figures read from `summary`, 0 when absent.
    double endToEndSeconds() const;  // run start to last step end, first batch included
    double samplesPerSecond() const; // mean after warm-up
    double figure(const std::string &name) const;
};

nlohmann::json toJson(const SweepRecord &record);
SweepRecord sweepRecordFromJson(const nlohmann::json &json);

class SweepResults
{
public:
    // Opens `dir` (created if missing) for `definition`. Throws std::invalid_argument
    // naming the folder and what differs when it holds another sweep's results.
    SweepResults(std::string dir, const SweepDefinition &definition, SweepShard shard = {});

    const std::string &dir() const { return m_dir; }
    // The latest record of each cell, from every cells*.jsonl in the folder.
    const std::map<std::int64_t, SweepRecord> &records() const { return m_records; }
    bool finished(std::int64_t order) const;
    bool recorded(std::int64_t order) const { return m_records.count(order) > 0; }
    // Where the cell's trace goes (absolute), and its name relative to the folder.
    std::string tracePath(std::int64_t order) const;
    static std::string traceName(std::int64_t order);
    // Appends one line and syncs it. Throws std::runtime_error naming the file.
    void append(const SweepRecord &record);

private:
    std::string m_dir;
    std::string m_cellsFile;
    std::map<std::int64_t, SweepRecord> m_records;
};

// Reads every record of a results folder (all cells*.jsonl), the latest per cell,
// and its definition. Throws std::invalid_argument naming the folder.
std::map<std::int64_t, SweepRecord> readSweepRecords(const std::string &dir,
                                                     SweepDefinition *definition = nullptr);

// Merges the folders of one sweep's shards into `out` (sweep.json, cells.jsonl,
// traces/); refuses folders of different sweeps. Returns the number of cells.
std::int64_t mergeSweepResults(const std::string &out, const std::vector<std::string> &dirs);

// Why `a` and `b` are not the same sweep, in a few words; empty if they are.
std::string sweepDifference(const SweepDefinition &a, const SweepDefinition &b);

} // namespace loaderlab
