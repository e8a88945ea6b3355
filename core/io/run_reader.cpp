#include "core/io/run_reader.h"

#include "core/config/run_config_json.h"
#include "core/io/trace_csv.h"
#include "core/system/json_integer.h"
#include "core/system/regular_file.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

namespace loaderlab {

using nlohmann::json;

namespace {

std::string replaceExtension(const std::string &path, const char *extension)
{
    std::filesystem::path p(path);
    p.replace_extension(extension);
    const std::string other = p.string();
    return other != path && regularFileProblem(other).empty() ? other : std::string();
}

bool inTimeRange(std::int64_t ns)
{
    return ns >= 0 && ns <= kMaxTraceTimeNs;
}

// "machine_load", as summary_json.cpp writes it. Anything else (absent, as in the
// summaries written before it was recorded, or a field missing or out of range) is
// an unknown load: the run opens the same, and the loader model takes the machine
// to have been idle.
MachineLoad recordedMachineLoad(const json &j)
{
    const auto load = j.find("machine_load");
    if (load == j.end())
        return {};
    try {
        return machineLoadFromJson(*load);
    } catch (const std::invalid_argument &) {
        return {};
    }
}

} // namespace

std::int64_t checkRecordsAgainstReport(const std::vector<TraceRecord> &records,
                                       const RunReport &report, const std::string &csvPath,
                                       const std::string &jsonPath, std::int64_t firstLine,
                                       std::int64_t spansBefore)
{
    int devices = 1;
    int workers = 0;
    std::int64_t batchSize = 1;
    for (const ConfigVersion &v : report.configVersions) {
        devices = std::max(devices, v.config.devices);
        workers = std::max(workers, v.config.loader.numWorkers);
        batchSize = std::max<std::int64_t>(batchSize, v.config.loader.batchSize);
    }
    std::int64_t spans = spansBefore;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const TraceRecord &r = records[i];
        const auto fail = [&](const std::string &what) {
            throw std::runtime_error(csvPath + ": line "
                                     + std::to_string(firstLine + static_cast<std::int64_t>(i))
                                     + ": " + what + " (" + jsonPath + ")");
        };
        if (r.configVersion < 0
            || static_cast<std::size_t>(r.configVersion) >= report.configVersions.size())
            fail("config version " + std::to_string(r.configVersion) + " is not in the summary");
        const RunConfig &config =
            report.configVersions[static_cast<std::size_t>(r.configVersion)].config;
        if (r.rank >= devices)
            fail("rank " + std::to_string(r.rank) + " but the run had " + std::to_string(devices)
                 + " device(s)");
        if (r.worker >= workers)
            fail("worker " + std::to_string(r.worker) + " but the run had at most "
                 + std::to_string(workers) + " worker(s)");
        if (static_cast<std::int64_t>(r.samples) + r.skipped > batchSize)
            fail(std::to_string(r.samples) + " samples and " + std::to_string(r.skipped)
                 + " skipped in a batch of at most " + std::to_string(batchSize));
        spans += r.worker == kAllWorkers ? std::max(config.loader.numWorkers, 1) : 1;
        if (spans > kMaxOpenedSpans)
            fail("more than " + std::to_string(kMaxOpenedSpans)
                 + " worker spans (batches x workers of sample-parallel batches), the most a "
                   "run opened in the window may have");
    }
    return spans;
}

