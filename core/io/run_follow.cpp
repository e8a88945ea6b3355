#include "core/io/run_follow.h"

#include "core/io/running_summary.h"
#include "core/system/json_integer.h"
#include "core/system/regular_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loaderlab {

namespace {

// A JSON that reads as broken this many polls in a row stops the follow; fewer are
// a writer caught rewriting it in place (loaderlab_probe replaces it atomically).
constexpr int kJsonRetries = 5;
// Polls to wait, once a writer's JSON says it ended and its CSV has been read to the
// end, for rows its JSON counts but the CSV does not show yet (a shared file system
// can show the new JSON before the CSV's last writes).
constexpr int kEndPolls = 10;

// How long a run's files stay as they are before its writer is looked for: the probe
// writes its rows at least every 0.25 s while batches come, and its final JSON before
// its process ends (so a writer found gone then has none to write).
constexpr auto kWriterSilence = std::chrono::seconds(3);

bool existsHere(const std::string &path)
{
    std::error_code error;
    return std::filesystem::exists(std::filesystem::symlink_status(path, error));
}

// The process writing the run `jsonPath` describes ("probe": {"pid", "host",
// "pid_namespace"}) when this process can look for it: on this host, in this pid
// namespace. 0 otherwise (another machine, a container's own pids, no such fields).
std::int64_t localWriter(const std::string &jsonPath)
{
    try {
        const nlohmann::json j = loadSummaryJson(jsonPath);
        const auto probe = j.find("probe");
        if (probe == j.end() || !probe->is_object())
            return 0;
        const std::int64_t pid = jsonIntegerOr(*probe, "pid", 0);
        const std::string pidNamespace = probe->value("pid_namespace", std::string());
        if (pid <= 0 || pid > std::numeric_limits<pid_t>::max()
            || probe->value("host", std::string()) != thisHost()
            || (!pidNamespace.empty() && pidNamespace != thisPidNamespace()))
            return 0;
        return pid;
    } catch (const std::exception &) {
        return 0; // replaced meanwhile, or fields of other types: not looked for
    }
}

// No such process, or one that has ended and waits to be reaped (a zombie).
bool processGone(std::int64_t pid)
{
    if (::kill(static_cast<pid_t>(pid), 0) != 0)
        return errno == ESRCH;
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(in, text);
    const std::size_t name = text.rfind(')'); // "pid (name) S ..."; a name may hold ')'
    return name != std::string::npos && name + 2 < text.size()
           && (text[name + 2] == 'Z' || text[name + 2] == 'X');
}

std::string besideWithExtension(const std::string &path, const char *extension)
{
    std::filesystem::path p(path);
    p.replace_extension(extension);
    return p.string();
}

} // namespace

RunFollow::RunFollow(const std::string &path)
{
    if (const auto name = rankFileName(path)) {
        m_isSet = true;
        m_files = findRankSet(path, false);
        m_given = static_cast<std::size_t>(name->rank);
        m_merge = std::make_unique<RankMerge>(m_files.worldSize);
    } else {
        // `loaderlab run --csv RUN.csv --json RUN.json` writes RUN.csv.part and
        // RUN.json.part until it ends: RUN.csv, RUN.json or either .part follows it.
        const std::string named = withoutPartSuffix(path).empty() ? path : withoutPartSuffix(path);
        const bool json = std::filesystem::path(named).extension() == ".json";
        RankSetMember member;
        // Its JSON's .part says a run is writing them (beside an earlier run's files
        // under the final names, perhaps); a CSV's .part alone is a killed run's rows.
        const std::string jsonName = json ? named : besideWithExtension(named, ".json");
        const std::string csvName = json ? besideWithExtension(named, ".csv") : named;
        const bool writing = existsHere(jsonName + ".part");
        member.jsonPath = writing ? jsonName + ".part" : jsonName;
        member.csvPath = writing && existsHere(csvName + ".part") ? csvName + ".part" : csvName;
        if (!readRankMember(member, 0))
            throw std::runtime_error(member.jsonPath
                                     + ": no such file: a run being written has its summary JSON "
                                       "from the start");
        m_files.stem = besideWithExtension(named, "");
        m_files.members.push_back(std::move(member));
    }
    for (const RankSetMember &member : m_files.members) {
        Source source;
        source.csv = std::make_unique<TraceCsvFollower>(member.csvPath);
        m_sources.push_back(std::move(source));
    }
    for (std::size_t i = 0; i < m_sources.size(); ++i)
        refreshJson(i);
    // The config the batches are read under: the named file's (every rank has the same).
    m_trace = std::make_shared<TraceLog>();
    for (ConfigVersion v : m_files.members[m_given].report.configVersions) {
        m_workersByVersion.push_back(v.config.loader.numWorkers);
        m_trace->addConfigVersion(std::move(v));
    }
}

