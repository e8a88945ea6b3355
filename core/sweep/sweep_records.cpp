#include "core/sweep/sweep_records.h"

#include "core/config/config_fields.h"
#include "core/config/run_config_json.h"
#include "core/io/summary_json.h"
#include "core/system/regular_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <unistd.h>

namespace loaderlab {
namespace {

using nlohmann::json;

constexpr const char *kFormat = "loaderlab-sweep-1";

// The figures a sweep reads from a summary (SweepRecord::figure, the analysis).
constexpr const char *kFigures[] = {"wall_seconds", "samples_per_sec_mean",
                                    "first_batch_latency_ms", "input_bound_share"};

std::string shortDump(const json &value)
{
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > 80)
        text = text.substr(0, 77) + "...";
    return text;
}

std::int64_t wholeNumber(const json &j, const char *key, std::int64_t max)
{
    const auto it = j.find(key);
    if (it == j.end())
        throw std::invalid_argument(std::string(key) + ": missing");
    if (it->is_number_unsigned()) {
        if (it->get<std::uint64_t>() <= static_cast<std::uint64_t>(max))
            return static_cast<std::int64_t>(it->get<std::uint64_t>());
    } else if (it->is_number_integer()) {
        const auto value = it->get<std::int64_t>();
        if (value >= 0 && value <= max)
            return value;
    }
    throw std::invalid_argument(std::string(key) + ": expected a whole number from 0 to "
                                + std::to_string(max) + ", not " + shortDump(*it));
}

// A figure: absent, null (how a NaN is written) or a number >= 0.
void checkFigure(const json &object, const char *key, const std::string &where)
{
    const auto it = object.find(key);
    if (it == object.end() || it->is_null())
        return;
    if (!it->is_number() || !(it->get<double>() >= 0.0))
        throw std::invalid_argument(where + key + ": expected a number >= 0, not "
                                    + shortDump(*it));
}

// A summary (`name`: "summary" or "predicted"): an object whose figures are numbers.
void checkSummary(const json &summary, const char *name, bool required)
{
    if (summary.is_null() && !required)
        return;
    if (!summary.is_object())
        throw std::invalid_argument(std::string(name) + ": expected "
                                    + (required ? "an object" : "null or an object") + ", not "
                                    + shortDump(summary));
    const std::string where = std::string(name) + ".";
    for (const char *key : kFigures)
        checkFigure(summary, key, where);
    const auto waits = summary.find("wait_ms");
    if (waits == summary.end() || waits->is_null())
        return;
    if (!waits->is_object())
        throw std::invalid_argument(where + "wait_ms: expected an object, not "
                                    + shortDump(*waits));
    checkFigure(*waits, "p95", where + "wait_ms.");
}

// What a skipped cell's record holds: what the model predicted, nothing measured.
void checkSkipped(const SweepRecord &r)
{
    if (!r.summary.is_null())
        throw std::invalid_argument("summary: a skipped cell did not run; expected null, not "
                                    + shortDump(r.summary));
    if (!r.trace.empty())
        throw std::invalid_argument("trace: a skipped cell did not run and has none");
    if (r.predicted.is_null())
        throw std::invalid_argument("predicted: a skipped cell keeps what the model predicted "
                                    "for it; missing");
}

double figureOf(const json &summary, const std::string &name)
{
    if (!summary.is_object())
        return 0.0;
    const json *object = &summary;
    std::string key = name;
    if (name == "wait_p95_ms") {
        const auto waits = summary.find("wait_ms");
        if (waits == summary.end() || !waits->is_object())
            return 0.0;
        object = &*waits;
        key = "p95";
    }
    const auto it = object->find(key);
    return it != object->end() && it->is_number() ? it->get<double>() : 0.0;
}

// Throws with "LINE: reason" for one line of a cells file.
void readLine(const std::string &line, const SweepDefinition &definition,
              const std::function<void(SweepRecord &&)> &onRecord)
{
    std::istringstream in(line);
    SweepRecord record = sweepRecordFromJson(parseConfigJson(in)); // depth-limited
    checkSweepRecord(record, definition);
    onRecord(std::move(record));
}

} // namespace

double SweepRecord::figure(const std::string &name) const
{
    return figureOf(summary, name);
}

