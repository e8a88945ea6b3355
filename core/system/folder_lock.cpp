#include "core/system/folder_lock.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loaderlab {
namespace {

namespace fs = std::filesystem;

// Opens (creating) a lock file without following a symlink and without blocking on
// a FIFO put there; only a regular file of one name is used. The holder empties the
// file and writes its PID in it: a symlink or a hard link put in its place would
// have it overwrite another file, so both are refused before anything is written.
// A lock file left by an earlier sweep (one link, a regular file) is used again.
int openLockFile(const std::string &dir, const std::string &path, const FolderLockNames &names)
{
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                          0644);
    if (fd < 0) {
        const int error = errno;
        if (error == EACCES || error == EROFS || error == EPERM)
            throw std::invalid_argument(dir + ": cannot write in the " + names.folderWord + " ("
                                        + std::strerror(error) + "); give a folder you can write");
        throw std::invalid_argument(path + ": cannot open the lock file: "
                                    + (error == ELOOP ? std::string("is a symbolic link")
                                                      : std::string(std::strerror(error))));
    }
    struct stat st
    {
    };
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw std::invalid_argument(path + ": the lock file is not a regular file");
    }
    if (st.st_nlink != 1) {
        ::close(fd);
        throw std::invalid_argument(
            path
            + (st.st_nlink == 0
                   ? std::string(": the lock file was removed as it was opened; start again")
                   : ": the lock file has " + std::to_string(st.st_nlink)
                         + " hard links, so it is also another file; remove it (when no "
                         + names.writerWord + " writes this folder) and start again"));
    }
    return fd;
}

// What the holder wrote: "PID 1234 on node7", or "" when nothing.
std::string holderOf(int fd)
{
    char text[256];
    const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
    std::string holder(text, n > 0 ? static_cast<std::size_t>(n) : 0);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0'))
        holder.pop_back();
    return holder;
}

void writeHolder(int fd)
{
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    const std::string text = "PID " + std::to_string(::getpid())
                             + (host[0] ? std::string(" on ") + host : "") + "\n";
    if (::ftruncate(fd, 0) == 0 && ::pwrite(fd, text.data(), text.size(), 0) < 0) {
        // The PID only helps the message of a refused writer; the lock holds anyway.
    }
}

// The holders of the shard locks of `dir` that are held now, "PID 1 on a, PID 2 on b".
std::string shardHolders(const std::string &dir, const std::string &prefix)
{
    std::string holders;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (!name.starts_with(prefix) || !name.ends_with(".lock"))
            continue;
        const int fd = ::open(entry.path().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        struct stat st
        {
        };
        // A lock we can share is held by no one (and is let go at once).
        const bool held = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
                          && ::flock(fd, LOCK_SH | LOCK_NB) != 0;
        if (held) {
            const std::string holder = holderOf(fd);
            holders += (holders.empty() ? "" : ", ") + (holder.empty() ? name : holder);
        }
        ::close(fd);
    }
    return holders;
}

void release(int fd, bool clear)
{
    if (fd < 0)
        return;
    if (clear && ::ftruncate(fd, 0) != 0) {
        // A PID left behind names no holder: the lock goes with the descriptor.
    }
    ::close(fd); // lets the flock go
}

} // namespace

std::string folderShardLockName(const FolderLockNames &names, int index, int count)
{
    if (count <= 1)
        return {};
    return names.shardPrefix + std::to_string(names.oneBased ? index + 1 : index) + "-of-"
           + std::to_string(count) + ".lock";
}

FolderLock::FolderLock(const std::string &dir, const FolderLockNames &names, int index, int count)
{
    const bool whole = count <= 1;
    const std::string path = (fs::path(dir) / names.folderLock).string();
    m_folderFd = openLockFile(dir, path, names);
    if (::flock(m_folderFd, (whole ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
        const int error = errno;
        std::string holder = holderOf(m_folderFd);
        release(m_folderFd, false);
        m_folderFd = -1;
        if (error != EWOULDBLOCK)
            throw std::invalid_argument(path + ": cannot lock: " + std::strerror(error));
        if (holder.empty()) {
            const std::string shards = shardHolders(dir, names.shardPrefix);
            holder = shards.empty() ? "shards of this " + names.writerWord : "shards: " + shards;
        }
        throw std::invalid_argument(dir + ": another loaderlab is writing this " + names.folderWord
                                    + " (" + holder + "); wait for it to end, or use another "
                                    + names.folderWord);
    }
    if (!whole) {
        // No whole-folder writer can hold it now: a PID left by a killed one goes.
        if (::ftruncate(m_folderFd, 0) != 0) {
            // Only the message of a refused writer would name that old PID.
        }
        const std::string shardPath =
            (fs::path(dir) / folderShardLockName(names, index, count)).string();
        try {
            m_shardFd = openLockFile(dir, shardPath, names);
        } catch (...) {
            release(m_folderFd, false);
            throw;
        }
        if (::flock(m_shardFd, LOCK_EX | LOCK_NB) != 0) {
            const int error = errno;
            const std::string holder = holderOf(m_shardFd);
            release(m_shardFd, false);
            release(m_folderFd, false);
            m_folderFd = m_shardFd = -1;
            throw std::invalid_argument(
                dir + ": shard " + std::to_string(names.oneBased ? index + 1 : index) + "/"
                + std::to_string(count) + " is being run by another loaderlab ("
                + (error == EWOULDBLOCK ? (holder.empty() ? "PID unknown" : holder)
                                        : std::string(std::strerror(error)))
                + "); wait for it to end");
        }
        writeHolder(m_shardFd);
    } else {
        writeHolder(m_folderFd);
    }
}

FolderLock::~FolderLock()
{
    release(m_shardFd, true);
    // The folder lock is shared among shards: only its exclusive holder wrote a PID.
    release(m_folderFd, m_shardFd < 0);
}

} // namespace loaderlab