RunFollow::~RunFollow() = default;

std::int64_t RunFollow::rowsRead() const
{
    std::int64_t rows = 0;
    for (const Source &s : m_sources)
        rows += s.csv->rows();
    return rows;
}

bool RunFollow::refreshJson(std::size_t i)
{
    Source &s = m_sources[i];
    RankSetMember &m = m_files.members[i];
    if (m.present && m.report.state != "running")
        return false; // the final JSON, read already
    struct stat info
    {
    };
    if (::stat(m.jsonPath.c_str(), &info) != 0) {
        const int error = errno;
        if (error == ENOENT && !m.present)
            return false; // a rank not started yet
        // A run's "RUN.json.part" gone as it ends: its final JSON comes under RUN.json
        // (written afresh, so a moment may pass with neither there).
        if (const std::string final = withoutPartSuffix(m.jsonPath);
            error == ENOENT && !final.empty()) {
            if (::stat(final.c_str(), &info) == 0) {
                m.jsonPath = final;
                return refreshJson(i);
            }
            if (++s.jsonFailures < kJsonRetries)
                return false;
        }
        throw std::runtime_error(m.jsonPath + ": cannot read: " + pathErrorText(m.jsonPath, error)
                                 + (m.present ? " (it was there before)" : ""));
    }
    const auto inode = static_cast<std::uint64_t>(info.st_ino);
    const auto size = static_cast<std::int64_t>(info.st_size);
    const std::int64_t timeNs = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000
                                + info.st_mtim.tv_nsec;
    if (m.present && inode == s.jsonInode && size == s.jsonSize && timeNs == s.jsonTimeNs)
        return false;
    try {
        if (!readRankMember(m, m_isSet ? m_files.worldSize : 0))
            return false;
    } catch (const std::exception &) {
        if (++s.jsonFailures < kJsonRetries)
            return false;
        throw;
    }
    s.jsonFailures = 0;
    s.jsonInode = inode;
    s.jsonSize = size;
    s.jsonTimeNs = timeNs;
    s.writerPid = localWriter(m.jsonPath);
    s.lastChange = std::chrono::steady_clock::now();
    return true;
}

void RunFollow::checkWriter(std::size_t i)
{
    Source &s = m_sources[i];
    const RankSetMember &m = m_files.members[i];
    if (s.writerPid == 0 || !m.present || m.report.state != "running"
        || std::chrono::steady_clock::now() - s.lastChange < kWriterSilence
        || !processGone(s.writerPid))
        return;
    if (refreshJson(i))
        return; // its final JSON (or a new run's), written just before
    throw std::runtime_error(m.jsonPath + ": the writer (pid " + std::to_string(s.writerPid)
                             + ") is gone; the run ended without its summary after "
                             + std::to_string(s.csv->rows()) + " batches");
}

