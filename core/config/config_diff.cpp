#include "core/config/config_diff.h"

#include "core/config/config_fields.h"

namespace loaderlab {
namespace {

std::vector<FieldChange> diff(const RunConfig &before, const RunConfig &after, bool liveOnly)
{
    const bool model = before.consumer.kind == ConsumerKind::Model
                       || after.consumer.kind == ConsumerKind::Model;
    std::vector<FieldChange> changes;
    for (const ConfigField &field : configFields()) {
        if (liveOnly && !field.key.starts_with("loader.") && !field.key.starts_with("consumer."))
            continue;
        if (liveOnly && !model && field.key.starts_with("consumer.model."))
            continue;
        const nlohmann::json a = field.get(before);
        const nlohmann::json b = field.get(after);
        if (a != b)
            changes.push_back(
                {std::string(field.key), configValueText(field, a), configValueText(field, b)});
    }
    return changes;
}

} // namespace

std::vector<FieldChange> diffConfigs(const RunConfig &before, const RunConfig &after)
{
    return diff(before, after, false);
}

std::vector<FieldChange> liveChanges(const RunConfig &before, const RunConfig &after)
{
    return diff(before, after, true);
}

} // namespace loaderlab
