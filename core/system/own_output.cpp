#include "core/system/own_output.h"

#include "core/system/regular_file.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loaderlab {
namespace {

constexpr std::size_t kHeadBytes = 64 * 1024;

bool endsWithNoCase(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size()
           && std::equal(
               suffix.begin(), suffix.end(), text.end() - suffix.size(),
               [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

// The first kHeadBytes of `path` (a symlink's target: what the link shows).
bool readHead(const std::string &path, std::string &head)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    head.resize(kHeadBytes);
    std::size_t got = 0;
    while (got < kHeadBytes) {
        const ssize_t n = ::read(fd, head.data() + got, kHeadBytes - got);
        if (n <= 0)
            break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    head.resize(got);
    return true;
}

bool isLoaderLabFile(std::string_view head)
{
    // The CSV headers LoaderLab writes, up to their third column, and the tensor
    // file's magic (docs/tensor-file-format.md).
    for (std::string_view start : {"index,epoch,worker,", "model,mode,precision,", "LLTENSOR"}) {
        if (head.substr(0, start.size()) == start)
            return true;
    }
    static constexpr std::array<std::string_view, 4> kJsonMarks = {
        R"("format":"loaderlab-)", R"("format": "loaderlab-)", R"("generator":"LoaderLab")",
        R"("generator": "LoaderLab")"};
    const std::string_view start = head.substr(0, head.find_first_not_of(" \t\r\n"));
    if (head.size() > start.size() && head[start.size()] == '{') {
        for (std::string_view mark : kJsonMarks) {
            if (head.find(mark) != std::string_view::npos)
                return true;
        }
    }
    return false;
}

} // namespace

std::string foreignFileProblem(const std::string &path)
{
    struct stat info
    {
    };
    // A symlink is judged by what it points to (the rename replaces the link, but
    // the user reads the file through it).
    if (::stat(path.c_str(), &info) != 0)
        return {}; // not there: nothing to replace
    if (!S_ISREG(info.st_mode))
        return {}; // the callers refuse it with their own reason
    if (info.st_size == 0 && (endsWithNoCase(path, ".csv") || endsWithNoCase(path, ".json")))
        return {};
    std::string head;
    if (!readHead(path, head))
        return "exists and cannot be read to tell whether LoaderLab wrote it ("
               + pathErrorText(path, errno) + "); choose another name";
    if (isLoaderLabFile(head))
        return {};
    return "exists and is not a file LoaderLab wrote; LoaderLab replaces only its own "
           "outputs: choose another name, or move the file away";
}

} // namespace loaderlab
