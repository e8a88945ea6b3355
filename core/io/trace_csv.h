#pragma once

// The per-batch CSV: one row per batch, integer nanoseconds relative to the run's
// start (steady clock). Columns are documented in the README ("Per-batch CSV").

#include "core/record/trace_record.h"

#include <cstddef>
#include <cstdint>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace loaderlab {

// The header line, without the newline.
std::string traceCsvHeader();

void writeTraceCsv(std::ostream &out, const std::vector<TraceRecord> &records);
// The rows alone, for a CSV written while the run goes on (trace_csv_stream.h).
void writeTraceCsvRows(std::ostream &out, const std::vector<TraceRecord> &records);

// Atomic (see writeFileAtomically). Throws std::runtime_error.
void saveTraceCsv(const std::string &path, const std::vector<TraceRecord> &records);

// What readTraceCsv accepts. Past kMaxTraceCsvRows rows (the default --keep-batches
// of a headless run, ~200 MB once read) a file is refused, not read in part: the
// window cannot hold more, and a run with more batches is better opened as a sweep
// cell or summarised from its JSON.
inline constexpr std::int64_t kMaxTraceCsvRows = 1'000'000;
inline constexpr std::size_t kMaxTraceCsvLineBytes = 1024; // a row is at most ~500
inline constexpr std::int32_t kMaxTraceCsvRanks = 64;      // RunConfig::devices' maximum
// A year: any time or duration in a row past this is not a measurement.
inline constexpr std::int64_t kMaxTraceTimeNs = 366LL * 24 * 3600 * 1'000'000'000;

// Reads a per-batch CSV back (a sweep cell's trace, an exported run). The header must
// be traceCsvHeader(); wait_ns is derived, so it is checked against delivery - request
// rather than stored. Every field is range-checked: index >= 0 and rising from row to
// row, epoch, samples, skipped and config_version >= 0, worker >= -2 (kAllWorkers),
// 0 <= rank < kMaxTraceCsvRanks, every time and duration within 0..kMaxTraceTimeNs,
// delivery_ns >= request_ns. At most kMaxTraceCsvRows rows, each at most
// kMaxTraceCsvLineBytes long. Throws std::runtime_error naming `source` and the line.
std::vector<TraceRecord> readTraceCsv(std::istream &in, const std::string &source);
std::vector<TraceRecord> loadTraceCsv(const std::string &path);

// The pieces of readTraceCsv, for a reader of a file that is still being written
// (trace_csv_follow.h). traceCsvColumns: the number of columns of a header line
// (without the newline) readTraceCsv accepts, 0 for any other line.
std::size_t traceCsvColumns(const std::string &header);
// One row (without the newline) of a file with `columns` columns, checked as
// readTraceCsv checks it; `previousIndex` is the index of the row before (-1 for the
// first). Throws std::runtime_error naming `source` and `lineNumber`.
TraceRecord parseTraceCsvRow(const std::string &line, std::size_t columns,
                             std::int64_t previousIndex, const std::string &source,
                             std::int64_t lineNumber);

} // namespace loaderlab
