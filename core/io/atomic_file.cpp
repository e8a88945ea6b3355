#include "core/io/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
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

void writeFileAtomically(const std::string &path, const std::function<void(std::ostream &)> &write)
{
    const std::string part = path + ".part";
    try {
        std::ofstream out(part, std::ios::binary | std::ios::trunc);
        if (!out)
            throw failure(path, std::strerror(errno));
        write(out);
        out.flush();
        if (!out)
            throw failure(path, "write error (disk full?)");
        out.close();
        syncFile(part);
        if (std::rename(part.c_str(), path.c_str()) != 0)
            throw failure(path, std::strerror(errno));
    } catch (...) {
        std::remove(part.c_str());
        throw;
    }
}

} // namespace loaderlab