RunReport runReportFromJson(const json &j, const std::string &source)
{
    const auto format = j.is_object() ? j.find("format") : j.end();
    if (!j.is_object() || format == j.end() || !format->is_string()
        || format->get<std::string>() != kSummaryJsonFormat)
        throw std::runtime_error(source + ": not a LoaderLab run summary (\"format\" is not \""
                                 + kSummaryJsonFormat + "\")");
    RunReport r;
    try {
        r.config = runConfigFromJson(j.at("config"));
        for (const json &v : j.at("config_versions")) {
            ConfigVersion version;
            version.version = static_cast<std::int32_t>(
                jsonInteger(v.at("version"), "config_versions: version", 0,
                            std::numeric_limits<std::int32_t>::max()));
            version.firstBatch = jsonInteger(v.at("first_batch"), "config_versions: first_batch");
            version.timeNs = jsonInteger(v.at("time_ns"), "config_versions: time_ns");
            version.config = runConfigFromJson(v.at("config"));
            if (version.version != static_cast<std::int32_t>(r.configVersions.size()))
                throw std::invalid_argument("config_versions: version "
                                            + std::to_string(version.version) + " out of order");
            const ConfigVersion *previous = r.configVersions.empty() ? nullptr
                                                                     : &r.configVersions.back();
            if (!inTimeRange(version.timeNs) || version.firstBatch < 0
                || (previous
                    && (version.firstBatch < previous->firstBatch
                        || version.timeNs < previous->timeNs)))
                throw std::invalid_argument(
                    "config_versions: version " + std::to_string(version.version)
                    + ": first_batch and time_ns must be >= 0 and not before the previous "
                      "version's");
            r.configVersions.push_back(std::move(version));
        }
        if (r.configVersions.empty())
            r.configVersions.push_back({0, 0, 0, r.config});
        r.dataset = j.value("dataset", std::string());
        r.state = j.value("state", std::string());
        r.error = j.value("error", std::string());
        const json &summary = j.at("summary");
        r.summary.peakMemoryBytes = jsonIntegerOr(summary, "peak_memory_bytes", 0);
        r.summary.skippedSamples = jsonIntegerOr(summary, "skipped_samples", 0);
        if (r.summary.peakMemoryBytes < 0 || r.summary.skippedSamples < 0)
            throw std::invalid_argument(
                "summary: peak_memory_bytes and skipped_samples must not be negative");
        for (const json &s : j.value("skipped", json::array())) {
            r.skipped.push_back({jsonInteger(s.at("batch"), "skipped: batch"),
                                 jsonInteger(s.at("sample"), "skipped: sample"),
                                 s.value("source", std::string()),
                                 s.value("reason", std::string())});
            if (r.skipped.back().batch < 0 || r.skipped.back().sampleIndex < 0)
                throw std::invalid_argument("skipped: batch and sample must not be negative");
        }
        for (const json &m : j.value("markers", json::array())) {
            r.markers.push_back(markerFromJson(m));
            const TraceMarker &marker = r.markers.back();
            if (marker.batch < 0 || !inTimeRange(marker.timeNs) || marker.configVersion < 0
                || static_cast<std::size_t>(marker.configVersion) >= r.configVersions.size())
                throw std::invalid_argument(
                    "markers: a marker's batch, time_ns or config_version is out of range");
        }
        if (const auto machine = j.find("machine"); machine != j.end() && machine->is_object()) {
            r.machine.cpuModel = machine->value("cpu_model", std::string());
            r.machine.hostname = machine->value("hostname", std::string());
            r.machine.os = machine->value("os", std::string());
            // The loader model (core/predict) shares the run's cores among its threads.
            if (const auto cores = machine->find("logical_cores");
                cores != machine->end() && cores->is_number_integer()) {
                const auto n = cores->get<std::int64_t>();
                if (n >= 0 && n <= 1'000'000)
                    r.machine.logicalCores = static_cast<int>(n);
            }
            if (const auto memory = machine->find("memory_bytes");
                memory != machine->end() && memory->is_number_integer()
                && memory->get<std::int64_t>() >= 0)
                r.machine.memoryBytes = memory->get<std::int64_t>();
            if (const auto v = machine->find("versions"); v != machine->end() && v->is_object())
                for (const auto &[name, version] : v->items())
                    if (version.is_string())
                        r.machine.versions[name] = version.get<std::string>();
        }
        r.machineLoad = recordedMachineLoad(j);
    } catch (const std::exception &e) {
        throw std::runtime_error(source + ": " + e.what());
    }
    return r;
}

