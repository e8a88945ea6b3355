#pragma once

// English wording of trace markers, for the command line, logs and exports:
// "workers 2 -> 4, batch size 32 -> 64", "epoch 1", "paused". The window words the
// same markers in its own language (widgets/common/marker_text.h).

#include "core/record/trace_record.h"

#include <string>
#include <vector>

namespace loaderlab {

std::string changesText(const std::vector<FieldChange> &changes);
std::string markerText(const TraceMarker &marker);

} // namespace loaderlab
