#pragma once

// Which engine runs a run: LoaderLab's own loader (threads, C++) or PyTorch's
// DataLoader (worker processes, Python). The config field `engine`; what each
// engine can do is core/engine/engine.h's.

#include "core/config/dataset_config.h"
#include "core/config/enum_names.h"

#include <optional>
#include <string>

namespace loaderlab {

enum class EngineKind { LoaderLab, PyTorch };

inline constexpr EnumNames<EngineKind, 2> kEngineKindNames{{
    {EngineKind::LoaderLab, "loaderlab"},
    {EngineKind::PyTorch, "pytorch"},
}};

// "loaderlab", "pytorch"; the string lives for the program (a literal).
const char *engineKindName(EngineKind kind);
std::optional<EngineKind> engineKindFromName(const std::string &name);

// The engine a run of a dataset `kind` gets where the user named none: `chosen`,
// unless it is LoaderLab's and cannot read the kind (a Python pipeline file runs on
// PyTorch's DataLoader).
EngineKind engineForDataset(DatasetKind kind, EngineKind chosen);

} // namespace loaderlab
