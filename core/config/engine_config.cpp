#include "core/config/engine_config.h"

namespace loaderlab {

const char *engineKindName(EngineKind kind)
{
    // The table's names are literals, so their data is NUL-terminated.
    return enumName(kEngineKindNames, kind).data();
}

std::optional<EngineKind> engineKindFromName(const std::string &name)
{
    return enumFromName(kEngineKindNames, name);
}

} // namespace loaderlab
