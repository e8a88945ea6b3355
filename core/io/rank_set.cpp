#include "core/io/rank_set.h"

#include "core/io/trace_csv.h"
#include "core/system/json_integer.h"
#include "core/system/regular_file.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <stdexcept>

namespace loaderlab {

using nlohmann::json;

namespace {

// The time a batch was consumed: its step's end, or its delivery without a step.
std::int64_t consumedNs(const TraceRecord &r)
{
    return r.computeEndNs > 0 ? r.computeEndNs : r.deliveryNs;
}

// Moves the times of a row by `shift`. The durations (read, decode, transform,
// collate) stay; a stage not taken (start and end 0: no pinning, no copy, no step)
// stays 0 so that it still reads as not taken.
void shiftRecord(TraceRecord &r, std::int64_t shift)
{
    for (std::int64_t *t :
         {&r.dispatchNs, &r.loadStartNs, &r.loadEndNs, &r.readyNs, &r.requestNs, &r.deliveryNs})
        *t += shift;
    const auto pair = [shift](std::int64_t &start, std::int64_t &end) {
        if (start != 0 || end != 0) {
            start += shift;
            end += shift;
        }
    };
    pair(r.pinStartNs, r.pinEndNs);
    pair(r.copyStartNs, r.copyEndNs);
    pair(r.computeStartNs, r.computeEndNs);
    pair(r.syncStartNs, r.syncEndNs);
    if (r.exchangeEndNs != 0)
        r.exchangeEndNs += shift;
}

bool isRankName(const std::string &name, const std::string &base, int &rank)
{
    const std::string prefix = base + ".rank";
    if (name.size() <= prefix.size() + 5 || name.compare(0, prefix.size(), prefix) != 0
        || name.compare(name.size() - 5, 5, ".json") != 0)
        return false;
    const char *first = name.data() + prefix.size();
    const char *last = name.data() + name.size() - 5;
    const auto [end, ec] = std::from_chars(first, last, rank);
    return ec == std::errc() && end == last && rank >= 0;
}

} // namespace

std::optional<RankFileName> rankFileName(const std::string &path)
{
    const std::filesystem::path p(path);
    const std::string extension = p.extension().string();
    if (extension != ".csv" && extension != ".json")
        return std::nullopt;
    const std::string stem = p.stem().string(); // "<base>.rank<r>"
    const auto dot = stem.rfind(".rank");
    if (dot == std::string::npos || dot == 0)
        return std::nullopt;
    const char *first = stem.data() + dot + 5;
    const char *last = stem.data() + stem.size();
    int rank = 0;
    const auto [end, ec] = std::from_chars(first, last, rank);
    if (first == last || ec != std::errc() || end != last || rank < 0)
        return std::nullopt;
    return RankFileName{(p.parent_path() / stem.substr(0, dot)).string(), rank};
}

std::string rankCsvPath(const std::string &stem, int rank)
{
    return stem + ".rank" + std::to_string(rank) + ".csv";
}

std::string rankJsonPath(const std::string &stem, int rank)
{
    return stem + ".rank" + std::to_string(rank) + ".json";
}

ProbeInfo probeInfoFromJson(const json &j, const std::string &source)
{
    const auto probe = j.is_object() ? j.find("probe") : j.end();
    if (probe == j.end() || !probe->is_object())
        throw std::runtime_error(source
                                 + ": no \"probe\" object (rank, world_size, start_unix_ns): not "
                                   "a rank of a run recorded by loaderlab_probe");
    ProbeInfo info;
    try {
        constexpr std::int64_t kLeast = std::numeric_limits<int>::min();
        constexpr std::int64_t kMost = std::numeric_limits<int>::max();
        info.rank = static_cast<int>(jsonInteger(probe->at("rank"), "probe: rank", kLeast, kMost));
        info.worldSize = static_cast<int>(
            jsonInteger(probe->at("world_size"), "probe: world_size", kLeast, kMost));
        info.startUnixNs = jsonInteger(probe->at("start_unix_ns"), "probe: start_unix_ns");
        info.host = probe->value("host", std::string());
    } catch (const std::exception &e) {
        throw std::runtime_error(source + ": probe: " + e.what());
    }
    if (info.worldSize < 1 || info.worldSize > kMaxTraceCsvRanks || info.rank < 0
        || info.rank >= info.worldSize || info.startUnixNs < 0)
        throw std::runtime_error(source + ": probe: rank " + std::to_string(info.rank)
                                 + " of world_size " + std::to_string(info.worldSize)
                                 + " (world_size 1.." + std::to_string(kMaxTraceCsvRanks)
                                 + ", rank below it, start_unix_ns >= 0)");
    return info;
}

bool readRankMember(RankSetMember &member, int worldSize)
{
    if (regularFileProblem(member.jsonPath) == "no such file or directory")
        return false;
    const json j = loadSummaryJson(member.jsonPath);
    RunReport report = runReportFromJson(j, member.jsonPath);
    // A run of one process (worldSize 0) has no ranks to agree with.
    const ProbeInfo probe = worldSize == 0 ? ProbeInfo{} : probeInfoFromJson(j, member.jsonPath);
    if (worldSize > 0) {
        if (probe.worldSize != worldSize)
            throw std::runtime_error(member.jsonPath + ": world_size "
                                     + std::to_string(probe.worldSize) + ", but the set's is "
                                     + std::to_string(worldSize)
                                     + " (files of different runs under one name?)");
        if (probe.rank != member.rank)
            throw std::runtime_error(member.jsonPath + ": probe says rank "
                                     + std::to_string(probe.rank) + ", the file name rank "
                                     + std::to_string(member.rank));
        // The ranks are the devices of one data-parallel run.
        report.config.devices = worldSize;
        for (ConfigVersion &v : report.configVersions)
            v.config.devices = worldSize;
    }
    std::int64_t batches = -1;
    if (const auto summary = j.find("summary"); summary != j.end() && summary->is_object())
        if (const auto b = summary->find("batches"); b != summary->end() && b->is_number_integer())
            batches = b->get<std::int64_t>();
    member.report = std::move(report);
    member.probe = probe;
    member.summaryBatches = batches;
    member.present = true;
    return true;
}

RankSet findRankSet(const std::string &path, bool requireAll)
{
    const std::optional<RankFileName> name = rankFileName(path);
    if (!name)
        throw std::runtime_error(path + ": not a rank's file (<name>.rank<r>.csv or .json)");
    RankSet set;
    set.stem = name->stem;
    const std::string given = rankJsonPath(name->stem, name->rank);
    if (const std::string problem = regularFileProblem(given); !problem.empty())
        throw std::runtime_error(given + ": cannot read: " + problem);
    set.worldSize = probeInfoFromJson(loadSummaryJson(given), given).worldSize;
    for (int r = 0; r < set.worldSize; ++r) {
        RankSetMember member;
        member.rank = r;
        member.csvPath = rankCsvPath(set.stem, r);
        member.jsonPath = rankJsonPath(set.stem, r);
        if (!readRankMember(member, set.worldSize) && requireAll)
            throw std::runtime_error(member.jsonPath + ": no such file: rank " + std::to_string(r)
                                     + " of the " + std::to_string(set.worldSize) + " ranks of "
                                     + given);
        set.members.push_back(std::move(member));
    }
    // A rank past the world size: a file of another run under the same name.
    const std::filesystem::path stem(set.stem);
    const std::filesystem::path dir = stem.has_parent_path() ? stem.parent_path() : ".";
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator(dir, ec)) {
        int rank = 0;
        if (isRankName(entry.path().filename().string(), stem.filename().string(), rank)
            && rank >= set.worldSize) {
            RankSetMember extra;
            extra.rank = rank;
            extra.jsonPath = rankJsonPath(set.stem, rank);
            readRankMember(extra, set.worldSize); // throws: its world size or rank differs
        }
    }
    return set;
}

