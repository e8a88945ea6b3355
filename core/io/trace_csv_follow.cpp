#include "core/io/trace_csv_follow.h"

#include "core/io/trace_csv.h"
#include "core/system/regular_file.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

namespace loaderlab {

TraceCsvFollower::TraceCsvFollower(std::string path)
    : m_path(std::move(path))
{
}

void TraceCsvFollower::takeLine(const std::string &line, std::vector<TraceRecord> &out)
{
    ++m_lines;
    if (m_columns == 0) {
        m_columns = traceCsvColumns(line);
        if (m_columns == 0)
            throw std::runtime_error(m_path + ": not a LoaderLab per-batch CSV (header differs)");
        return;
    }
    if (line.empty())
        return;
    if (m_rows >= kMaxTraceCsvRows)
        throw std::runtime_error(m_path + ": more than " + std::to_string(kMaxTraceCsvRows)
                                 + " rows, the most a per-batch CSV may have to be read back");
    out.push_back(parseTraceCsvRow(line, m_columns, m_previousIndex, m_path, m_lines));
    m_previousIndex = out.back().index;
    ++m_rows;
}

std::string withoutPartSuffix(const std::string &path)
{
    constexpr std::string_view kPart = ".part";
    return path.size() > kPart.size() && path.ends_with(kPart)
               ? path.substr(0, path.size() - kPart.size())
               : std::string();
}

std::vector<TraceRecord> TraceCsvFollower::poll(bool final, std::int64_t maxBytes)
{
    std::vector<TraceRecord> out;
    struct stat before
    {
    };
    if (::stat(m_path.c_str(), &before) != 0) {
        const int error = errno;
        // Not there yet: the writer creates it with its first batches.
        if (error == ENOENT && !m_seen)
            return out;
        // "<run>.csv.part" renamed to "<run>.csv" as its run ended: the same file,
        // read on under its final name.
        if (const std::string kept = withoutPartSuffix(m_path); error == ENOENT && !kept.empty()) {
            struct stat moved
            {
            };
            if (::stat(kept.c_str(), &moved) == 0
                && static_cast<std::uint64_t>(moved.st_dev) == m_device
                && static_cast<std::uint64_t>(moved.st_ino) == m_inode) {
                m_path = kept;
                return poll(final, maxBytes);
            }
        }
        throw std::runtime_error(m_path + ": cannot read: " + pathErrorText(m_path, error)
                                 + (m_seen ? " (it was there before)" : ""));
    }
    std::string reason;
    std::int64_t size = 0;
    const int fd = openRegularFile(m_path, reason, &size);
    if (fd < 0)
        throw std::runtime_error(m_path + ": cannot read: " + reason);
    const FdCloser closer(fd);
    struct stat info
    {
    };
    if (::fstat(fd, &info) != 0)
        throw std::runtime_error(m_path + ": cannot read: " + std::strerror(errno));
    const auto device = static_cast<std::uint64_t>(info.st_dev);
    const auto inode = static_cast<std::uint64_t>(info.st_ino);
    if (m_seen && (device != m_device || inode != m_inode))
        throw std::runtime_error(m_path
                                 + ": replaced by another file since it was last read (a new run "
                                   "under the same name?)");
    if (size < m_offset)
        throw std::runtime_error(m_path + ": got shorter (" + std::to_string(size)
                                 + " bytes, of which " + std::to_string(m_offset)
                                 + " were read already): truncated or rewritten");
    m_seen = true;
    m_device = device;
    m_inode = inode;

    const std::int64_t end = std::min(size, m_offset + std::max<std::int64_t>(maxBytes, 1));
    std::array<char, 64 * 1024> buffer{};
    while (m_offset < end) {
        const auto want = static_cast<std::size_t>(
            std::min<std::int64_t>(end - m_offset, static_cast<std::int64_t>(buffer.size())));
        const ssize_t got = ::pread(fd, buffer.data(), want, static_cast<off_t>(m_offset));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            throw std::runtime_error(m_path + ": read error: " + std::strerror(errno));
        if (got == 0)
            break; // shorter than fstat said: shrunk meanwhile, seen at the next poll
        m_offset += got;
        const char *p = buffer.data();
        const char *stop = p + got;
        while (p < stop) {
            const char *newline = std::find(p, stop, '\n');
            m_partial.append(p, newline);
            if (m_partial.size() > kMaxTraceCsvLineBytes)
                throw std::runtime_error(m_path + ": line " + std::to_string(m_lines + 1)
                                         + ": longer than " + std::to_string(kMaxTraceCsvLineBytes)
                                         + " bytes (not a row of the per-batch CSV)");
            if (newline == stop)
                break;
            takeLine(m_partial, out);
            m_partial.clear();
            p = newline + 1;
        }
    }
    m_caughtUp = m_offset >= size;
    if (final && m_caughtUp && !m_partial.empty()) {
        takeLine(m_partial, out);
        m_partial.clear();
    }
    return out;
}

} // namespace loaderlab
