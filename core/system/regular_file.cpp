#include "core/system/regular_file.h"

#include <cerrno>
#include <climits>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loaderlab {

namespace {

std::string kindProblem(mode_t mode)
{
    if (S_ISREG(mode))
        return {};
    if (S_ISFIFO(mode))
        return "is a FIFO (named pipe), not a regular file";
    if (S_ISDIR(mode))
        return "is a directory, not a regular file";
    if (S_ISSOCK(mode))
        return "is a socket, not a regular file";
    if (S_ISCHR(mode))
        return "is a character device, not a regular file";
    if (S_ISBLK(mode))
        return "is a block device, not a regular file";
    return "is not a regular file";
}

} // namespace

std::string pathErrorText(const std::string &path, int error)
{
    if (error == ENOENT)
        return "no such file or directory";
    if (error == ENAMETOOLONG) {
        if (path.size() >= PATH_MAX)
            return "path too long (" + std::to_string(path.size()) + " bytes; the limit is "
                   + std::to_string(PATH_MAX - 1) + ")";
        return "a name in the path is longer than " + std::to_string(NAME_MAX) + " bytes";
    }
    return std::string("cannot access: ") + std::strerror(error);
}

std::string regularFileProblem(const std::string &path)
{
    struct stat info
    {
    };
    if (::stat(path.c_str(), &info) != 0)
        return pathErrorText(path, errno);
    return kindProblem(info.st_mode);
}

namespace {

// open() (O_NONBLOCK: a FIFO put in place must not make it wait for a writer), then
// fstat() refusing anything but a regular file; -1 with the reason.
int openAndCheck(const std::string &path, int extraFlags, std::string &reason, struct stat &info)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | extraFlags);
    if (fd < 0) {
        reason = errno == ENOENT || errno == ENAMETOOLONG
                     ? pathErrorText(path, errno)
                     : std::string("cannot open: ") + std::strerror(errno);
        return -1;
    }
    if (::fstat(fd, &info) != 0) {
        reason = std::string("cannot stat: ") + std::strerror(errno);
        ::close(fd);
        return -1;
    }
    reason = kindProblem(info.st_mode);
    if (!reason.empty()) {
        ::close(fd);
        return -1;
    }
    return fd;
}

} // namespace

int openRegularFile(const std::string &path, std::string &reason, std::int64_t *size)
{
    reason = regularFileProblem(path);
    if (!reason.empty())
        return -1;
    struct stat info
    {
    };
    const int fd = openAndCheck(path, 0, reason, info);
    if (fd < 0)
        return -1;
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        reason = std::string("cannot set blocking mode: ") + std::strerror(errno);
        ::close(fd);
        return -1;
    }
    if (size)
        *size = static_cast<std::int64_t>(info.st_size);
    return fd;
}

int openListedRegularFile(const std::string &path, std::string &reason, std::int64_t *size)
{
    struct stat info
    {
    };
    const int fd = openAndCheck(path, O_NOCTTY, reason, info);
    if (fd < 0)
        return -1;
    if (size)
        *size = static_cast<std::int64_t>(info.st_size);
    return fd;
}

bool sameFile(const std::string &a, const std::string &b)
{
    struct stat infoA
    {
    };
    struct stat infoB
    {
    };
    return ::stat(a.c_str(), &infoA) == 0 && ::stat(b.c_str(), &infoB) == 0
           && infoA.st_dev == infoB.st_dev && infoA.st_ino == infoB.st_ino;
}

FdCloser::~FdCloser()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

int FdCloser::release()
{
    const int fd = m_fd;
    m_fd = -1;
    return fd;
}

} // namespace loaderlab
