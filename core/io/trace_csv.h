#pragma once

// The per-batch CSV: one row per batch, integer nanoseconds relative to the run's
// start (steady clock). Columns are documented in the README ("Per-batch CSV").

#include "core/trace/trace_record.h"

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

} // namespace loaderlab
