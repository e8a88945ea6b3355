#include "core/io/summary_json.h"

#include "core/io/atomic_file.h"
#include "core/io/safe_json.h"
#include "core/run/run_config_json.h"

namespace loaderlab {

using nlohmann::json;

json toJson(const RunSummary &s)
{
    return json{
        {"batches", s.batches},
        {"samples", s.samples},
        {"skipped_samples", s.skippedSamples},
        {"warmup_batches", s.warmupBatches},
        {"wall_seconds", s.wallSeconds},
        {"samples_per_sec_mean", s.samplesPerSecMean},
        {"samples_per_sec_median", s.samplesPerSecMedian},
        {"first_batch_latency_ms", s.firstBatchLatencyMs},
        {"wait_ms", {{"p50", s.waitP50Ms}, {"p95", s.waitP95Ms}, {"p99", s.waitP99Ms},
                     {"max", s.waitMaxMs}, {"mean", s.waitMeanMs}}},
        {"compute_mean_ms", s.computeMeanMs},
        {"copy_mean_ms", s.copyMeanMs},
        {"input_bound_share", s.inputBoundShare},
        {"input_bound_band", inputBoundBandName(s.band)},
        {"advice", adviceFor(s)},
        {"worker_utilisation", s.workerUtilisation},
        {"mean_worker_utilisation", s.meanWorkerUtilisation},
        {"peak_memory_bytes", s.peakMemoryBytes},
    };
}

json toJson(const MachineInfo &m)
{
    return json{
        {"cpu_model", m.cpuModel},     {"logical_cores", m.logicalCores},
        {"memory_bytes", m.memoryBytes}, {"os", m.os},
        {"hostname", m.hostname},      {"cuda_available", m.cudaAvailable},
        {"cuda_devices", m.cudaDevices}, {"versions", m.versions},
    };
}

json toJson(const RunReport &r)
{
    json skipped = json::array();
    for (const auto &s : r.skipped)
        skipped.push_back({{"batch", s.batch}, {"sample", s.sampleIndex}, {"source", s.source},
                           {"reason", s.reason}});
    json markers = json::array();
    for (const auto &m : r.markers)
        markers.push_back({{"batch", m.batch}, {"time_ns", m.timeNs}, {"text", m.text}});
    return json{
        {"format", "loaderlab-summary-1"},
        {"config", toJson(r.config)},
        {"dataset", r.dataset},
        {"state", r.state},
        {"error", r.error},
        {"summary", toJson(r.summary)},
        {"skipped", skipped},
        {"markers", markers},
        {"machine", toJson(r.machine)},
    };
}

void saveRunReport(const std::string &path, const RunReport &report)
{
    writeFileAtomically(path, [&](std::ostream &out) {
        out << toSafeJson(toJson(report)).dump(2) << '\n';
    });
}

} // namespace loaderlab
