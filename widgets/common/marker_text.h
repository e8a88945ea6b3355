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

// Epoch markers are not numbered: they read "epoch N" ("e N" where a plot is crowded),
// so a numbered event never reads as an epoch. A run's other markers (setting
// changes, pauses, autotuner moves, lesson phases, notes) are numbered 1, 2, 3… in
// the order they came, on the plots and in the events list alike.
bool numbered(const loaderlab::TraceMarker &marker);
// What a crowded plot shows instead of the marker's text: "#4", or "e12" for epoch 12.
QString shortLabel(const loaderlab::TraceMarker &marker, int number);
// The marker as the hover readout names it: "#4 Workers 4 → 2", "epoch 12".
QString numberedText(const loaderlab::TraceMarker &marker, int number);

} // namespace loaderlab::markertext
