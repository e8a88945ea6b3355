#pragma once

// The summary JSON of a run still going on, so that File > Follow run can read a
// headless run while it writes (core/io/run_follow.h): `loaderlab run --csv RUN.csv
// --json RUN.json` streams its rows to RUN.csv.part, and beside it this writes
// RUN.json.part with "state": "running", the run's config and config versions, the
// machine, and "probe": {"pid", "host", "pid_namespace"} (its writer, so a follower
// sees when the process dies without its final JSON). The final JSON is written as
// every export is (core/system/atomic_file.h) once this is removed; until then
// RUN.json, if there is one, is not touched.

#include "core/io/summary_json.h"

#include <cstdint>
#include <string>

namespace loaderlab {

// This machine's host name, and this process's pid namespace ("pid:[4026531836]";
// empty where it cannot be read): how a run's "probe" names the process writing it.
std::string thisHost();
std::string thisPidNamespace();

class RunningSummaryFile
{
public:
    // Creates "<jsonPath>.part" with `report` as a running run's, a new file (a stale
    // regular one is replaced; anything else under that name is refused). Throws
    // std::runtime_error naming the file and the reason.
    RunningSummaryFile(const std::string &jsonPath, const RunReport &report);
    ~RunningSummaryFile();
    RunningSummaryFile(const RunningSummaryFile &) = delete;
    RunningSummaryFile &operator=(const RunningSummaryFile &) = delete;

    const std::string &path() const { return m_part; }
    // Removes the file this made (not another put in its place meanwhile).
    void remove();

private:
    std::string m_part;
    std::uint64_t m_device = 0;
    std::uint64_t m_inode = 0;
};

} // namespace loaderlab
