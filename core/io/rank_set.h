#pragma once

// A torch.distributed run recorded by loaderlab_probe: each rank r of a world of W
// writes its own per-batch CSV and summary JSON, `<base>.rank<r>.csv` and
// `<base>.rank<r>.json`. Each JSON has, beside the usual summary, a "probe" object:
//   "probe": {"rank": r, "world_size": W, "start_unix_ns": <wall clock at the rank's
//             time 0, ns since 1970>, "host": "<host name>"}
// and its config says "devices": W. A rank's rows are in its own time (ns from its
// time 0), numbered from 0 by its own batches, with rank = r. The ranks may run on
// different machines, whose steady clocks have nothing in common: their wall-clock
// starts place them on one time line (to the precision of the machines' clock sync).
//
// Merged, the set is one data-parallel run as LoaderLab's own `--devices W` runs are
// (docs/data-parallel.md): every rank's times moved by its start_unix_ns minus the
// earliest start, one trace whose batch indices are one sequence over all ranks in
// the order their batches were consumed (compute end, or delivery without a step),
// each batch and worker span with its rank; so the per-rank figures, lanes and the
// run's totals are computed as for a LoaderLab run.

#include "core/io/run_reader.h"
#include "core/io/summary_json.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace loaderlab {

// "<dir>/<base>" and r of "<dir>/<base>.rank<r>.csv" or ".json"; nothing for any
// other name (a run of one process, opened as before).
struct RankFileName
{
    std::string stem;
    int rank = 0;
};
std::optional<RankFileName> rankFileName(const std::string &path);
std::string rankCsvPath(const std::string &stem, int rank);
std::string rankJsonPath(const std::string &stem, int rank);

// A rank's "probe" object (ProbeInfo: core/io/summary_json.h). Throws std::runtime_error
// naming `source` when it is missing or out of range (rank in 0..W-1, W in 1..64,
// start_unix_ns >= 0).
ProbeInfo probeInfoFromJson(const nlohmann::json &json, const std::string &source);

// One rank's files, its report and probe (as its JSON says now).
struct RankSetMember
{
    int rank = 0;
    std::string csvPath;
    std::string jsonPath;
    bool present = false; // its JSON was there and read
    RunReport report;
    ProbeInfo probe;
    std::int64_t summaryBatches = -1; // the JSON's summary.batches, -1 when not given
};

// The set `path` (any rank's CSV or JSON) belongs to: the world size from that
// rank's JSON, a member per rank (rank 0 first). With `requireAll` every rank's JSON
// must be there. Every "<base>.rank<k>.json" beside it is read and must agree (same
// world size, its own rank); a set that does not is refused naming the file.
struct RankSet
{
    std::string stem;
    int worldSize = 1;
    std::vector<RankSetMember> members;
};
RankSet findRankSet(const std::string &path, bool requireAll);
// Reads one member's JSON again (its report, probe and summary.batches), checked
// against the set. False when the JSON is not there (yet). `worldSize` 0: the JSON of
// a run of one process, read without a probe.
bool readRankMember(RankSetMember &member, int worldSize);

// Sets each rank's shift in `merge`: its start_unix_ns minus the earliest of the
// set's (every member present). Throws std::runtime_error naming the file of a rank
// that started more than kMaxTraceTimeNs after another.
class RankMerge;
void setRankShifts(const RankSet &set, RankMerge &merge);
// Every row of `rows` has the member's rank; throws naming its CSV and the line
// (`firstLine` is that of rows[0]).
void checkRankRows(const std::vector<TraceRecord> &rows, const RankSetMember &member,
                   std::int64_t firstLine);

// Merges the ranks' rows into one sequence (see the top of this file). Rows are
// given per rank in the rank's order as they are read; take() hands out those whose
// place is certain: a row is placed once every rank still writing has a row at or
// past its time (or has ended), so a rank's later rows can never belong before it.
class RankMerge
{
public:
    explicit RankMerge(int ranks);

    // What rank's times are moved by (its start_unix_ns minus the earliest).
    void setShift(int rank, std::int64_t shiftNs);
    std::int64_t shift(int rank) const;
    // Queues the rank's next rows (its own indices, rising); moves their times.
    // Throws std::runtime_error naming `source` when a moved time is past
    // kMaxTraceTimeNs.
    void add(int rank, const std::vector<TraceRecord> &rows, const std::string &source);
    // The rank sends no more rows.
    void end(int rank);
    // The rows placed now, numbered on from the ones placed before.
    std::vector<TraceRecord> take();
    // The merged index of the rank's own batch `batch` (of its first row at or after
    // it; past its last placed row, the next merged index).
    std::int64_t mergedIndex(int rank, std::int64_t batch) const;

private:
    struct Lane
    {
        std::int64_t shiftNs = 0;
        std::deque<TraceRecord> pending;
        std::int64_t lastKey = -1; // latest consumption time queued
        bool ended = false;
        std::vector<std::pair<std::int64_t, std::int64_t>> placed; // own index, merged
    };
    std::vector<Lane> m_lanes;
    std::int64_t m_next = 0;
};

// The merged run's report: rank 0's config (devices = world size), config versions
// (batches and times moved into the merged run), dataset and machine; rank 0's
// markers, every rank's skipped samples; the state "failed" when a rank failed
// (its error prefixed "rank r: "), "running" while one runs, "stopped" when one
// stopped, else rank 0's; peak memory the largest, skipped samples the sum.
RunReport mergedRankReport(const RankSet &set, const RankMerge &merge);

// Opens a finished (or partly written) set at once: every rank's CSV and JSON, as
// openRun does for one run. Throws std::runtime_error naming the file and the reason.
OpenedRun openRankSet(const std::string &path);

} // namespace loaderlab
