#pragma once

// RunFollow: a run read while it is being written (loaderlab_probe.watch writes its
// summary JSON first, with "state": "running", appends the per-batch CSV as batches
// arrive and rewrites the JSON when the run ends), one run or a torch.distributed
// set of ranks (core/io/rank_set.h). Each poll() appends the batches the files
// gained to one TraceLog, whose readers (the window's plots) see them as they would
// a live run's; when the JSON no longer says "running" it reads the rest of the CSV
// and the final JSON (markers, skipped samples, state) and ends. A writer that dies
// without its final JSON (SIGKILL, out of memory) ends the follow too: when the JSON
// names the writing process ("probe": {"pid", "host", "pid_namespace"}) on this
// machine, and its files have not changed for a few seconds, the process is looked
// for, and when it is gone poll() says so.
// Made and polled by one thread (the window's); the trace may be read by any.

#include "core/io/rank_set.h"
#include "core/io/run_reader.h"
#include "core/io/trace_csv_follow.h"
#include "core/trace/trace_log.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loaderlab {

class RunFollow
{
public:
    // `path`: the CSV or the JSON of a run (the other beside it, same base name) or of
    // any rank of a set (`<base>.rank<r>.csv|json`). The JSON named (or beside the CSV)
    // must be there: the writer makes it first. A run `loaderlab run` is still writing
    // has RUN.json.part and RUN.csv.part (core/io/running_summary.h): either name, or
    // either .part, follows those, and the follow reads on under the final names once
    // the run gives them. Throws std::runtime_error naming the file and the reason.
    explicit RunFollow(const std::string &path);
    ~RunFollow();
    RunFollow(const RunFollow &) = delete;
    RunFollow &operator=(const RunFollow &) = delete;

    // Reads what the files gained and appends the batches now certain (of a set: those
    // no rank can still precede) to trace(). Returns how many. A rank whose JSON is not
    // there yet holds the set's batches back until it is. Throws std::runtime_error
    // naming the file and the reason (a file gone, unreadable, replaced or truncated,
    // a bad row, "the writer (pid N) is gone"); the trace keeps what it has, and the
    // follow is over (running() false).
    std::int64_t poll();

    // The writer has not finished yet (and nothing went wrong).
    bool running() const { return m_running; }
    // Rows of the CSV(s) read so far, placed in the trace or not.
    std::int64_t rowsRead() const;
    std::shared_ptr<const TraceLog> trace() const { return m_trace; }
    // The run as read so far: report (config, state, summary of the trace's batches,
    // the JSON's peak memory), trace, largest worker count. csvPath/jsonPath name the
    // files (of a set: "<base>.rank*.csv").
    OpenedRun opened() const;
    // Ranks followed (1 for one run).
    int ranks() const { return static_cast<int>(m_sources.size()); }
    bool isRankSet() const { return m_isSet; }

private:
    // What a member's files are read with, beside m_files.members (same order).
    struct Source
    {
        std::unique_ptr<TraceCsvFollower> csv;
        // The JSON as last read (inode, size, modification time): read again on a change.
        std::uint64_t jsonInode = 0;
        std::int64_t jsonSize = -1;
        std::int64_t jsonTimeNs = -1;
        int jsonFailures = 0; // reads in a row that found it broken
        std::int64_t spans = 0;
        int endPolls = 0; // polls since its JSON said it ended and its CSV was read
        bool done = false;
        // The process writing it, when its JSON names one on this machine; 0 if not.
        std::int64_t writerPid = 0;
        std::chrono::steady_clock::time_point lastChange = std::chrono::steady_clock::now();
    };

    // Reads a member's JSON again when it changed (true then).
    bool refreshJson(std::size_t i);
    // Throws when member i's writer is gone and its JSON still says "running".
    void checkWriter(std::size_t i);
    std::vector<TraceRecord> readRows(std::size_t i);
    void append(const std::vector<TraceRecord> &records);
    void finish();
    RunReport currentReport() const;

    bool m_isSet = false; // a rank set, merged
    RankSet m_files;      // one member (rank 0) for a run of one process
    std::vector<Source> m_sources;
    std::unique_ptr<RankMerge> m_merge;
    bool m_shiftsSet = false;
    std::size_t m_given = 0; // the member whose file was named
    std::shared_ptr<TraceLog> m_trace;
    std::vector<int> m_workersByVersion;
    bool m_running = true;
};

} // namespace loaderlab
