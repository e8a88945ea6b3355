#include "core/sweep/sweep_results.h"

#include "core/io/atomic_file.h"
#include "core/run/config_diff.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

namespace loaderlab {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char *kFormat = "loaderlab-sweep-1";

bool isCellsFile(const fs::path &p)
{
    const std::string name = p.filename().string();
    return name.starts_with("cells") && name.ends_with(".jsonl");
}

// Keeps `r` as its cell's record unless the cell already has a finished one: a
// finished record is not replaced by a later failure of the same cell. True if kept.
bool keepRecord(std::map<std::int64_t, SweepRecord> &records, const SweepRecord &r)
{
    const auto it = records.find(r.order);
    if (it != records.end() && !it->second.failed())
        return false;
    records[r.order] = r;
    return true;
}

// Reads the records of one cells file; a line that does not parse (cut short by a
// kill) is skipped.
void readCells(const fs::path &file, std::map<std::int64_t, SweepRecord> &records)
{
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        try {
            keepRecord(records, sweepRecordFromJson(json::parse(line)));
        } catch (const std::exception &) {
            // a torn last line: the cell counts as not run
        }
    }
}

// Cuts a last line without its newline (a write cut short), so the next append
// starts on a line of its own.
void cutTornTail(const std::string &file)
{
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (ec || size == 0)
        return;
    std::ifstream in(file, std::ios::binary);
    in.seekg(-1, std::ios::end);
    if (in.get() == '\n')
        return; // the usual case: only the last byte is read
    in.seekg(0);
    const std::string content((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    const auto keep = content.rfind('\n');
    fs::resize_file(file, keep == std::string::npos ? 0 : keep + 1, ec);
    if (ec)
        throw std::runtime_error("cannot repair " + file + ": " + ec.message());
}

json definitionFile(const SweepDefinition &definition)
{
    return {{"format", kFormat},
            {"fingerprint", sweepFingerprint(definition)},
            {"definition", toJson(definition)}};
}

SweepDefinition readDefinition(const std::string &dir)
{
    const std::string path = (fs::path(dir) / "sweep.json").string();
    std::ifstream in(path);
    if (!in)
        throw std::invalid_argument(dir + ": not a sweep results folder (no sweep.json)");
    try {
        const json j = json::parse(in);
        if (j.value("format", "") != kFormat)
            throw std::invalid_argument("not a " + std::string(kFormat) + " file");
        return sweepFromJson(j.at("definition"));
    } catch (const std::exception &e) {
        throw std::invalid_argument(path + ": " + e.what());
    }
}

} // namespace

double SweepRecord::figure(const std::string &name) const
{
    if (!summary.is_object())
        return 0.0;
    if (name == "wait_p95_ms") {
        const auto waits = summary.find("wait_ms");
        return waits != summary.end() && waits->is_object() ? waits->value("p95", 0.0) : 0.0;
    }
    const auto it = summary.find(name);
    return it != summary.end() && it->is_number() ? it->get<double>() : 0.0;
}

double SweepRecord::endToEndSeconds() const
{
    return figure("wall_seconds");
}

double SweepRecord::samplesPerSecond() const
{
    return figure("samples_per_sec_mean");
}

json toJson(const SweepRecord &r)
{
    json j = {{"order", r.order},    {"grid", r.grid},   {"repeat", r.repeat},
              {"values", r.values},  {"state", r.state}, {"cell_seconds", r.cellSeconds},
              {"summary", r.summary}};
    if (!r.error.empty())
        j["error"] = r.error;
    if (!r.trace.empty())
        j["trace"] = r.trace;
    return j;
}

SweepRecord sweepRecordFromJson(const json &j)
{
    SweepRecord r;
    r.order = j.at("order").get<std::int64_t>();
    r.grid = j.at("grid").get<std::int64_t>();
    r.repeat = j.at("repeat").get<int>();
    r.values = j.at("values").get<std::vector<json>>();
    r.state = j.at("state").get<std::string>();
    r.error = j.value("error", "");
    r.cellSeconds = j.value("cell_seconds", 0.0);
    r.summary = j.value("summary", json());
    r.trace = j.value("trace", "");
    return r;
}

std::string sweepDifference(const SweepDefinition &a, const SweepDefinition &b)
{
    if (sweepFingerprint(a) == sweepFingerprint(b))
        return {};
    const auto changes = diffConfigs(a.base, b.base);
    if (!changes.empty()) {
        std::string text = "the base config differs:";
        for (std::size_t i = 0; i < changes.size() && i < 3; ++i)
            text += " " + changes[i].field + " " + changes[i].before + " vs " + changes[i].after
                    + (i + 1 < changes.size() && i < 2 ? "," : "");
        return text + (changes.size() > 3 ? ", ..." : "");
    }
    if (a.axes.size() != b.axes.size())
        return "the axes differ: " + std::to_string(a.axes.size()) + " vs "
               + std::to_string(b.axes.size()) + " axes";
    for (std::size_t i = 0; i < a.axes.size(); ++i) {
        if (a.axes[i].key != b.axes[i].key || a.axes[i].values != b.axes[i].values)
            return "axis " + std::to_string(i + 1) + " differs: " + a.axes[i].key + "="
                   + json(a.axes[i].values).dump() + " vs " + b.axes[i].key + "="
                   + json(b.axes[i].values).dump();
    }
    if (a.repeats != b.repeats)
        return "repeats differ: " + std::to_string(a.repeats) + " vs " + std::to_string(b.repeats);
    return "the budget differs: " + sweepBudgetText(a.budget) + " vs " + sweepBudgetText(b.budget);
}

namespace {

// The records of every cells*.jsonl in `dir`.
std::map<std::int64_t, SweepRecord> readAllCells(const std::string &dir)
{
    std::map<std::int64_t, SweepRecord> records;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        if (entry.is_regular_file() && isCellsFile(entry.path()))
            readCells(entry.path(), records);
    }
    return records;
}

} // namespace

