#include "core/sweep/sweep_results.h"

#include "core/config/config_diff.h"
#include "core/system/atomic_file.h"
#include "core/system/regular_file.h"
#include "core/system/safe_json.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace loaderlab {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

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
    if (it != records.end() && it->second.finished())
        return false;
    records[r.order] = r;
    return true;
}

// A regular file, not a symbolic link, that this process may write; "" if missing.
std::string writableFileProblem(const std::string &path)
{
    struct stat st
    {
    };
    if (::lstat(path.c_str(), &st) != 0)
        return errno == ENOENT ? std::string() : std::strerror(errno);
    if (S_ISLNK(st.st_mode))
        return "is a symbolic link; the sweep writes only its own regular files";
    if (!S_ISREG(st.st_mode))
        return regularFileProblem(path);
    if (::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0)
        return std::string("cannot be written: ") + std::strerror(errno);
    return {};
}

// Creates the folder and its traces/ so that the lock can be taken in it.
const std::string &createdFolder(const std::string &dir)
{
    std::error_code ec;
    fs::create_directories(fs::path(dir) / "traces", ec);
    if (ec)
        throw std::invalid_argument(dir + ": cannot create the results folder: " + ec.message());
    return dir;
}

// The records of every cells*.jsonl in `dir`, each checked against `definition`;
// `complete` gets each file's bytes up to its last whole line.
std::map<std::int64_t, SweepRecord> readAllCells(const std::string &dir,
                                                 const SweepDefinition &definition,
                                                 std::map<std::string, std::int64_t> *complete)
{
    std::map<std::int64_t, SweepRecord> records;
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        if (isCellsFile(entry.path()))
            files.push_back(entry.path().string());
    }
    if (ec)
        throw std::invalid_argument(dir + ": cannot list the results folder: " + ec.message());
    std::sort(files.begin(), files.end()); // the same order, hence the same records, each time
    std::int64_t budget = kMaxSweepCellsBytes;
    for (const std::string &file : files) {
        const std::int64_t whole = readSweepCellsFile(
            file, definition, budget, [&](SweepRecord &&r) { keepRecord(records, r); });
        if (complete)
            (*complete)[file] = whole;
    }
    return records;
}

} // namespace

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

std::map<std::int64_t, SweepRecord> readSweepRecords(const std::string &dir,
                                                     SweepDefinition *definition)
{
    const SweepDefinition d = readSweepDefinitionFile((fs::path(dir) / "sweep.json").string());
    if (definition)
        *definition = d;
    return readAllCells(dir, d, nullptr);
}

SweepResults::SweepResults(std::string dir, const SweepDefinition &definition, SweepShard shard)
    : m_dir(std::move(dir))
    , m_lock(createdFolder(m_dir), shard)
{
    const std::string definitionPath = (fs::path(m_dir) / "sweep.json").string();
    std::error_code ec;
    if (fs::symlink_status(definitionPath, ec).type() != fs::file_type::not_found) {
        const SweepDefinition stored = readSweepDefinitionFile(definitionPath);
        if (const std::string why = sweepDifference(stored, definition); !why.empty())
            throw std::invalid_argument(m_dir + ": holds the results of another sweep (" + why
                                        + "); give another --out folder");
    } else {
        try {
            writeFileAtomically(definitionPath, [&](std::ostream &out) {
                out << sweepDefinitionFileJson(definition).dump(2) << '\n';
            });
        } catch (const std::exception &e) {
            throw std::invalid_argument(e.what());
        }
    }
    // Everything a cell writes is checked before the first one runs.
    const std::string traces = (fs::path(m_dir) / "traces").string();
    if (::faccessat(AT_FDCWD, traces.c_str(), W_OK | X_OK, AT_EACCESS) != 0)
        throw std::invalid_argument(traces
                                    + ": cannot write the traces there: " + std::strerror(errno));
    m_cellsFile = (fs::path(m_dir)
                   / (shard.count > 1 ? "cells-" + std::to_string(shard.index + 1) + "-of-"
                                            + std::to_string(shard.count) + ".jsonl"
                                      : std::string("cells.jsonl")))
                      .string();
    if (const std::string problem = writableFileProblem(m_cellsFile); !problem.empty())
        throw std::invalid_argument(m_cellsFile + ": " + problem);
    std::map<std::string, std::int64_t> complete;
    m_records = readAllCells(m_dir, definition, &complete);
    // A last line cut short (a kill in the middle of a write) is cut off, so the next
    // append starts on a line of its own; this file is ours alone while the lock holds.
    if (const auto it = complete.find(m_cellsFile); it != complete.end()) {
        const auto size = static_cast<std::int64_t>(fs::file_size(m_cellsFile, ec));
        if (!ec && size > it->second)
            fs::resize_file(m_cellsFile, static_cast<std::uintmax_t>(it->second), ec);
        if (ec)
            throw std::invalid_argument("cannot repair " + m_cellsFile + ": " + ec.message());
    }
}

