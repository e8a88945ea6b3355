#pragma once

// A sweep's records and the files that hold them, read as untrusted input: a results
// folder can be edited by hand, copied half, or come from another machine. Every
// file is opened only if it is a regular file (a FIFO would block for ever), its
// size and each line's length are bounded, JSON nesting is bounded, and every record
// is checked against the sweep's own grid before anything uses it: its order within
// the sweep, its grid position, repeat and axis values those of that order, its
// figures numbers, its trace the name the sweep writes for that order. A bad record
// is an error naming the file and the line, never skipped and never a crash. The
// limits are documented in docs/limits.md, "Sweep results folders".

#include "core/sweep/sweep.h"
#include "core/system/cpu_load.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace loaderlab {

// Longest line of a cells*.jsonl (a record is a few kB; its error text is bounded).
inline constexpr std::size_t kMaxSweepLineBytes = std::size_t{1} << 20;
// All cells*.jsonl files of one folder together.
inline constexpr std::int64_t kMaxSweepCellsBytes = std::int64_t{256} << 20;
// sweep.json.
inline constexpr std::int64_t kMaxSweepDefinitionBytes = std::int64_t{16} << 20;

struct SweepRecord
{
    std::int64_t order = 0;
    std::int64_t grid = 0;
    int repeat = 0;
    std::vector<nlohmann::json> values; // one per axis
    // "finished", "failed", or "skipped": not run, because `sweep --predict-first`
    // found the model's prediction for it slower than a measured cell even with the
    // model's error (core/predict/predict_first.h). A skipped cell is neither a result
    // nor a failure: the analysis leaves it out of the recommendation, and resuming
    // runs it only when asked (SweepRunner::Options::runSkipped).
    std::string state;
    std::string error;        // why it failed
    double cellSeconds = 0.0; // the cell's wall time, set-up included; 0 if skipped
    nlohmann::json summary;   // the run's summary (toJson(RunSummary)); null unless finished
    std::string trace;        // sweepTraceName(order); empty if none
    // What the loader model predicted for the cell (toJson(RunSummary) of the
    // prediction), kept by `sweep --predict-first` for the cells it ran and those it
    // skipped; null when none.
    nlohmann::json predicted;
    // How busy the machine was while a finished cell ran (its run's report's, written
    // as "machine_load", the run summary's JSON); unknown in a record written before
    // cells recorded it, and in a failed or skipped one.
    MachineLoad machineLoad;

    bool finished() const { return state == "finished"; }
    bool failed() const { return state == "failed"; }
    bool skipped() const { return state == "skipped"; }
    // Figures read from `summary`, 0 when absent or not a number.
    double endToEndSeconds() const;  // run start to last step end, first batch included
    double samplesPerSecond() const; // mean after warm-up
    double figure(const std::string &name) const;
    // The same figure of `predicted`, 0 when absent or not a number.
    double predictedFigure(const std::string &name) const;
};

// A record of `cell` (its order, grid, repeat and values) in `state`, the rest empty.
SweepRecord sweepRecordOf(const SweepCell &cell, std::string state = {});

nlohmann::json toJson(const SweepRecord &record);
// Checks every field's type and range (not the grid: checkSweepRecord). Throws
// std::invalid_argument with the reason.
SweepRecord sweepRecordFromJson(const nlohmann::json &json);
// Throws std::invalid_argument when `record` is not a cell of `definition`: its
// order outside the sweep, or its grid, repeat or values not those of its order (a
// line of another sweep).
void checkSweepRecord(const SweepRecord &record, const SweepDefinition &definition);

// "traces/cell-000012.csv": where a cell's trace is, relative to the folder. The
// only trace name a record may hold.
std::string sweepTraceName(std::int64_t order);

// Reads the records of one cells file, each checked against `definition`, in file
// order. A last line without its newline (a write cut short by a kill) is ignored.
// `budget` is what the folder's cells files may still hold (kMaxSweepCellsBytes in
// all); it is reduced by this file's size. Returns the bytes up to the end of the
// last whole line. Throws std::invalid_argument naming the file (and the line).
std::int64_t readSweepCellsFile(const std::string &path, const SweepDefinition &definition,
                                std::int64_t &budget,
                                const std::function<void(SweepRecord &&)> &onRecord);

// sweep.json: the definition with the format name and fingerprint.
nlohmann::json sweepDefinitionFileJson(const SweepDefinition &definition);
// Reads a sweep.json. Throws std::invalid_argument naming the file.
SweepDefinition readSweepDefinitionFile(const std::string &path);

} // namespace loaderlab