double SweepRecord::predictedFigure(const std::string &name) const
{
    return figureOf(predicted, name);
}

SweepRecord sweepRecordOf(const SweepCell &cell, std::string state)
{
    SweepRecord r;
    r.order = cell.order;
    r.grid = cell.grid;
    r.repeat = cell.repeat;
    r.values = cell.values;
    r.state = std::move(state);
    return r;
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
    if (!r.predicted.is_null())
        j["predicted"] = r.predicted;
    if (r.machineLoad.known())
        j["machine_load"] = toJson(r.machineLoad);
    return j;
}

SweepRecord sweepRecordFromJson(const json &j)
{
    if (!j.is_object())
        throw std::invalid_argument("a record is a JSON object, not " + shortDump(j));
    for (const auto &[key, value] : j.items()) {
        static const char *const known[] = {"order", "grid",      "repeat",       "values",
                                            "state", "error",     "cell_seconds", "summary",
                                            "trace", "predicted", "machine_load"};
        bool found = false;
        for (const char *k : known)
            found = found || key == k;
        if (!found)
            throw std::invalid_argument("unknown key '" + key + "'");
    }
    SweepRecord r;
    r.order = wholeNumber(j, "order", std::numeric_limits<std::int64_t>::max());
    r.grid = wholeNumber(j, "grid", std::numeric_limits<std::int64_t>::max());
    r.repeat = static_cast<int>(wholeNumber(j, "repeat", std::numeric_limits<int>::max()));
    const auto values = j.find("values");
    if (values == j.end() || !values->is_array())
        throw std::invalid_argument("values: expected a list, one value per axis");
    r.values = values->get<std::vector<json>>();
    const auto state = j.find("state");
    if (state == j.end() || !state->is_string()
        || (*state != "finished" && *state != "failed" && *state != "skipped"))
        throw std::invalid_argument("state: expected \"finished\", \"failed\" or \"skipped\"");
    r.state = state->get<std::string>();
    if (const auto error = j.find("error"); error != j.end()) {
        if (!error->is_string())
            throw std::invalid_argument("error: expected a text, not " + shortDump(*error));
        r.error = error->get<std::string>();
    }
    if (const auto seconds = j.find("cell_seconds"); seconds != j.end()) {
        if (!seconds->is_number() || !(seconds->get<double>() >= 0.0))
            throw std::invalid_argument("cell_seconds: expected a number >= 0, not "
                                        + shortDump(*seconds));
        r.cellSeconds = seconds->get<double>();
    }
    if (const auto summary = j.find("summary"); summary != j.end())
        r.summary = *summary;
    checkSummary(r.summary, "summary", r.finished());
    if (const auto trace = j.find("trace"); trace != j.end()) {
        // Only the name the sweep writes: never a path that leaves traces/ (a merge
        // copies the file under this name).
        if (!trace->is_string() || *trace != sweepTraceName(r.order))
            throw std::invalid_argument("trace: expected \"" + sweepTraceName(r.order)
                                        + "\" (the trace of order " + std::to_string(r.order)
                                        + "), not " + shortDump(*trace));
        r.trace = trace->get<std::string>();
    }
    if (const auto predicted = j.find("predicted"); predicted != j.end()) {
        checkSummary(*predicted, "predicted", true);
        r.predicted = *predicted;
    }
    if (const auto load = j.find("machine_load"); load != j.end())
        r.machineLoad = machineLoadFromJson(*load);
    if (r.skipped())
        checkSkipped(r);
    return r;
}

void checkSweepRecord(const SweepRecord &r, const SweepDefinition &definition)
{
    const std::int64_t total = sweepCellCount(definition);
    if (r.order >= total)
        throw std::invalid_argument("order " + std::to_string(r.order) + " is outside this sweep ("
                                    + std::to_string(total) + " cells, orders 0 to "
                                    + std::to_string(total - 1) + ")");
    const std::int64_t gridSize = total / std::max(definition.repeats, 1);
    if (r.grid != r.order % gridSize || r.repeat != r.order / gridSize)
        throw std::invalid_argument("grid " + std::to_string(r.grid) + ", repeat "
                                    + std::to_string(r.repeat) + " are not those of order "
                                    + std::to_string(r.order) + " in this sweep (grid "
                                    + std::to_string(r.order % gridSize) + ", repeat "
                                    + std::to_string(r.order / gridSize) + ")");
    const auto expected = sweepGridValues(definition, r.grid);
    if (r.values != expected)
        throw std::invalid_argument("values " + shortDump(r.values) + " are not those of order "
                                    + std::to_string(r.order) + " in this sweep ("
                                    + shortDump(expected) + "): a record of another sweep");
}