bool SweepResults::finished(std::int64_t order) const
{
    const auto it = m_records.find(order);
    return it != m_records.end() && it->second.finished();
}

std::string SweepResults::tracePath(std::int64_t order) const
{
    return (fs::path(m_dir) / traceName(order)).string();
}

void SweepResults::append(const SweepRecord &record)
{
    const std::string line = toSafeJson(toJson(record)).dump() + "\n";
    // O_NONBLOCK: a FIFO put here fails at once instead of blocking the sweep for ever;
    // O_NOFOLLOW: a symbolic link does not send the line elsewhere.
    const int fd = ::open(m_cellsFile.c_str(),
                          O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
                          0644);
    if (fd < 0)
        throw std::runtime_error("cannot write " + m_cellsFile + ": " + std::strerror(errno));
    const FdCloser closer(fd);
    struct stat st
    {
    };
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        throw std::runtime_error("cannot write " + m_cellsFile + ": not a regular file");
    // One write: a kill leaves the line whole or cut, never two lines mixed.
    const ssize_t written = ::write(fd, line.data(), line.size());
    const int error = errno;
    const bool synced = ::fsync(fd) == 0;
    if (written != static_cast<ssize_t>(line.size()) || !synced)
        throw std::runtime_error(
            "cannot write " + m_cellsFile + ": "
            + (written < 0 ? std::strerror(error) : "short write (disk full?)"));
    keepRecord(m_records, record);
}