json loadSummaryJson(const std::string &path)
{
    if (const std::string problem = regularFileProblem(path); !problem.empty())
        throw std::runtime_error(path + ": cannot read: " + problem);
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path, ec);
    if (!ec && bytes > static_cast<std::uintmax_t>(kMaxSummaryJsonBytes))
        throw std::runtime_error(path + ": " + std::to_string(bytes)
                                 + " bytes, more than a run summary has (at most "
                                 + std::to_string(kMaxSummaryJsonBytes) + "); not read");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot open");
    try {
        return parseConfigJson(in);
    } catch (const std::exception &e) {
        throw std::runtime_error(path + ": " + e.what());
    }
}

RunReport loadRunReport(const std::string &path)
{
    return runReportFromJson(loadSummaryJson(path), path);
}

std::shared_ptr<TraceLog> traceFromRecords(const std::vector<TraceRecord> &records,
                                           const RunReport &report)
{
    auto log = std::make_shared<TraceLog>();
    // Versions first: version 0 sets the summary's warm-up, each its worker count.
    for (const ConfigVersion &v : report.configVersions)
        log->addConfigVersion(v);
    const auto workersOf = [&report](std::int32_t version) {
        const auto &versions = report.configVersions;
        const auto v = std::clamp<std::size_t>(static_cast<std::size_t>(std::max(version, 0)), 0,
                                               versions.size() - 1);
        return versions[v].config.loader.numWorkers;
    };
    // Markers before the batches: a replay's marker splits the summary's rates there.
    for (const TraceMarker &m : report.markers)
        log->addMarker(m);
    for (const TraceRecord &r : records) {
        if (r.worker == kAllWorkers) {
            for (int w = 0; w < workersOf(r.configVersion); ++w)
                log->appendSpan({r.index, w, r.rank, r.loadStartNs, r.loadEndNs});
        } else {
            log->appendSpan({r.index, r.worker, r.rank, r.loadStartNs, r.loadEndNs});
        }
        log->append(r);
    }
    for (const SkippedSample &s : report.skipped)
        log->addSkipped(s);
    return log;
}

OpenedRun openRun(const std::string &csvPath, const std::string &jsonPath)
{
    OpenedRun run;
    run.csvPath = csvPath;
    run.jsonPath = jsonPath;
    // Both read before anything is built: a bad file changes nothing.
    run.report = loadRunReport(jsonPath);
    const std::vector<TraceRecord> records = loadTraceCsv(csvPath);
    checkRecordsAgainstReport(records, run.report, csvPath, jsonPath);
    buildOpenedRun(run, records);
    return run;
}

OpenedRun openRunBeside(const std::string &path)
{
    const bool csvGiven = path.size() > 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
    const std::string csv = csvGiven ? path : traceCsvBeside(path);
    const std::string json = csvGiven ? summaryJsonBeside(path) : path;
    if (csv.empty() || json.empty())
        throw std::runtime_error(path + ": no " + (csv.empty() ? "per-batch CSV" : "summary JSON")
                                 + " of the same name beside it (loaderlab run --csv RUN.csv "
                                   "--json RUN.json writes both)");
    return openRun(csv, json);
}

void buildOpenedRun(OpenedRun &run, const std::vector<TraceRecord> &records)
{
    finishOpenedRun(run, traceFromRecords(records, run.report));
}

void finishOpenedRun(OpenedRun &run, std::shared_ptr<const TraceLog> trace)
{
    const RunSummary stored = run.report.summary;
    run.report.summary = trace->summary();
    run.report.summary.peakMemoryBytes = stored.peakMemoryBytes;
    // The JSON lists at most 10,000 skipped samples but counts all of them.
    run.report.summary.skippedSamples = std::max(run.report.summary.skippedSamples,
                                                 stored.skippedSamples);
    run.trace = std::move(trace);
    for (const ConfigVersion &v : run.report.configVersions)
        run.maxWorkers = std::max(run.maxWorkers, v.config.loader.numWorkers);
}

std::string summaryJsonBeside(const std::string &csvPath)
{
    return replaceExtension(csvPath, ".json");
}

std::string traceCsvBeside(const std::string &jsonPath)
{
    return replaceExtension(jsonPath, ".csv");
}

} // namespace loaderlab
