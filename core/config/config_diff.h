#pragma once

// What changed between two configs, field by field (key path, before, after), in
// the order of core/config/config_fields.h. A reconfiguration marker records this list.

#include "core/config/run_config.h"
#include "core/record/trace_record.h"

#include <vector>

namespace loaderlab {

std::vector<FieldChange> diffConfigs(const RunConfig &before, const RunConfig &after);

// The changes a live reconfiguration makes: loader and consumer fields only. Model
// settings count only when either side runs a model: the window keeps them while the
// step is simulated, and editing them then changes nothing in the run.
std::vector<FieldChange> liveChanges(const RunConfig &before, const RunConfig &after);

} // namespace loaderlab