std::string sweepTraceName(std::int64_t order)
{
    char name[48];
    std::snprintf(name, sizeof name, "traces/cell-%06lld.csv", static_cast<long long>(order));
    return name;
}

std::int64_t readSweepCellsFile(const std::string &path, const SweepDefinition &definition,
                                std::int64_t &budget,
                                const std::function<void(SweepRecord &&)> &onRecord)
{
    std::string reason;
    std::int64_t size = 0;
    const int fd = openRegularFile(path, reason, &size);
    if (fd < 0)
        throw std::invalid_argument(path + ": cannot read: " + reason);
    const FdCloser closer(fd);
    if (size > budget)
        throw std::invalid_argument(
            path + ": " + std::to_string(size) + " bytes: more than a results folder's cells files "
            + "may hold together (" + std::to_string(kMaxSweepCellsBytes >> 20) + " MiB)");
    budget -= size;
    std::string line;
    std::int64_t lineNumber = 0;
    std::int64_t offset = 0;   // bytes read
    std::int64_t complete = 0; // up to the end of the last whole line
    char buffer[1 << 16];
    // Only the size seen at open: a writer appending meanwhile cannot make it more.
    while (offset < size) {
        const auto want = static_cast<std::size_t>(
            std::min<std::int64_t>(static_cast<std::int64_t>(sizeof buffer), size - offset));
        const ssize_t n = ::read(fd, buffer, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw std::invalid_argument(path + ": cannot read: " + std::strerror(errno));
        if (n == 0)
            break;
        const char *p = buffer;
        const char *const end = buffer + n;
        while (p < end) {
            const auto *newline = static_cast<const char *>(std::memchr(p, '\n', end - p));
            line.append(p, newline ? newline : end);
            if (line.size() > kMaxSweepLineBytes)
                throw std::invalid_argument(
                    path + ":" + std::to_string(lineNumber + 1) + ": the line is longer than "
                    + std::to_string(kMaxSweepLineBytes >> 20) + " MiB; not a record");
            if (!newline)
                break;
            ++lineNumber;
            complete = offset + (newline - buffer) + 1;
            if (!line.empty()) {
                try {
                    readLine(line, definition, onRecord);
                } catch (const std::exception &e) {
                    throw std::invalid_argument(path + ":" + std::to_string(lineNumber) + ": "
                                                + e.what());
                }
            }
            line.clear();
            p = newline + 1;
        }
        offset += n;
    }
    return complete; // a rest without its newline is a torn write: ignored
}

json sweepDefinitionFileJson(const SweepDefinition &definition)
{
    return {{"format", kFormat},
            {"fingerprint", sweepFingerprint(definition)},
            {"definition", toJson(definition)}};
}

SweepDefinition readSweepDefinitionFile(const std::string &path)
{
    std::string reason;
    std::int64_t size = 0;
    const int fd = openRegularFile(path, reason, &size);
    if (fd < 0)
        throw std::invalid_argument(path + ": cannot read: " + reason);
    const FdCloser closer(fd);
    if (size > kMaxSweepDefinitionBytes)
        throw std::invalid_argument(path + ": " + std::to_string(size) + " bytes: more than a "
                                    + "sweep.json may hold ("
                                    + std::to_string(kMaxSweepDefinitionBytes >> 20) + " MiB)");
    std::string text(static_cast<std::size_t>(size), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
        const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    try {
        std::istringstream in(text);
        const json j = parseConfigJson(in); // depth-limited
        if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
            throw std::invalid_argument("not a " + std::string(kFormat) + " file");
        if (!j.contains("definition"))
            throw std::invalid_argument("no definition");
        return sweepFromJson(j["definition"]);
    } catch (const std::exception &e) {
        throw std::invalid_argument(path + ": " + e.what());
    }
}

} // namespace loaderlab
