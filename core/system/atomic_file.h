#pragma once

// Every export goes through here. The content is written to "<path>.part" in the
// same directory, flushed to disk, and renamed over `path` only when complete, so a
// failed export never leaves a half-written file in place of a good one.
//
// The ".part" file is always a new file (core/system/output_guard.h): a symlink or
// anything but a regular file under that name is refused, a stale regular one is
// removed and created afresh with O_CREAT | O_EXCL | O_NOFOLLOW, so nothing is ever
// written through a planted link. Neither `path` nor its ".part" may be one of the
// inputs given, or of the runs this process started (protectedInputs()), nor lie
// inside an input folder.

#include <cstdint>
#include <functional>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace loaderlab {

// Throws std::runtime_error naming the path and the reason; `path` is then unchanged.
void writeFileAtomically(const std::string &path, const std::function<void(std::ostream &)> &write);
// The same, refusing an output that would overwrite one of `inputs` as well.
void writeFileAtomically(const std::string &path, const std::function<void(std::ostream &)> &write,
                         const std::vector<std::string> &inputs);

// Creates "<path>.part" as described above and returns its descriptor (O_WRONLY,
// O_CLOEXEC; the caller closes it), or -1 with `reason` (naming the file) set.
int createPartFile(const std::string &path, const std::vector<std::string> &inputs,
                   std::string &reason);

// An output buffer on a file descriptor that remembers why a write failed (errno).
class FdStreamBuf : public std::streambuf
{
public:
    explicit FdStreamBuf(int fd = -1);
    ~FdStreamBuf() override;
    FdStreamBuf(const FdStreamBuf &) = delete;
    FdStreamBuf &operator=(const FdStreamBuf &) = delete;

    // Takes over `fd` (which must be the first one given).
    void attach(int fd) { m_fd = fd; }
    // Writes what is buffered, syncs it to disk, then closes; false (and error() set) if either
    // failed.
    bool close();
    int fd() const { return m_fd; }
    // Bytes handed to the file so far.
    std::int64_t written() const { return m_written; }
    // The reason of the first failed write ("No space left on device"); empty if none.
    const std::string &error() const { return m_error; }

protected:
    int_type overflow(int_type c) override;
    int sync() override;

private:
    bool drain();

    int m_fd;
    std::int64_t m_written = 0;
    std::string m_error;
    char m_buffer[64 * 1024];
};

// The same for a file written bit by bit over a long time (the per-batch CSV of a
// run): open, write to stream(), then commit(). Destroyed without commit(), it
// removes the ".part" file and `path` stays as it was, unless keepPart() was called.
class AtomicFile
{
public:
    // Throws std::runtime_error when "<path>.part" cannot be created (see above).
    explicit AtomicFile(std::string path);
    AtomicFile(std::string path, const std::vector<std::string> &inputs);
    ~AtomicFile();
    AtomicFile(const AtomicFile &) = delete;
    AtomicFile &operator=(const AtomicFile &) = delete;

    const std::string &path() const { return m_path; }
    const std::string &partPath() const { return m_part; }
    std::ostream &stream() { return m_out; }
    // Flushes; throws std::runtime_error naming the path and the reason (e.g. "No
    // space left on device") when a write failed.
    void flush();
    // Flushes, syncs and renames over path(). Throws std::runtime_error (the .part
    // file is removed then, unless keepPart() was called).
    void commit();
    // The ".part" file holds what could be written and stays when this is destroyed
    // or commit() fails (the streaming CSV keeps the rows measured before a write error).
    void keepPart() { m_keep = true; }
    // Bytes in the ".part" file after the last successful flush().
    std::int64_t flushedBytes() const { return m_buf.written(); }
    // Cuts the ".part" file back to `bytes` (what a successful flush() left), so a
    // write that failed half way leaves no partial line; false if that failed.
    bool truncatePart(std::int64_t bytes);

private:
    void removePart();

    std::string m_path;
    std::string m_part;
    FdStreamBuf m_buf;
    std::ostream m_out;
    bool m_committed = false;
    bool m_keep = false;
};

} // namespace loaderlab