std::map<std::int64_t, SweepRecord> readSweepRecords(const std::string &dir,
                                                     SweepDefinition *definition)
{
    const SweepDefinition d = readDefinition(dir);
    if (definition)
        *definition = d;
    return readAllCells(dir);
}

SweepResults::SweepResults(std::string dir, const SweepDefinition &definition, SweepShard shard)
    : m_dir(std::move(dir))
{
    std::error_code ec;
    fs::create_directories(fs::path(m_dir) / "traces", ec);
    if (ec)
        throw std::invalid_argument(m_dir + ": cannot create the results folder: " + ec.message());
    const std::string definitionPath = (fs::path(m_dir) / "sweep.json").string();
    if (fs::exists(definitionPath)) {
        const SweepDefinition stored = readDefinition(m_dir);
        if (const std::string why = sweepDifference(stored, definition); !why.empty())
            throw std::invalid_argument(m_dir + ": holds the results of another sweep (" + why
                                        + "); give another --out folder");
    } else {
        try {
            writeFileAtomically(definitionPath, [&](std::ostream &out) {
                out << definitionFile(definition).dump(2) << '\n';
            });
        } catch (const std::exception &e) {
            throw std::invalid_argument(e.what());
        }
    }
    m_records = readAllCells(m_dir);
    m_cellsFile = (fs::path(m_dir)
                   / (shard.count > 1 ? "cells-" + std::to_string(shard.index + 1) + "-of-"
                                            + std::to_string(shard.count) + ".jsonl"
                                      : std::string("cells.jsonl")))
                      .string();
    cutTornTail(m_cellsFile);
}

bool SweepResults::finished(std::int64_t order) const
{
    const auto it = m_records.find(order);
    return it != m_records.end() && !it->second.failed();
}

std::string SweepResults::traceName(std::int64_t order)
{
    char name[48];
    std::snprintf(name, sizeof name, "traces/cell-%06lld.csv", static_cast<long long>(order));
    return name;
}

std::string SweepResults::tracePath(std::int64_t order) const
{
    return (fs::path(m_dir) / traceName(order)).string();
}

void SweepResults::append(const SweepRecord &record)
{
    const std::string line = toJson(record).dump() + "\n";
    const int fd = ::open(m_cellsFile.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        throw std::runtime_error("cannot write " + m_cellsFile + ": " + std::strerror(errno));
    // One write: a kill leaves the line whole or cut, never two lines mixed.
    const ssize_t written = ::write(fd, line.data(), line.size());
    const int error = errno;
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (written != static_cast<ssize_t>(line.size()) || !synced)
        throw std::runtime_error(
            "cannot write " + m_cellsFile + ": "
            + (written < 0 ? std::strerror(error) : "short write (disk full?)"));
    keepRecord(m_records, record);
}

std::int64_t mergeSweepResults(const std::string &out, const std::vector<std::string> &dirs)
{
    if (dirs.empty())
        throw std::invalid_argument("sweep merge: no folders to merge");
    SweepDefinition definition;
    std::map<std::int64_t, SweepRecord> merged = readSweepRecords(dirs.front(), &definition);
    std::map<std::int64_t, std::string> from;
    for (const auto &[order, r] : merged)
        from[order] = dirs.front();
    for (std::size_t i = 1; i < dirs.size(); ++i) {
        SweepDefinition other;
        const auto records = readSweepRecords(dirs[i], &other);
        if (const std::string why = sweepDifference(definition, other); !why.empty())
            throw std::invalid_argument(dirs[i] + ": not the same sweep as " + dirs.front() + " ("
                                        + why + ")");
        for (const auto &[order, r] : records) {
            if (keepRecord(merged, r))
                from[order] = dirs[i];
        }
    }
    std::error_code ec;
    fs::create_directories(fs::path(out) / "traces", ec);
    if (ec)
        throw std::invalid_argument(out + ": cannot create the folder: " + ec.message());
    for (const auto &[order, r] : merged) {
        if (r.trace.empty() || fs::equivalent(from[order], out, ec))
            continue;
        fs::copy_file(fs::path(from[order]) / r.trace, fs::path(out) / r.trace,
                      fs::copy_options::overwrite_existing, ec);
        if (ec)
            throw std::runtime_error("cannot copy " + (fs::path(from[order]) / r.trace).string()
                                     + ": " + ec.message());
    }
    writeFileAtomically((fs::path(out) / "sweep.json").string(),
                        [&](std::ostream &o) { o << definitionFile(definition).dump(2) << '\n'; });
    writeFileAtomically((fs::path(out) / "cells.jsonl").string(), [&](std::ostream &o) {
        for (const auto &[order, r] : merged)
            o << toJson(r).dump() << '\n';
    });
    // Shard files of the output folder itself are now in cells.jsonl.
    for (const auto &entry : fs::directory_iterator(out, ec)) {
        if (isCellsFile(entry.path()) && entry.path().filename() != "cells.jsonl")
            fs::remove(entry.path(), ec);
    }
    return static_cast<std::int64_t>(merged.size());
}

} // namespace loaderlab