std::vector<TraceRecord> RunFollow::readRows(std::size_t i)
{
    Source &s = m_sources[i];
    const RankSetMember &m = m_files.members[i];
    const bool ended = m.present && m.report.state != "running";
    const std::int64_t before = s.csv->rows();
    std::vector<TraceRecord> rows = s.csv->poll(ended);
    if (!rows.empty()) {
        s.lastChange = std::chrono::steady_clock::now();
        if (m_isSet)
            checkRankRows(rows, m, before + 2);
        s.spans = checkRecordsAgainstReport(rows, m.report, m.csvPath, m.jsonPath, before + 2,
                                            s.spans);
    }
    if (ended && s.csv->caughtUp()) {
        ++s.endPolls;
        if (m.summaryBatches < 0 || s.csv->rows() >= m.summaryBatches || s.endPolls > kEndPolls)
            s.done = true;
    }
    return rows;
}

void RunFollow::append(const std::vector<TraceRecord> &records)
{
    for (const TraceRecord &r : records) {
        const std::size_t v = std::min<std::size_t>(
            static_cast<std::size_t>(std::max(r.configVersion, 0)), m_workersByVersion.size() - 1);
        const int workers = m_workersByVersion[v];
        if (r.worker == kAllWorkers) {
            for (int w = 0; w < workers; ++w)
                m_trace->appendSpan({r.index, w, r.rank, r.loadStartNs, r.loadEndNs});
        } else {
            m_trace->appendSpan({r.index, r.worker, r.rank, r.loadStartNs, r.loadEndNs});
        }
        m_trace->append(r);
    }
}

std::int64_t RunFollow::poll()
{
    if (!m_running)
        return 0;
    try {
        for (std::size_t i = 0; i < m_sources.size(); ++i)
            refreshJson(i);
        if (m_isSet && !m_shiftsSet) {
            // Every rank's start is needed to place any: wait for every JSON.
            for (const RankSetMember &m : m_files.members)
                if (!m.present)
                    return 0;
            setRankShifts(m_files, *m_merge);
            m_shiftsSet = true;
        }
        const std::size_t before = m_trace->size();
        bool done = true;
        for (std::size_t i = 0; i < m_sources.size(); ++i) {
            if (m_sources[i].done)
                continue;
            const std::vector<TraceRecord> rows = readRows(i);
            if (m_isSet) {
                m_merge->add(m_files.members[i].rank, rows, m_files.members[i].csvPath);
                if (m_sources[i].done)
                    m_merge->end(m_files.members[i].rank);
            } else {
                append(rows);
            }
            checkWriter(i);
            done = done && m_sources[i].done;
        }
        if (m_isSet)
            append(m_merge->take());
        if (done)
            finish();
        return static_cast<std::int64_t>(m_trace->size() - before);
    } catch (...) {
        m_running = false;
        throw;
    }
}

RunReport RunFollow::currentReport() const
{
    if (!m_isSet)
        return m_files.members.front().report;
    if (!m_shiftsSet)
        return m_files.members[m_given].report;
    return mergedRankReport(m_files, *m_merge);
}

void RunFollow::finish()
{
    const RunReport report = currentReport();
    const std::size_t versions = m_trace->configVersions().size();
    for (std::size_t v = versions; v < report.configVersions.size(); ++v) {
        m_workersByVersion.push_back(report.configVersions[v].config.loader.numWorkers);
        m_trace->addConfigVersion(report.configVersions[v]);
    }
    for (const TraceMarker &marker : report.markers)
        m_trace->addMarker(marker);
    for (const SkippedSample &skipped : report.skipped)
        m_trace->addSkipped(skipped);
    m_running = false;
}

OpenedRun RunFollow::opened() const
{
    OpenedRun run;
    if (m_isSet) {
        run.csvPath = m_files.stem + ".rank*.csv";
        run.jsonPath = m_files.stem + ".rank*.json";
    } else {
        run.csvPath = m_files.members.front().csvPath;
        run.jsonPath = m_files.members.front().jsonPath;
    }
    run.report = currentReport();
    finishOpenedRun(run, m_trace);
    return run;
}

} // namespace loaderlab