void setRankShifts(const RankSet &set, RankMerge &merge)
{
    std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
    const RankSetMember *first = nullptr;
    for (const RankSetMember &m : set.members) {
        if (m.probe.startUnixNs < earliest) {
            earliest = m.probe.startUnixNs;
            first = &m;
        }
    }
    for (const RankSetMember &m : set.members) {
        const std::int64_t shift = m.probe.startUnixNs - earliest;
        if (shift > kMaxTraceTimeNs)
            throw std::runtime_error(m.jsonPath + ": started more than a year after "
                                     + first->jsonPath + " (start_unix_ns): not ranks of one run");
        merge.setShift(m.rank, shift);
    }
}

void checkRankRows(const std::vector<TraceRecord> &rows, const RankSetMember &member,
                   std::int64_t firstLine)
{
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].rank != member.rank)
            throw std::runtime_error(member.csvPath + ": line "
                                     + std::to_string(firstLine + static_cast<std::int64_t>(i))
                                     + ": rank " + std::to_string(rows[i].rank)
                                     + " in the file of rank " + std::to_string(member.rank));
}

RankMerge::RankMerge(int ranks)
    : m_lanes(static_cast<std::size_t>(std::max(ranks, 1)))
{
}

void RankMerge::setShift(int rank, std::int64_t shiftNs)
{
    m_lanes.at(static_cast<std::size_t>(rank)).shiftNs = shiftNs;
}

std::int64_t RankMerge::shift(int rank) const
{
    return m_lanes.at(static_cast<std::size_t>(rank)).shiftNs;
}

