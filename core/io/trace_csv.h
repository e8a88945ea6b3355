#pragma once

// The per-batch CSV: one row per batch, integer nanoseconds relative to the run's
// start (steady clock). Columns are documented in the README ("Per-batch CSV").

#include "core/trace/trace_record.h"

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

// Reads a per-batch CSV back (a sweep cell's trace, an exported run). The header must
// be traceCsvHeader(); wait_ns is derived, so it is checked against delivery - request
// rather than stored. Throws std::runtime_error naming `source` and the line.
std::vector<TraceRecord> readTraceCsv(std::istream &in, const std::string &source);
std::vector<TraceRecord> loadTraceCsv(const std::string &path);

} // namespace loaderlab
