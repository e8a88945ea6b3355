#pragma once

// SweepRunner: runs the cells of a sweep (or of one shard of it) that its results
// folder does not hold yet, one after another, each a normal run through the run
// service, and appends each ended cell to the folder. A cell that fails (does not
// fit the memory budget, an unreadable dataset, a model that cannot be built) is
// recorded with its reason and the sweep goes on. A stop ends the running cell at
// once and does not record it, so running the sweep again runs it from the start.
// So does a record or trace that cannot be written, and then run() throws.
// Code that chooses the cells itself (`sweep --predict-first`,
// core/predict/predict_first.h) runs them one at a time with runCell() and records
// the ones it leaves out with record().

#include "core/sweep/sweep.h"
#include "core/sweep/sweep_results.h"

#include <functional>
#include <optional>
#include <stop_token>
#include <string>

namespace loaderlab {

class RunService;

struct SweepProgress
{
    int done = 0;                        // cells of this shard ended so far, recorded ones included
    int total = 0;                       // cells of this shard
    int skipped = 0;                     // found in the folder already
    double etaSeconds = 0.0;             // from this session's mean time per cell; 0 if unknown
    const SweepCell *cell = nullptr;     // the cell starting, or that just ended
    const SweepRecord *record = nullptr; // set when it ended
};

struct SweepOutcome
{
    int ran = 0;
    int failed = 0;
    int skipped = 0; // found in the folder already (cells left skipped included)
    bool stopped = false;
    int leftSkipped = 0; // of those, cells `sweep --predict-first` skipped, not run now
};

// Called when a cell's run has ended (not when a stop ended it), before its record
// is appended: `run` is the run's service, with its report and trace (null when the
// run could not start), and `record` may be added to (what a model predicted).
using SweepCellEnded = std::function<void(const RunService *run, SweepRecord &record)>;

// Why none of the cells of `shard` can run on its engine (engineProblem(), e.g. the
// PyTorch engine and a tensor file), in a sentence; "" when one or more can. Cells
// that cannot run are recorded as failed with the reason, as any failing cell; a
// sweep of nothing but such cells is refused before it starts.
std::string sweepCannotRun(const SweepDefinition &definition, const SweepShard &shard = {});

class SweepRunner
{
public:
    struct Options
    {
        SweepShard shard;
        bool retryFailed = false; // run cells again whose record is a failure
        bool runSkipped = false;  // run cells `sweep --predict-first` skipped
        bool keepTraces = true;   // per-batch CSV of every cell in traces/
    };

    SweepRunner(SweepDefinition definition, std::string dir, Options options);

    // `onProgress` is called on the calling thread before and after each cell.
    // Throws std::runtime_error naming the file when a cell's record or trace cannot
    // be written (a full disk): that cell is not recorded, and the sweep stops.
    SweepOutcome run(std::stop_token stop,
                     const std::function<void(const SweepProgress &)> &onProgress = {});

    // Runs one cell now, whatever the folder holds, and appends its record; nullopt
    // when `stop` ended it (not recorded). `keepSummary` also keeps the run's summary
    // JSON beside its trace (traces/cell-NNNNNN.json, with the traces kept), so that
    // the run can be read again whole (openRun). Throws as run() does.
    std::optional<SweepRecord> runCell(const SweepCell &cell, std::stop_token stop,
                                       const SweepCellEnded &onEnded = {},
                                       bool keepSummary = false);
    // Appends a record of a cell that was not run (a skipped one).
    void record(const SweepRecord &record) { m_results.append(record); }

    const SweepDefinition &definition() const { return m_definition; }
    const Options &options() const { return m_options; }
    const SweepResults &results() const { return m_results; }
    // Where runCell(..., keepSummary) keeps the cell's summary JSON.
    std::string summaryPath(std::int64_t order) const;

private:
    SweepDefinition m_definition;
    Options m_options;
    SweepResults m_results;
};

} // namespace loaderlab
