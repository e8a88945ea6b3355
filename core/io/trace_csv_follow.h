#pragma once

// TraceCsvFollower: reads a per-batch CSV while another process is still writing it
// (loaderlab_probe.watch, a run on a Slurm node writing to a shared file system).
// Each poll() reads only what the file gained since the last one, from the byte
// offset it remembers, and returns the complete new rows; a last line without its
// newline is kept until the rest of it arrives. Plain reads of a freshly opened
// file, polled: file-change notifications (inotify) see nothing on NFS, and opening
// the file again each time is what makes NFS show another machine's writes.
// Rows are checked as readTraceCsv checks them (core/io/trace_csv.h).

#include "core/record/trace_record.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loaderlab {

// "run.csv" for "run.csv.part" (a file still being written, core/system/atomic_file.h);
// "" for a path without that suffix.
std::string withoutPartSuffix(const std::string &path);

class TraceCsvFollower
{
public:
    explicit TraceCsvFollower(std::string path);

    // The complete rows the file gained since the last call; empty while the file does
    // not exist yet or holds no more than (a part of) its header. Reads at most
    // `maxBytes` per call (a long file is caught up with over several calls: caughtUp()
    // says whether the end was reached). With `final` (the writer has finished), a last
    // line without a newline is taken as a row. Throws std::runtime_error naming the
    // file when it cannot be read, is not a per-batch CSV, has a bad row (its line), has
    // more than kMaxTraceCsvRows rows, or got shorter or was replaced by another file
    // since the last call (its rows would no longer follow those already read).
    std::vector<TraceRecord> poll(bool final = false, std::int64_t maxBytes = 16 * 1024 * 1024);

    const std::string &path() const { return m_path; }
    // Rows read so far.
    std::int64_t rows() const { return m_rows; }
    // The last poll read up to the end of the file.
    bool caughtUp() const { return m_caughtUp; }
    // The file has existed at some poll.
    bool seen() const { return m_seen; }

private:
    void takeLine(const std::string &line, std::vector<TraceRecord> &out);

    std::string m_path;
    std::int64_t m_offset = 0; // bytes consumed, complete lines and the pending part
    std::string m_partial;     // the last line read, still without its newline
    std::size_t m_columns = 0; // 0 until the header is read
    std::int64_t m_lines = 0;  // complete lines read, the header included
    std::int64_t m_rows = 0;
    std::int64_t m_previousIndex = -1;
    bool m_caughtUp = true;
    bool m_seen = false;
    // The file read last time: another one under the same name is a new run.
    std::uint64_t m_device = 0;
    std::uint64_t m_inode = 0;
};

} // namespace loaderlab