namespace {

bool isLockFile(const std::string &name)
{
    return name == kSweepLockName || (name.starts_with("cells-") && name.ends_with(".lock"));
}

// What `out` holds that a merge would replace or mix with: "" when it is missing or
// empty (its lock file and an empty traces/ aside).
std::string mergeOutProblem(const std::string &out, const SweepDefinition &definition)
{
    std::error_code ec;
    const auto type = fs::symlink_status(out, ec).type();
    if (type == fs::file_type::not_found)
        return {};
    if (!fs::is_directory(out, ec))
        return "is not a folder";
    std::string first;
    for (const auto &entry : fs::directory_iterator(out, ec)) {
        const std::string name = entry.path().filename().string();
        if (isLockFile(name) || (name == "traces" && fs::is_empty(entry.path(), ec) && !ec))
            continue;
        first = name;
        break;
    }
    if (ec)
        return "cannot be listed: " + ec.message();
    if (first.empty())
        return {};
    SweepDefinition stored;
    try {
        stored = readSweepDefinitionFile((fs::path(out) / "sweep.json").string());
    } catch (const std::exception &) {
        return "is not empty (it holds " + first + ")";
    }
    if (const std::string why = sweepDifference(stored, definition); !why.empty())
        return "holds the results of another sweep (" + why + ")";
    return "holds results of this sweep that are not among the folders merged";
}

// Copies a trace (a regular file) to `to`, atomically.
void copyTrace(const std::string &from, const std::string &to)
{
    std::string reason;
    const int fd = openRegularFile(from, reason);
    if (fd < 0)
        throw std::invalid_argument("cannot copy " + from + ": " + reason);
    const FdCloser closer(fd);
    writeFileAtomically(to, [&](std::ostream &o) {
        char buffer[1 << 16];
        for (;;) {
            const ssize_t n = ::read(fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                throw std::runtime_error("cannot read " + from + ": " + std::strerror(errno));
            if (n == 0)
                break;
            o.write(buffer, n);
        }
    });
}

} // namespace

std::int64_t mergeSweepResults(const std::string &out, const std::vector<std::string> &dirs)
{
    if (dirs.empty())
        throw std::invalid_argument("sweep merge: no folders to merge");
    const SweepDefinition definition = readSweepDefinitionFile(
        (fs::path(dirs.front()) / "sweep.json").string());
    bool outIsInput = false;
    for (const std::string &dir : dirs)
        outIsInput = outIsInput || sameFile(dir, out);
    const auto refuseOut = [&] {
        if (outIsInput)
            return;
        if (const std::string why = mergeOutProblem(out, definition); !why.empty())
            throw std::invalid_argument(
                out + ": " + why
                + "; sweep merge writes into a new or empty folder, or into one of the folders "
                  "it merges (name it among them)");
    };
    refuseOut(); // before anything is written there
    const SweepFolderLock lock(createdFolder(out));
    refuseOut(); // and again under the lock: another merge may have begun meanwhile

    std::map<std::int64_t, SweepRecord> merged;
    std::map<std::int64_t, std::string> from;
    for (const std::string &dir : dirs) {
        SweepDefinition other;
        const auto records = readSweepRecords(dir, &other);
        if (const std::string why = sweepDifference(definition, other); !why.empty())
            throw std::invalid_argument(dir + ": not the same sweep as " + dirs.front() + " (" + why
                                        + ")");
        for (const auto &[order, r] : records) {
            if (keepRecord(merged, r))
                from[order] = dir;
        }
    }
    // Every trace name is sweepTraceName(order) (checked when read): it stays in traces/.
    for (const auto &[order, r] : merged) {
        if (!r.trace.empty() && !sameFile(from[order], out))
            copyTrace((fs::path(from[order]) / r.trace).string(),
                      (fs::path(out) / r.trace).string());
    }
    writeFileAtomically((fs::path(out) / "sweep.json").string(), [&](std::ostream &o) {
        o << sweepDefinitionFileJson(definition).dump(2) << '\n';
    });
    writeFileAtomically((fs::path(out) / "cells.jsonl").string(), [&](std::ostream &o) {
        for (const auto &[order, r] : merged)
            o << toSafeJson(toJson(r)).dump() << '\n';
    });
    // Shard files of the output folder itself are now in cells.jsonl.
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(out, ec)) {
        if (isCellsFile(entry.path()) && entry.path().filename() != "cells.jsonl")
            fs::remove(entry.path(), ec);
    }
    return static_cast<std::int64_t>(merged.size());
}

std::string sweepFolderFileProblem(const std::string &dir, const std::string &path)
{
    std::error_code ec;
    const fs::path folder = fs::weakly_canonical(fs::absolute(dir), ec);
    const fs::path file = fs::weakly_canonical(fs::absolute(path), ec);
    if (sameFile(dir, path) || file == folder)
        return "is the results folder " + dir;
    // By name, also for files not made yet; through any symbolic link to the folder.
    const fs::path relative = file.lexically_relative(folder);
    if (!relative.empty() && *relative.begin() != ".." && relative != ".") {
        const std::string first = relative.begin()->string();
        const std::string name = relative.filename().string();
        const bool top = std::distance(relative.begin(), relative.end()) == 1;
        if (first == "traces"
            || (top
                && (name.starts_with("sweep.json") || isLockFile(name)
                    || (name.starts_with("cells") && name.find(".jsonl") != std::string::npos)
                    || (name.starts_with("slurm-") && name.ends_with(".out")))))
            return "is " + (folder / relative).string() + ", a file of the sweep's results folder";
    }
    // By device and inode: a hard link, or a path through a bind mount.
    for (const fs::path &sub : {fs::path(dir), fs::path(dir) / "traces"}) {
        for (const auto &entry : fs::directory_iterator(sub, ec)) {
            if (sameFile(entry.path().string(), path))
                return "is the same file as " + entry.path().string()
                       + ", a file of the sweep's results folder";
        }
    }
    return {};
}

} // namespace loaderlab
