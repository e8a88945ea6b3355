#pragma once

// SweepRunner: runs the cells of a sweep (or of one shard of it) that its results
// folder does not hold yet, one after another, each a normal run through the run
// service, and appends each ended cell to the folder. A cell that fails (does not
// fit the memory budget, an unreadable dataset, a model that cannot be built) is
// recorded with its reason and the sweep goes on. A stop ends the running cell at
// once and does not record it, so running the sweep again runs it from the start.
// So does a record or trace that cannot be written, and then run() throws.

#include "core/sweep/sweep.h"
#include "core/sweep/sweep_results.h"

#include <functional>
#include <stop_token>
#include <string>

namespace loaderlab {

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
    int skipped = 0;
    bool stopped = false;
};

class SweepRunner
{
public:
    struct Options
    {
        SweepShard shard;
        bool retryFailed = false; // run cells again whose record is a failure
        bool keepTraces = true;   // per-batch CSV of every cell in traces/
    };

    SweepRunner(SweepDefinition definition, std::string dir, Options options);

    // `onProgress` is called on the calling thread before and after each cell.
    // Throws std::runtime_error naming the file when a cell's record or trace cannot
    // be written (a full disk): that cell is not recorded, and the sweep stops.
    SweepOutcome run(std::stop_token stop,
                     const std::function<void(const SweepProgress &)> &onProgress = {});

    const SweepResults &results() const { return m_results; }

private:
    SweepDefinition m_definition;
    Options m_options;
    SweepResults m_results;
};

} // namespace loaderlab
