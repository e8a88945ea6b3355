#include "core/engine/pytorch/python_probe.h"

#include "core/system/cache_directory.h"
#include "loaderlab_probe_module.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

namespace loaderlab {
namespace {

// FNV-1a: a stable name for the module's version (std::hash is not stable).
std::uint64_t fnv1a(std::string_view text)
{
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const char c : text) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

bool fileHolds(const std::string &path, std::string_view text)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    const std::string content((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    return content == text;
}

// Writes `text` to a file of its own in `dir`, then renames it over `path`: several
// LoaderLab processes starting at once (a sweep's shards) each write a whole file.
void writeWholeFile(const std::string &dir, const std::string &path, std::string_view text)
{
    static std::atomic<int> counter{0};
    const std::string temporary = dir + "/.loaderlab_probe." + std::to_string(getpid()) + "."
                                  + std::to_string(counter++) + ".tmp";
    const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        throw std::runtime_error(temporary + ": cannot create: " + std::strerror(errno));
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int error = errno;
            close(fd);
            unlink(temporary.c_str());
            throw std::runtime_error(temporary + ": cannot write: " + std::strerror(error));
        }
        done += static_cast<std::size_t>(n);
    }
    if (fsync(fd) != 0 || close(fd) != 0 || rename(temporary.c_str(), path.c_str()) != 0) {
        const int error = errno;
        unlink(temporary.c_str());
        throw std::runtime_error(path + ": cannot write: " + std::strerror(error));
    }
}

} // namespace

const char *loaderlabProbeModule()
{
    return kLoaderLabProbeModule;
}

std::string loaderlabPythonDir()
{
    const std::string_view probe(kLoaderLabProbeModule);
    const std::string_view ranks(kLoaderLabRanksModule);
    char name[32];
    std::snprintf(name, sizeof name, "python-%016llx",
                  static_cast<unsigned long long>(fnv1a(probe) ^ (fnv1a(ranks) * 31)));
    const std::string dir = cacheDirectory() + "/" + name;
    const std::string probePath = dir + "/loaderlab_probe.py";
    const std::string ranksPath = dir + "/loaderlab_ranks.py";
    if (fileHolds(probePath, probe) && fileHolds(ranksPath, ranks))
        return dir;
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error)
        throw std::runtime_error(
            dir + ": cannot create the folder of loaderlab_probe.py: " + error.message());
    writeWholeFile(dir, probePath, probe);
    writeWholeFile(dir, ranksPath, ranks);
    return dir;
}

} // namespace loaderlab
