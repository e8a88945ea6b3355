#pragma once

// What the tests of a run followed while it is written share: batches made up for a
// rank (10 ms apart, a 2 ms wait each), and the files loaderlab_probe writes: the
// per-batch CSV grown piece by piece, and the summary JSON, "running" at first, with
// its "probe" object for a rank of a torch.distributed set.

#include "core/io/summary_json.h"
#include "core/io/trace_csv.h"

#include <nlohmann/json.hpp>

#include <QString>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace followed_run {

// The fields a per-batch CSV keeps, equal in both rows.
inline bool sameRow(const loaderlab::TraceRecord &a, const loaderlab::TraceRecord &b)
{
    return a.index == b.index && a.epoch == b.epoch && a.worker == b.worker
           && a.samples == b.samples && a.rank == b.rank && a.dispatchNs == b.dispatchNs
           && a.loadStartNs == b.loadStartNs && a.loadEndNs == b.loadEndNs && a.readNs == b.readNs
           && a.decodeNs == b.decodeNs && a.requestNs == b.requestNs && a.deliveryNs == b.deliveryNs
           && a.computeEndNs == b.computeEndNs;
}

// The message of what `f` throws, empty when it throws nothing.
template <typename F>
QString thrown(F &&f)
{
    try {
        f();
    } catch (const std::exception &e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

// Batches [from, from + count) of `rank`, built by worker index % workers.
inline std::vector<loaderlab::TraceRecord> rows(std::int64_t from, std::int64_t count, int rank = 0,
                                                int workers = 2)
{
    std::vector<loaderlab::TraceRecord> out;
    for (std::int64_t i = from; i < from + count; ++i) {
        loaderlab::TraceRecord r;
        const std::int64_t end = (i + 1) * 10'000'000 + rank * 1'000'000;
        r.index = i;
        r.worker = static_cast<std::int32_t>(i % workers);
        r.samples = 8;
        r.rank = rank;
        r.dispatchNs = end - 9'000'000;
        r.loadStartNs = end - 8'000'000;
        r.loadEndNs = end - 4'500'000;
        r.readNs = 1'000'000;
        r.decodeNs = 2'000'000;
        r.transformNs = 500'000;
        r.collateNs = 10'000;
        r.readyNs = end - 4'400'000;
        r.requestNs = end - 4'000'000;
        r.deliveryNs = end - 2'000'000;
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = end;
        out.push_back(r);
    }
    return out;
}

inline std::string csvText(const std::vector<loaderlab::TraceRecord> &records)
{
    std::ostringstream out;
    loaderlab::writeTraceCsvRows(out, records);
    return out.str();
}

inline void append(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary | std::ios::app) << text;
}

// The summary JSON a writer starts with ("running") or ends with: the config (2
// workers, batches of 8, `devices`), no config versions; with `rank` >= 0, the probe
// object of that rank of `devices` ranks started at `startUnixNs`. `batches` >= 0 goes
// into the summary, as a finished run's JSON has it.
inline nlohmann::json summaryJson(const std::string &state, int devices = 1, int rank = -1,
                                  std::int64_t startUnixNs = 0, std::int64_t batches = -1)
{
    loaderlab::RunReport report;
    report.config.loader.numWorkers = 2;
    report.config.loader.batchSize = 8;
    report.config.devices = devices;
    report.state = state;
    report.dataset = "a training script's DataLoader";
    nlohmann::json j = loaderlab::toJson(report);
    j["config_versions"] = nlohmann::json::array();
    j["summary"] = nlohmann::json::object();
    if (batches >= 0)
        j["summary"]["batches"] = batches;
    if (rank >= 0)
        j["probe"] = {{"rank", rank},
                      {"world_size", devices},
                      {"start_unix_ns", startUnixNs},
                      {"host", "node" + std::to_string(rank)}};
    return j;
}

// Replaces the file at once, as the writer does (a new file renamed over the old).
inline void writeJson(const std::string &path, const nlohmann::json &j)
{
    const std::string part = path + ".tmp";
    std::ofstream(part, std::ios::binary) << j.dump(2) << '\n';
    std::filesystem::rename(part, path);
}

} // namespace followed_run
