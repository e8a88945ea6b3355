#pragma once

// Opening input files safely. Every reader of user-named files (images, IDX, CIFAR,
// tensor files, models, configs) goes through here, so a FIFO, a directory or a
// device under a data file's name is refused with a clear reason instead of making
// open() or read() block forever.

#include <cstdint>
#include <string>

namespace loaderlab {

// What kind of thing is at `path` when it is not a regular file: "is a FIFO (named
// pipe)", "is a directory", "is a socket", "is a character device", "is a block
// device". Empty for a regular file. For a missing path: "no such file or directory"
// (or the stat error). Follows symlinks. Never opens the path.
std::string regularFileProblem(const std::string &path);

// What a failed stat() or open() of `path` with `error` (an errno value) means, for
// messages: "no such file or directory", "path too long (5000 bytes; the limit is
// 4095)", "a name in the path is longer than 255 bytes", "cannot access: <strerror>".
std::string pathErrorText(const std::string &path, int error);

// Opens `path` read-only (O_CLOEXEC) without ever blocking: stat() first so devices
// and FIFOs are never opened, then open with O_NONBLOCK and check with fstat() that
// the file opened is still a regular file (it may have been swapped in between),
// then switch back to blocking reads. Returns the descriptor (the caller closes it)
// and its size in `size` if given; on failure returns -1 and sets `reason` (without
// the path), e.g. "is a FIFO (named pipe), not a regular file" or "cannot open:
// Permission denied".
int openRegularFile(const std::string &path, std::string &reason, std::int64_t *size = nullptr);

// The same refusals with one open() and one fstat(), for hot paths that read many
// small files (the image loader): open with O_NONBLOCK | O_NOCTTY, so that a FIFO
// or device put where a file was expected neither blocks nor becomes a terminal,
// then fstat() refuses anything but a regular file before a byte is read. The
// descriptor stays non-blocking, which changes nothing for a regular file. Unlike
// openRegularFile it does open such a node for a moment, so use it only on paths
// already listed as regular files (as the image-folder scan does).
int openListedRegularFile(const std::string &path, std::string &reason,
                          std::int64_t *size = nullptr);

// True when `a` and `b` both exist and are the same file (same device and inode,
// after following symlinks), however they are spelled.
bool sameFile(const std::string &a, const std::string &b);

// Closes a descriptor on scope exit.
class FdCloser
{
public:
    explicit FdCloser(int fd)
        : m_fd(fd)
    {
    }
    ~FdCloser();
    FdCloser(const FdCloser &) = delete;
    FdCloser &operator=(const FdCloser &) = delete;
    // Gives up ownership (e.g. to gzdopen or fdopen) and returns the descriptor.
    int release();

private:
    int m_fd;
};

} // namespace loaderlab
