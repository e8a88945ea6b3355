#include "core/run/output_paths.h"

#include "core/system/output_guard.h"
#include "core/system/own_output.h"
#include "core/system/regular_file.h"

#include <cerrno>
#include <filesystem>
#include <stdexcept>

#include <sys/stat.h>
#include <unistd.h>

namespace loaderlab {
namespace {

namespace fs = std::filesystem;

void checkOne(const std::string &option, const std::string &path,
              const std::vector<std::string> &inputs)
{
    const auto fail = [&](const std::string &reason) {
        throw std::invalid_argument(option + " " + path + ": " + reason);
    };
    struct stat info
    {
    };
    if (::stat(path.c_str(), &info) != 0 && errno == ENAMETOOLONG)
        fail(pathErrorText(path, errno));
    if (::stat(path.c_str(), &info) == 0) {
        if (S_ISDIR(info.st_mode))
            fail("is a directory");
        if (!S_ISREG(info.st_mode))
            fail("is not a regular file");
    }
    if (const std::string conflict = outputInputConflict(path, inputs); !conflict.empty())
        fail(conflict);
    if (const std::string foreign = foreignFileProblem(path); !foreign.empty())
        fail(foreign);
    if (const std::string problem = partFileProblem(path + ".part"); !problem.empty())
        fail(problem);
    // Written as <path>.part in the same folder, then renamed: the folder must be
    // there and writable.
    fs::path folder = fs::path(path).parent_path();
    if (folder.empty())
        folder = ".";
    struct stat folderInfo
    {
    };
    if (::stat(folder.c_str(), &folderInfo) != 0) {
        if (errno == ENOENT)
            fail("folder " + folder.string() + " does not exist");
        fail("folder " + folder.string() + ": " + pathErrorText(folder.string(), errno));
    }
    if (!S_ISDIR(folderInfo.st_mode))
        fail(folder.string() + " is not a folder");
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
        fail("folder " + folder.string() + " is not writable");
}

} // namespace

void checkOutputPaths(const std::vector<std::pair<std::string, std::string>> &outputs,
                      const std::vector<std::string> &inputs)
{
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const auto &[option, path] = outputs[i];
        if (path.empty())
            continue;
        checkOne(option, path, inputs);
        for (std::size_t k = 0; k < i; ++k) {
            const auto &[other, otherPath] = outputs[k];
            if (otherPath.empty())
                continue;
            if (otherPath == path || sameFile(otherPath, path))
                throw std::invalid_argument(option + " " + path + ": the same file as " + other);
            // One output's ".part" must not be another output.
            if (otherPath == path + ".part" || path == otherPath + ".part"
                || sameFile(otherPath, path + ".part") || sameFile(path, otherPath + ".part"))
                throw std::invalid_argument(option + " " + path + ": the same file as " + other
                                            + " or the .part file it is written through");
        }
    }
}

} // namespace loaderlab
