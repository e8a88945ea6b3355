// The default dataset: where it lives, and generating it once even when several
// LoaderLab processes (a window and a CLI run, say) start at the same time.

#include "core/tools/default_dataset.h"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace loaderlab {

namespace {

// An exclusive flock() on "<dir>.lock", held while checking for and generating the
// folder. flock belongs to the open file description, so separate opens exclude each
// other across processes and threads alike; the kernel drops it if a process dies.
class GenerationLock
{
public:
    explicit GenerationLock(const std::string &path)
        : m_fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644))
    {
        if (m_fd < 0)
            throw std::runtime_error(path + ": cannot create lock file: " + std::strerror(errno));
        if (::flock(m_fd, LOCK_EX | LOCK_NB) == 0)
            return;
        // Said once, so a caller that seems stuck knows whom it is waiting for.
        spdlog::warn("waiting for another LoaderLab process to finish generating the "
                     "default dataset ({})",
                     path);
        while (::flock(m_fd, LOCK_EX) != 0) {
            if (errno != EINTR) {
                const std::string reason = std::strerror(errno);
                ::close(m_fd);
                throw std::runtime_error(path + ": cannot lock: " + reason);
            }
        }
    }
    ~GenerationLock() { ::close(m_fd); } // closing releases the lock
    GenerationLock(const GenerationLock &) = delete;
    GenerationLock &operator=(const GenerationLock &) = delete;

private:
    int m_fd;
};

bool isReady(const std::string &dir)
{
    std::error_code ec;
    return std::filesystem::is_directory(dir, ec) && !std::filesystem::is_empty(dir, ec);
}

} // namespace

std::string defaultImageFolderPath()
{
    return cacheDirectory() + "/imagenette-synth-10x100";
}

std::string ensureDefaultImageFolder(const ProgressCallback &progress)
{
    return ensureImageFolder(defaultImageFolderPath(), ImageFolderSpec{}, progress);
}

std::string ensureImageFolder(const std::string &dir, const ImageFolderSpec &spec,
                              const ProgressCallback &progress)
{
    if (isReady(dir))
        return dir; // the common case: no lock needed, the folder appears by rename
    const std::string parent = std::filesystem::path(dir).parent_path().string();
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec)
        throw std::runtime_error(parent + ": cannot create directory: " + ec.message());
    // Whoever gets the lock first generates; the others wait here and then find the
    // finished folder instead of writing into the same ".part" directory.
    const GenerationLock lock(dir + ".lock");
    if (isReady(dir))
        return dir;
    generateImageFolder(dir, spec, progress);
    return dir;
}

} // namespace loaderlab
