#include "core/io/running_summary.h"

#include "core/system/atomic_file.h"
#include "core/system/safe_json.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <stdexcept>

#include <sys/stat.h>
#include <unistd.h>

namespace loaderlab {

std::string thisHost()
{
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    return host;
}

std::string thisPidNamespace()
{
    char link[128] = {};
    const ssize_t n = ::readlink("/proc/self/ns/pid", link, sizeof link - 1);
    return n > 0 ? std::string(link, static_cast<std::size_t>(n)) : std::string();
}

RunningSummaryFile::RunningSummaryFile(const std::string &jsonPath, const RunReport &report)
{
    std::string reason;
    const int fd = createPartFile(jsonPath, {}, reason);
    if (fd < 0)
        throw std::runtime_error(reason);
    m_part = jsonPath + ".part";
    struct stat info
    {
    };
    if (::fstat(fd, &info) == 0) {
        m_device = static_cast<std::uint64_t>(info.st_dev);
        m_inode = static_cast<std::uint64_t>(info.st_ino);
    }
    nlohmann::json j = toJson(report);
    j["state"] = "running";
    j["probe"] = {{"pid", static_cast<std::int64_t>(::getpid())},
                  {"host", thisHost()},
                  {"pid_namespace", thisPidNamespace()}};
    FdStreamBuf buffer(fd);
    std::ostream out(&buffer);
    out << toSafeJson(j).dump(2) << '\n';
    out.flush();
    if (!buffer.close()) {
        remove();
        throw std::runtime_error(m_part + ": cannot write: " + buffer.error());
    }
}

RunningSummaryFile::~RunningSummaryFile()
{
    remove();
}

void RunningSummaryFile::remove()
{
    if (m_part.empty())
        return;
    struct stat info
    {
    };
    if (::lstat(m_part.c_str(), &info) == 0 && static_cast<std::uint64_t>(info.st_dev) == m_device
        && static_cast<std::uint64_t>(info.st_ino) == m_inode)
        ::unlink(m_part.c_str());
    m_part.clear();
}

} // namespace loaderlab
