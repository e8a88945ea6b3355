#pragma once

// The window's wording of trace markers and config fields, in the user's language:
// field labels and help texts come from core/config/config_fields.h and are translated
// in the context "ConfigField"; marker kinds and on/off here.

#include "core/config/config_fields.h"
#include "core/record/trace_record.h"

#include <QString>

#include <vector>

namespace loaderlab::markertext {

QString fieldLabel(const loaderlab::ConfigField &field);
QString fieldHelp(const loaderlab::ConfigField &field);
// "Workers 2 → 4, Shuffle off → on".
QString changes(const std::vector<loaderlab::FieldChange> &changes);
QString marker(const loaderlab::TraceMarker &marker);

} // namespace loaderlab::markertext
