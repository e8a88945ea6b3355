#include "core/config/marker_text.h"

#include "core/config/config_fields.h"

#include <cctype>

namespace loaderlab {
namespace {

std::string lowerLabel(const std::string &key)
{
    const ConfigField *field = findConfigField(key);
    std::string label = field ? std::string(field->label) : key;
    if (!label.empty())
        label[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(label[0])));
    return label;
}

std::string valueText(const ConfigField *field, const std::string &value)
{
    if (field && field->type == FieldType::Boolean)
        return value == "true" ? "on" : "off";
    return value;
}

} // namespace

std::string changesText(const std::vector<FieldChange> &changes)
{
    std::string text;
    for (const FieldChange &change : changes) {
        const ConfigField *field = findConfigField(change.field);
        if (!text.empty())
            text += ", ";
        text += lowerLabel(change.field) + ' ' + valueText(field, change.before) + " -> "
                + valueText(field, change.after);
    }
    return text;
}

std::string markerText(const TraceMarker &marker)
{
    switch (marker.kind) {
    case MarkerKind::Reconfigure:
        return changesText(marker.changes);
    case MarkerKind::Pause:
        return "paused";
    case MarkerKind::Resume:
        return "resumed";
    case MarkerKind::Epoch:
        return "epoch " + marker.detail;
    case MarkerKind::Autotune:
        return "autotune: " + changesText(marker.changes)
               + (marker.detail.empty() ? "" : " (" + marker.detail + ")");
    case MarkerKind::Replay:
        return "replay of the " + marker.detail + " batches kept";
    case MarkerKind::Lesson:
    case MarkerKind::Note:
        return marker.detail;
    }
    return marker.detail;
}

} // namespace loaderlab
