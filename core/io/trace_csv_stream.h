#pragma once

// TraceCsvStream: the per-batch CSV written while the run goes on, so a run of any
// length needs no trace in memory to produce it (a TraceLog with retention) and a
// run killed outright still leaves every batch up to then in "<path>.part". A
// thread copies the new batches from the trace every `interval` (or 10 ms while many
// arrive) and appends them, holding the trace from the first batch not yet written
// (TraceLog::holdFrom); finish() writes the rest and renames the file into place
// (core/system/atomic_file.h).
// Destroyed without finish(), it removes the ".part" file, except after a write
// error (a full disk): the rows written before it are measurements, so the ".part"
// file is kept, the error logged once, and finish() throws naming the kept file.

#include "core/system/atomic_file.h"
#include "core/trace/trace_log.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace loaderlab {

class TraceCsvStream
{
public:
    // Creates "<path>.part" with the header; throws std::runtime_error naming the path.
    explicit TraceCsvStream(std::string path,
                            std::chrono::milliseconds interval = std::chrono::milliseconds(100));
    ~TraceCsvStream();
    TraceCsvStream(const TraceCsvStream &) = delete;
    TraceCsvStream &operator=(const TraceCsvStream &) = delete;

    const std::string &path() const { return m_file.path(); }
    // Starts following `trace` (the run's, once it has started).
    void follow(std::shared_ptr<const TraceLog> trace);
    // Once the run has ended: writes the remaining batches, renames the file into
    // place and returns the number of rows. Throws std::runtime_error naming the
    // path and the reason when a write failed (the rows written before it stay in
    // "<path>.part", which the message names), or, with the file in
    // place, when batches were gone from the trace before they could be written.
    std::int64_t finish();

private:
    // With m_mutex held; returns the number of rows written.
    std::size_t copyNew();

    std::chrono::milliseconds m_interval;
    std::mutex m_mutex;
    std::condition_variable_any m_wake;
    AtomicFile m_file;
    std::shared_ptr<const TraceLog> m_trace;
    std::size_t m_next = 0; // the next batch to write
    std::int64_t m_rows = 0;
    std::int64_t m_missed = 0;
    std::string m_error;
    bool m_finished = false;
    std::jthread m_thread; // last: joined before the members it uses go
};

} // namespace loaderlab
