#pragma once

// Reading a finished run back from the files `loaderlab run --csv F --json G` (or the
// window's exports) wrote, e.g. on a GPU server, to look at it in the window as if it
// had run here. The figures are recomputed from the per-batch CSV with the same
// summary code a live run uses; the config, its versions, the markers, the skipped
// samples, the dataset's description, the state, the peak memory and the machine's
// versions come from the summary JSON (they are not in the CSV).

#include "core/io/summary_json.h"
#include "core/trace/trace_log.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loaderlab {

// The report a summary JSON (format "loaderlab-summary-2") holds; `summary` gets only
// what the CSV cannot give (peak memory, skipped count). Throws std::runtime_error
// naming `source` and what is missing or wrong.
RunReport runReportFromJson(const nlohmann::json &json, const std::string &source);
RunReport loadRunReport(const std::string &path);
// The JSON of a summary file, parsed (at most kMaxSummaryJsonBytes); throws
// std::runtime_error naming the file.
nlohmann::json loadSummaryJson(const std::string &path);

// A TraceLog holding `records`, with worker spans rebuilt from each batch's load start
// and end (the CSV has no spans: a sample-parallel batch, built by every worker,
// counts as one span per worker over the batch's whole load time), the report's
// config versions, markers and skipped samples.
std::shared_ptr<TraceLog> traceFromRecords(const std::vector<TraceRecord> &records,
                                           const RunReport &report);

struct OpenedRun
{
    std::string csvPath;
    std::string jsonPath;
    RunReport report; // summary recomputed from the trace, plus the JSON's peak memory
    std::shared_ptr<const TraceLog> trace;
    int maxWorkers = 0; // over every config version
};

// The most worker spans openRun rebuilds (32 bytes each): one per batch, or one per
// worker of a sample-parallel batch.
inline constexpr std::int64_t kMaxOpenedSpans = 8'000'000;
// The largest summary JSON read back (one lists at most 10,000 skipped samples; its
// markers and config versions are a few hundred bytes each).
inline constexpr std::int64_t kMaxSummaryJsonBytes = 64LL * 1024 * 1024;

// Loads both files; throws std::runtime_error naming the file and the reason (the
// CSV's line number for a bad row), or a CSV and a JSON that are not of one run.
// Beyond readTraceCsv's checks (core/io/trace_csv.h) every row must fit the run the
// JSON describes: its config version is listed, rank < devices, worker < workers
// (of the largest config version), samples + skipped <= batch size; and the worker
// spans rebuilt stay within kMaxOpenedSpans.
OpenedRun openRun(const std::string &csvPath, const std::string &jsonPath);
// openRun on RUN.json and the CSV beside it, or on RUN.csv and the JSON beside it;
// throws std::runtime_error naming the file that is missing.
OpenedRun openRunBeside(const std::string &path);
// Fills `run`'s trace, figures (recomputed from `records`, with the report's peak
// memory and skipped count kept) and maxWorkers from its report and `records`.
void buildOpenedRun(OpenedRun &run, const std::vector<TraceRecord> &records);
// The same for a trace already built (a run followed while it is written).
void finishOpenedRun(OpenedRun &run, std::shared_ptr<const TraceLog> trace);

// openRun's checks of rows against the run the JSON describes, for rows read in
// parts (a run followed while it is written): `firstLine` is the CSV line of
// records[0], `spansBefore` the spans the rows before rebuilt. Returns the spans
// counted so far; throws std::runtime_error naming both files and the line.
std::int64_t checkRecordsAgainstReport(const std::vector<TraceRecord> &records,
                                       const RunReport &report, const std::string &csvPath,
                                       const std::string &jsonPath, std::int64_t firstLine = 2,
                                       std::int64_t spansBefore = 0);

// The summary JSON beside a CSV (same folder and base name, ".json"), or the CSV
// beside a JSON; "" when there is no such regular file.
std::string summaryJsonBeside(const std::string &csvPath);
std::string traceCsvBeside(const std::string &jsonPath);

} // namespace loaderlab
