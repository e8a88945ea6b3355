#pragma once

// The JSON summary of a run (CLI --json, GUI export): the config, the dataset, the
// figures, skipped samples, machine and library versions. Documented in the README.

#include "core/run/run_config.h"
#include "core/stats/run_summary.h"
#include "core/system/machine_info.h"
#include "core/trace/trace_record.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace loaderlab {

nlohmann::json toJson(const RunSummary &summary);
nlohmann::json toJson(const MachineInfo &machine);

struct RunReport
{
    RunConfig config;
    std::string dataset;      // the dataset's description
    std::string state;        // finished / stopped / failed
    std::string error;
    RunSummary summary;
    std::vector<SkippedSample> skipped;
    std::vector<TraceMarker> markers;
    MachineInfo machine;
};

nlohmann::json toJson(const RunReport &report);

// Atomic. Throws std::runtime_error.
void saveRunReport(const std::string &path, const RunReport &report);

} // namespace loaderlab
