#pragma once

// The JSON summary of a run (CLI --json, GUI export): the config and every config
// version of a live-reconfigured run, the dataset, the figures (whole run and per
// segment), markers, skipped samples, machine and library versions, and the CPU load
// of the machine while the run went on. Documented in the README ("JSON summary") and
// docs/metrics.md.

#include "core/config/run_config.h"
#include "core/record/trace_record.h"
#include "core/stats/run_summary.h"
#include "core/stats/scaling_efficiency.h"
#include "core/system/cpu_load.h"
#include "core/system/machine_info.h"
#include "core/trace/trace_log.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace loaderlab {

// The "format" of a summary JSON this version writes (and reads back: run_reader.h).
inline constexpr const char *kSummaryJsonFormat = "loaderlab-summary-2";

nlohmann::json toJson(const RunSummary &summary);
nlohmann::json toJson(const MachineInfo &machine);
// "machine_load": cores, seconds, own_busy_cores, other_busy_cores, group_busy_cores,
// steal_cores, available_cores (docs/metrics.md). Only a known load is written.
nlohmann::json toJson(const MachineLoad &load);
// Reads "machine_load" back: cores a whole number from 1, every load a number from 0
// to cores, group_busy_cores (at most other_busy_cores) optional, as in a summary
// written before it was recorded. Throws std::invalid_argument naming the field and
// what is wrong with it.
MachineLoad machineLoadFromJson(const nlohmann::json &load);
nlohmann::json toJson(const TraceMarker &marker);
// Throws std::invalid_argument naming what is missing or wrong.
TraceMarker markerFromJson(const nlohmann::json &json);

// Where a rank's run sits in a run of several processes (core/io/rank_set.h): its
// rank of world_size, its time 0 on the wall clock (ns since 1970) and its host. The
// summary's "probe" object; written by loaderlab_probe and by `run --slurm-ranks`.
struct ProbeInfo
{
    int rank = 0;
    int worldSize = 1;
    std::int64_t startUnixNs = 0;
    std::string host;
};

struct RunReport
{
    RunConfig config;
    std::string dataset; // the dataset's description
    std::string state;   // finished / stopped / failed
    std::string error;
    RunSummary summary;
    std::vector<SkippedSample> skipped;
    std::vector<TraceMarker> markers;
    std::vector<ConfigVersion> configVersions; // version 0 first
    MachineInfo machine;
    // How busy the machine was while the run went on; unknown (cores 0) where it was
    // not measured (no /proc/stat, a summary written before it was recorded).
    MachineLoad machineLoad;
    std::optional<ProbeInfo> probe; // a rank of a run of several processes
    // Against a measured run of one rank (`run --baseline`), for a data-parallel run.
    std::string scalingBaseline; // that run's file
    ScalingEfficiency scaling;
};

nlohmann::json toJson(const RunReport &report);

// Atomic. Throws std::runtime_error.
void saveRunReport(const std::string &path, const RunReport &report);

} // namespace loaderlab