void RankMerge::add(int rank, const std::vector<TraceRecord> &rows, const std::string &source)
{
    Lane &lane = m_lanes.at(static_cast<std::size_t>(rank));
    for (TraceRecord r : rows) {
        shiftRecord(r, lane.shiftNs);
        for (const std::int64_t t :
             {r.dispatchNs, r.loadStartNs, r.loadEndNs, r.readyNs, r.pinStartNs, r.pinEndNs,
              r.requestNs, r.deliveryNs, r.copyStartNs, r.copyEndNs, r.computeStartNs,
              r.computeEndNs, r.syncStartNs, r.syncEndNs, r.exchangeEndNs})
            if (t > kMaxTraceTimeNs)
                throw std::runtime_error(source + ": batch " + std::to_string(r.index)
                                         + ": a time past a year once moved to the set's start");
        lane.lastKey = std::max(lane.lastKey, consumedNs(r));
        lane.pending.push_back(r);
    }
}

void RankMerge::end(int rank)
{
    m_lanes.at(static_cast<std::size_t>(rank)).ended = true;
}

std::vector<TraceRecord> RankMerge::take()
{
    // Up to here every rank still writing has sent its rows.
    std::int64_t certain = std::numeric_limits<std::int64_t>::max();
    for (const Lane &lane : m_lanes)
        if (!lane.ended)
            certain = std::min(certain, lane.lastKey);
    std::vector<TraceRecord> out;
    while (true) {
        Lane *next = nullptr;
        for (Lane &lane : m_lanes)
            if (!lane.pending.empty()
                && (!next || consumedNs(lane.pending.front()) < consumedNs(next->pending.front())))
                next = &lane;
        if (!next || consumedNs(next->pending.front()) > certain)
            break;
        TraceRecord r = next->pending.front();
        next->pending.pop_front();
        next->placed.emplace_back(r.index, m_next);
        r.index = m_next++;
        out.push_back(r);
    }
    return out;
}

std::int64_t RankMerge::mergedIndex(int rank, std::int64_t batch) const
{
    const auto &placed = m_lanes.at(static_cast<std::size_t>(rank)).placed;
    const auto it = std::lower_bound(placed.begin(), placed.end(), batch,
                                     [](const auto &p, std::int64_t b) { return p.first < b; });
    return it == placed.end() ? m_next : it->second;
}

RunReport mergedRankReport(const RankSet &set, const RankMerge &merge)
{
    const RankSetMember &first = set.members.front();
    RunReport out = first.report;
    const std::int64_t shift0 = merge.shift(0);
    for (ConfigVersion &v : out.configVersions) {
        v.firstBatch = v.version == 0 ? 0 : merge.mergedIndex(0, v.firstBatch);
        v.timeNs = v.version == 0 ? 0 : v.timeNs + shift0;
    }
    for (TraceMarker &m : out.markers) {
        m.batch = merge.mergedIndex(0, m.batch);
        m.timeNs += shift0;
    }
    out.skipped.clear();
    out.summary.peakMemoryBytes = 0;
    out.summary.skippedSamples = 0;
    bool running = false;
    bool stopped = false;
    for (const RankSetMember &m : set.members) {
        if (!m.present)
            continue;
        for (SkippedSample s : m.report.skipped) {
            s.batch = merge.mergedIndex(m.rank, s.batch);
            out.skipped.push_back(std::move(s));
        }
        out.summary.peakMemoryBytes = std::max(out.summary.peakMemoryBytes,
                                               m.report.summary.peakMemoryBytes);
        out.summary.skippedSamples += m.report.summary.skippedSamples;
        running = running || m.report.state == "running";
        stopped = stopped || m.report.state == "stopped";
        if (m.report.state == "failed" && out.state != "failed") {
            out.state = "failed";
            out.error = "rank " + std::to_string(m.rank) + ": " + m.report.error;
        }
    }
    std::stable_sort(
        out.skipped.begin(), out.skipped.end(),
        [](const SkippedSample &a, const SkippedSample &b) { return a.batch < b.batch; });
    if (out.state != "failed")
        out.state = running ? "running" : stopped ? "stopped" : first.report.state;
    return out;
}

OpenedRun openRankSet(const std::string &path)
{
    const RankSet set = findRankSet(path, true);
    RankMerge merge(set.worldSize);
    setRankShifts(set, merge);
    std::int64_t spans = 0;
    for (const RankSetMember &m : set.members) {
        const std::vector<TraceRecord> rows = loadTraceCsv(m.csvPath);
        checkRankRows(rows, m, 2);
        spans = checkRecordsAgainstReport(rows, m.report, m.csvPath, m.jsonPath, 2, spans);
        merge.add(m.rank, rows, m.csvPath);
        merge.end(m.rank);
    }
    const std::vector<TraceRecord> records = merge.take();
    OpenedRun run;
    run.csvPath = set.stem + ".rank*.csv";
    run.jsonPath = set.stem + ".rank*.json";
    run.report = mergedRankReport(set, merge);
    buildOpenedRun(run, records);
    return run;
}

} // namespace loaderlab
