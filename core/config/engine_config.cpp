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

EngineKind engineForDataset(DatasetKind kind, EngineKind chosen)
{
    const DatasetKindInfo &info = datasetKindInfo(kind);
    // Only this way: the default engine is LoaderLab's, and a PyTorch run that was
    // asked for is refused with its reason rather than moved.
    if (chosen == EngineKind::LoaderLab && !info.loaderlabEngine)
        return EngineKind::PyTorch;
    return chosen;
}

} // namespace loaderlab
