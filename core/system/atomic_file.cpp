#include "core/system/atomic_file.h"

#include "core/system/output_guard.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

namespace loaderlab {
namespace {

std::runtime_error failure(const std::string &path, const std::string &what)
{
    return std::runtime_error("cannot write " + path + ": " + what);
}

std::vector<std::string> withProtected(const std::vector<std::string> &inputs)
{
    std::vector<std::string> all = protectedInputs();
    all.insert(all.end(), inputs.begin(), inputs.end());
    return all;
}

} // namespace

int createPartFile(const std::string &path, const std::vector<std::string> &inputs,
                   std::string &reason)
{
    const std::string part = path + ".part";
    if (const std::string conflict = outputInputConflict(path, withProtected(inputs));
        !conflict.empty()) {
        reason = path + " " + conflict;
        return -1;
    }
    if (const std::string problem = partFileProblem(part); !problem.empty()) {
        reason = problem;
        return -1;
    }
    // A stale ".part" (an interrupted write) is replaced by a new file, never
    // truncated in place: it may be a hard link to something else.
    if (::unlink(part.c_str()) != 0 && errno != ENOENT) {
        reason = part + ": cannot remove the stale file: " + std::strerror(errno);
        return -1;
    }
    const int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        reason = part + ": cannot create: " + std::strerror(errno);
    return fd;
}

FdStreamBuf::FdStreamBuf(int fd)
    : m_fd(fd)
{
    setp(m_buffer, m_buffer + sizeof(m_buffer));
}

FdStreamBuf::~FdStreamBuf()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

bool FdStreamBuf::drain()
{
    const char *p = pbase();
    while (p < pptr()) {
        const ssize_t n = ::write(m_fd, p, static_cast<std::size_t>(pptr() - p));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (m_error.empty())
                m_error = n < 0 ? std::strerror(errno) : "write returned 0";
            setp(m_buffer, m_buffer + sizeof(m_buffer));
            return false;
        }
        p += n;
        m_written += n;
    }
    setp(m_buffer, m_buffer + sizeof(m_buffer));
    return true;
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type c)
{
    if (m_fd < 0 || !m_error.empty() || !drain())
        return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
        *pptr() = traits_type::to_char_type(c);
        pbump(1);
    }
    return traits_type::not_eof(c);
}

int FdStreamBuf::sync()
{
    if (m_fd < 0 || !m_error.empty())
        return -1;
    return drain() ? 0 : -1;
}

bool FdStreamBuf::close()
{
    if (m_fd < 0)
        return m_error.empty();
    bool ok = sync() == 0 && ::fsync(m_fd) == 0;
    if (!ok && m_error.empty())
        m_error = std::strerror(errno);
    if (::close(m_fd) != 0 && ok) {
        ok = false;
        m_error = std::strerror(errno);
    }
    m_fd = -1;
    return ok && m_error.empty();
}

AtomicFile::AtomicFile(std::string path)
    : AtomicFile(std::move(path), {})
{
}

AtomicFile::AtomicFile(std::string path, const std::vector<std::string> &inputs)
    : m_path(std::move(path))
    , m_part(m_path + ".part")
    , m_out(&m_buf)
{
    std::string reason;
    const int fd = createPartFile(m_path, inputs, reason);
    if (fd < 0)
        throw failure(m_path, reason);
    m_buf.attach(fd);
}

AtomicFile::~AtomicFile()
{
    if (!m_committed) {
        m_buf.close();
        if (!m_keep)
            removePart();
    }
}

bool AtomicFile::truncatePart(std::int64_t bytes)
{
    return m_buf.fd() >= 0 && ::ftruncate(m_buf.fd(), static_cast<off_t>(bytes)) == 0;
}

void AtomicFile::removePart()
{
    std::remove(m_part.c_str());
}

void AtomicFile::flush()
{
    m_out.flush();
    if (!m_out || !m_buf.error().empty())
        throw failure(m_part, m_buf.error().empty() ? "write error" : m_buf.error());
}

void AtomicFile::commit()
{
    try {
        flush();
        if (!m_buf.close())
            throw failure(m_part, m_buf.error());
        if (std::rename(m_part.c_str(), m_path.c_str()) != 0)
            throw failure(m_path,
                          std::string("cannot rename ") + m_part + ": " + std::strerror(errno));
        m_committed = true;
    } catch (...) {
        m_buf.close();
        if (!m_keep)
            removePart();
        m_committed = true; // nothing left to remove
        throw;
    }
}

void writeFileAtomically(const std::string &path, const std::function<void(std::ostream &)> &write)
{
    writeFileAtomically(path, write, {});
}

void writeFileAtomically(const std::string &path, const std::function<void(std::ostream &)> &write,
                         const std::vector<std::string> &inputs)
{
    AtomicFile file(path, inputs);
    write(file.stream());
    file.commit();
}

} // namespace loaderlab
