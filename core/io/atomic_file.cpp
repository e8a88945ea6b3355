#include "core/io/atomic_file.h"

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

void syncFile(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ::fsync(fd);
    ::close(fd);
}

} // namespace

AtomicFile::AtomicFile(std::string path)
    : m_path(std::move(path))
    , m_part(m_path + ".part")
    , m_out(m_part, std::ios::binary | std::ios::trunc)
{
    if (!m_out)
        throw failure(m_path, std::strerror(errno));
}

AtomicFile::~AtomicFile()
{
    if (!m_committed) {
        m_out.close();
        std::remove(m_part.c_str());
    }
}

void AtomicFile::flush()
{
    m_out.flush();
    if (!m_out)
        throw failure(m_path, "write error (disk full?)");
}

void AtomicFile::commit()
{
    try {
        flush();
        m_out.close();
        if (!m_out)
            throw failure(m_path, "write error (disk full?)");
        syncFile(m_part);
        if (std::rename(m_part.c_str(), m_path.c_str()) != 0)
            throw failure(m_path, std::strerror(errno));
        m_committed = true;
    } catch (...) {
        std::remove(m_part.c_str());
        m_committed = true; // nothing left to remove
        throw;
    }
}

void writeFileAtomically(const std::string &path, const std::function<void(std::ostream &)> &write)
{
    AtomicFile file(path);
    write(file.stream());
    file.commit();
}

} // namespace loaderlab
