#pragma once

// Every export goes through here. The content is written to "<path>.part" in the
// same directory, flushed to disk, and renamed over `path` only when complete, so a
// failed export never leaves a half-written file in place of a good one.

#include <fstream>
#include <functional>
#include <ostream>
#include <string>

namespace loaderlab {

// Throws std::runtime_error naming the path and the reason; `path` is then unchanged.
void writeFileAtomically(const std::string &path, const std::function<void(std::ostream &)> &write);

// The same for a file written bit by bit over a long time (the per-batch CSV of a
// run): open, write to stream(), then commit(). Destroyed without commit(), it
// removes the ".part" file and `path` stays as it was.
class AtomicFile
{
public:
    // Throws std::runtime_error when "<path>.part" cannot be created.
    explicit AtomicFile(std::string path);
    ~AtomicFile();
    AtomicFile(const AtomicFile &) = delete;
    AtomicFile &operator=(const AtomicFile &) = delete;

    const std::string &path() const { return m_path; }
    std::ostream &stream() { return m_out; }
    // Flushes; throws std::runtime_error naming the path when a write failed.
    void flush();
    // Flushes, syncs and renames over path(). Throws std::runtime_error (the .part
    // file is removed then).
    void commit();

private:
    std::string m_path;
    std::string m_part;
    std::ofstream m_out;
    bool m_committed = false;
};

} // namespace loaderlab
