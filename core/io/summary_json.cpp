#include "core/io/summary_json.h"

#include "core/config/marker_text.h"
#include "core/config/run_config_json.h"
#include "core/stats/rank_time_split.h"
#include "core/system/atomic_file.h"
#include "core/system/json_integer.h"
#include "core/system/safe_json.h"

#include <stdexcept>

namespace loaderlab {

using nlohmann::json;

json toJson(const RunSummary &s)
{
    json segments = json::array();
    for (const SegmentSummary &g : s.segments)
        segments.push_back({{"config_version", g.configVersion},
                            {"first_batch", g.firstBatch},
                            {"batches", g.batches},
                            {"samples", g.samples},
                            {"num_workers", g.numWorkers},
                            {"seconds", g.seconds},
                            {"samples_per_sec_mean", g.samplesPerSecMean},
                            {"samples_per_sec_median", g.samplesPerSecMedian},
                            {"wait_mean_ms", g.waitMeanMs},
                            {"wait_p95_ms", g.waitP95Ms},
                            {"input_bound_share", g.inputBoundShare},
                            {"worker_utilisation", g.workerUtilisation},
                            {"mean_worker_utilisation", g.meanWorkerUtilisation}});
    json ranks = json::array();
    for (const RankSummary &r : s.ranks)
        ranks.push_back({{"rank", r.rank},
                         {"batches", r.batches},
                         {"samples", r.samples},
                         {"samples_per_sec_mean", r.samplesPerSecMean},
                         {"wait_mean_ms", r.waitMeanMs},
                         {"input_bound_share", r.inputBoundShare},
                         {"sync_wait_mean_ms", r.syncWaitMeanMs},
                         {"exchange_mean_ms", r.exchangeMeanMs},
                         {"sync_wait_share", r.syncWaitShare},
                         {"exchange_share", r.exchangeShare}});
    json split = nullptr;
    if (const RankTimeSplit t = rankTimeSplit(s); t.known)
        split = {{"step_share", t.step},
                 {"data_share", t.data},
                 {"straggler_share", t.straggler},
                 {"exchange_share", t.exchange},
                 {"worst_data_rank", t.worstDataRank},
                 {"worst_data_share", t.worstDataShare},
                 {"worst_data_wait_mean_ms", t.worstDataWaitMs}};
    json replay = nullptr;
    if (const ReplaySummary &r = s.replay; r.firstBatch >= 0)
        replay = {{"first_batch", r.firstBatch},
                  {"loaded_batches", r.loadedBatches},
                  {"replayed_batches", r.replayedBatches},
                  {"loaded_samples_per_sec", r.loadedSamplesPerSec},
                  {"replay_samples_per_sec", r.replaySamplesPerSec},
                  {"loading_share", r.known() ? json(r.loadingShare) : json(nullptr)}};
    return json{
        {"batches", s.batches},
        {"samples", s.samples},
        {"skipped_samples", s.skippedSamples},
        {"warmup_batches", s.warmupBatches},
        {"wall_seconds", s.wallSeconds},
        {"samples_per_sec_mean", s.samplesPerSecMean},
        {"samples_per_sec_median", s.samplesPerSecMedian},
        {"first_batch_latency_ms", s.firstBatchLatencyMs},
        {"wait_ms",
         {{"p50", s.waitP50Ms},
          {"p95", s.waitP95Ms},
          {"p99", s.waitP99Ms},
          {"max", s.waitMaxMs},
          {"mean", s.waitMeanMs}}},
        {"compute_mean_ms", s.computeMeanMs},
        {"copy_mean_ms", s.copyMeanMs},
        {"input_bound_share", s.inputBoundShare},
        {"input_bound_band", inputBoundBandName(s.band)},
        {"advice", adviceFor(s)},
        {"worker_utilisation", s.workerUtilisation},
        {"mean_worker_utilisation", s.meanWorkerUtilisation},
        {"peak_memory_bytes", s.peakMemoryBytes},
        {"dropped_batches", s.droppedRecords},
        {"dropped_worker_spans", s.droppedSpans},
        {"segments", segments},
        {"ranks", ranks},
        {"rank_time_split", split},
        {"replay", replay},
    };
}

json toJson(const MachineInfo &m)
{
    return json{
        {"cpu_model", m.cpuModel},       {"logical_cores", m.logicalCores},
        {"memory_bytes", m.memoryBytes}, {"os", m.os},
        {"hostname", m.hostname},        {"cuda_available", m.cudaAvailable},
        {"cuda_devices", m.cudaDevices}, {"versions", m.versions},
    };
}

json toJson(const TraceMarker &m)
{
    json changes = json::array();
    for (const FieldChange &c : m.changes)
        changes.push_back({{"field", c.field}, {"before", c.before}, {"after", c.after}});
    return json{{"batch", m.batch},
                {"time_ns", m.timeNs},
                {"kind", markerKindName(m.kind)},
                {"config_version", m.configVersion},
                {"changes", changes},
                {"detail", m.detail},
                {"text", markerText(m)}};
}

TraceMarker markerFromJson(const json &j)
{
    try {
        TraceMarker m;
        m.batch = jsonInteger(j.at("batch"), "marker: batch");
        m.timeNs = jsonInteger(j.at("time_ns"), "marker: time_ns");
        const std::string kind = j.at("kind").get<std::string>();
        if (!markerKindFromName(kind, m.kind))
            throw std::invalid_argument("marker: unknown kind '" + kind + "'");
        m.configVersion = j.value("config_version", 0);
        for (const json &c : j.value("changes", json::array()))
            m.changes.push_back({c.at("field").get<std::string>(),
                                 c.at("before").get<std::string>(),
                                 c.at("after").get<std::string>()});
        m.detail = j.value("detail", std::string());
        return m;
    } catch (const json::exception &e) {
        throw std::invalid_argument(std::string("marker: ") + e.what());
    }
}

json toJson(const MachineLoad &load)
{
    return json{{"cores", load.cores},
                {"seconds", load.seconds},
                {"own_busy_cores", load.ownBusyCores},
                {"other_busy_cores", load.otherBusyCores},
                {"group_busy_cores", load.groupBusyCores},
                {"steal_cores", load.stealCores},
                {"available_cores", load.availableCores}};
}

MachineLoad machineLoadFromJson(const json &j)
{
    const auto text = [](const json &v) {
        std::string t = v.dump(-1, ' ', false, json::error_handler_t::replace);
        return t.size() > 80 ? t.substr(0, 77) + "..." : t;
    };
    if (!j.is_object())
        throw std::invalid_argument("machine_load: expected an object, not " + text(j));
    const auto cores = j.find("cores");
    if (cores == j.end())
        throw std::invalid_argument("machine_load.cores: missing");
    if (!cores->is_number_integer() || cores->get<std::int64_t>() < 1
        || cores->get<std::int64_t>() > 1'000'000)
        throw std::invalid_argument(
            "machine_load.cores: expected a whole number from 1 to 1000000, not " + text(*cores));
    MachineLoad load;
    load.cores = static_cast<int>(cores->get<std::int64_t>());
    const auto number = [&](const char *key, double most, double &to) {
        const auto it = j.find(key);
        if (it == j.end())
            throw std::invalid_argument(std::string("machine_load.") + key + ": missing");
        if (!it->is_number() || !(it->get<double>() >= 0.0 && it->get<double>() <= most))
            throw std::invalid_argument(std::string("machine_load.") + key
                                        + ": expected a number from 0 to " + json(most).dump()
                                        + ", not " + text(*it));
        to = it->get<double>();
    };
    const double all = load.cores;
    number("seconds", 1e12, load.seconds);
    number("own_busy_cores", all, load.ownBusyCores);
    number("other_busy_cores", all, load.otherBusyCores);
    number("steal_cores", all, load.stealCores);
    number("available_cores", all, load.availableCores);
    if (j.contains("group_busy_cores"))
        number("group_busy_cores", load.otherBusyCores, load.groupBusyCores);
    return load;
}

json toJson(const RunReport &r)
{
    json skipped = json::array();
    for (const auto &s : r.skipped)
        skipped.push_back({{"batch", s.batch},
                           {"sample", s.sampleIndex},
                           {"source", s.source},
                           {"reason", s.reason}});
    json markers = json::array();
    for (const auto &m : r.markers)
        markers.push_back(toJson(m));
    json versions = json::array();
    for (const auto &v : r.configVersions)
        versions.push_back({{"version", v.version},
                            {"first_batch", v.firstBatch},
                            {"time_ns", v.timeNs},
                            {"config", toJson(v.config)}});
    json out{
        {"format", kSummaryJsonFormat}, {"config", toJson(r.config)}, {"config_versions", versions},
        {"dataset", r.dataset},         {"state", r.state},           {"error", r.error},
        {"summary", toJson(r.summary)}, {"skipped", skipped},         {"markers", markers},
        {"machine", toJson(r.machine)},
    };
    if (r.machineLoad.known())
        out["machine_load"] = toJson(r.machineLoad);
    if (r.probe)
        out["probe"] = {{"rank", r.probe->rank},
                        {"world_size", r.probe->worldSize},
                        {"start_unix_ns", r.probe->startUnixNs},
                        {"host", r.probe->host}};
    if (const ScalingEfficiency &e = r.scaling; e.known)
        out["scaling"] = {{"baseline", r.scalingBaseline},
                          {"ranks", e.ranks},
                          {"one_rank_samples_per_sec", e.oneRankSamplesPerSec},
                          {"samples_per_sec", e.samplesPerSec},
                          {"speedup", e.speedup},
                          {"efficiency", e.efficiency},
                          {"lost",
                           {{"data", e.dataLoss},
                            {"step", e.stepLoss},
                            {"slowest_rank", e.imbalanceLoss},
                            {"exchange", e.communicationLoss},
                            {"other", e.otherLoss}}}};
    return out;
}

void saveRunReport(const std::string &path, const RunReport &report)
{
    writeFileAtomically(
        path, [&](std::ostream &out) { out << toSafeJson(toJson(report)).dump(2) << '\n'; });
}

} // namespace loaderlab
