#include "core/system/output_guard.h"

#include "core/system/regular_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <system_error>

#include <sys/stat.h>
#include <unistd.h>

namespace loaderlab {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxProtectedInputs = 32;

std::mutex g_protectedMutex;
std::deque<std::string> g_protected;

bool statOf(const std::string &path, struct stat &info)
{
    return ::stat(path.c_str(), &info) == 0;
}

// True when the folder that will hold `output` is `dir` or lies below it. The
// output's folder exists (its ".part" is created there), so it is resolved with
// its symlinks; each of its ancestors is then compared with `dir` by device and inode.
bool insideFolder(const std::string &output, const struct stat &dir)
{
    fs::path folder = fs::path(output).parent_path();
    if (folder.empty())
        folder = ".";
    std::error_code ec;
    fs::path real = fs::canonical(folder, ec);
    if (ec)
        return false; // a folder that is not there holds nothing of the input
    for (;;) {
        struct stat info
        {
        };
        if (statOf(real.string(), info) && info.st_dev == dir.st_dev && info.st_ino == dir.st_ino)
            return true;
        if (!real.has_relative_path())
            return false; // the root
        real = real.parent_path();
    }
}

} // namespace

std::string outputInputConflict(const std::string &output, const std::vector<std::string> &inputs)
{
    const std::string part = output + ".part";
    for (const std::string &input : inputs) {
        if (input.empty())
            continue;
        if (sameFile(output, input))
            return "is an input of the run (" + input + "); it would be overwritten";
        if (sameFile(part, input))
            return "would be written through " + part + ", which is an input of the run (" + input
                   + "); it would be overwritten";
        struct stat info
        {
        };
        if (statOf(input, info) && S_ISDIR(info.st_mode) && insideFolder(output, info))
            return "is inside the input folder " + input
                   + " (nothing is written inside a dataset folder, so no image it reads is "
                     "overwritten)";
    }
    return {};
}

std::string partFileProblem(const std::string &part)
{
    struct stat info
    {
    };
    if (::lstat(part.c_str(), &info) != 0)
        return {};
    if (S_ISLNK(info.st_mode)) {
        std::error_code ec;
        const fs::path target = fs::read_symlink(part, ec);
        return part + " is a symbolic link" + (ec ? std::string() : " (to " + target.string() + ")")
               + "; it is never written through (remove it)";
    }
    if (S_ISDIR(info.st_mode))
        return part + " is a directory (remove it)";
    if (!S_ISREG(info.st_mode))
        return part + " is not a regular file (remove it)";
    return {};
}

void protectInput(const std::string &path)
{
    if (path.empty())
        return;
    std::error_code ec;
    const fs::path absolute = fs::absolute(path, ec);
    const std::string key = ec ? path : absolute.string();
    std::lock_guard lock(g_protectedMutex);
    g_protected.erase(std::remove(g_protected.begin(), g_protected.end(), key), g_protected.end());
    g_protected.push_back(key);
    while (g_protected.size() > kMaxProtectedInputs)
        g_protected.pop_front();
}

std::vector<std::string> protectedInputs()
{
    std::lock_guard lock(g_protectedMutex);
    return {g_protected.begin(), g_protected.end()};
}

} // namespace loaderlab
