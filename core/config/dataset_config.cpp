// DatasetConfig helpers: kind and transform names for the CLI and JSON configs.
// openDataset() (core/loader/open_dataset.h) maps a configuration onto a Dataset class.

#include "core/config/dataset_config.h"

#include <array>
#include <utility>

namespace loaderlab {

namespace {

constexpr std::array<std::pair<DatasetKind, const char *>, 5> kDatasetKindNames{{
    {DatasetKind::Synthetic, "synthetic"},
    {DatasetKind::TensorFile, "tensor"},
    {DatasetKind::ImageFolder, "folder"},
    {DatasetKind::Idx, "idx"},
    {DatasetKind::Cifar10, "cifar10"},
}};

constexpr std::array<std::pair<TransformKind, const char *>, 2> kTransformKindNames{{
    {TransformKind::Eval, "eval"},
    {TransformKind::Train, "train"},
}};

constexpr std::array<std::pair<DecodeMode, const char *>, 2> kDecodeModeNames{{
    {DecodeMode::Exact, "exact"},
    {DecodeMode::Fast, "fast"},
}};

template <typename Kind, std::size_t N>
const char *nameOf(const std::array<std::pair<Kind, const char *>, N> &table, Kind kind)
{
    for (const auto &[k, name] : table) {
        if (k == kind)
            return name;
    }
    return "unknown";
}

template <typename Kind, std::size_t N>
std::optional<Kind> kindOf(const std::array<std::pair<Kind, const char *>, N> &table,
                           const std::string &name)
{
    for (const auto &[k, kindName] : table) {
        if (name == kindName)
            return k;
    }
    return std::nullopt;
}

} // namespace

const char *datasetKindName(DatasetKind kind)
{
    return nameOf(kDatasetKindNames, kind);
}

std::optional<DatasetKind> datasetKindFromName(const std::string &name)
{
    return kindOf(kDatasetKindNames, name);
}

const char *transformKindName(TransformKind kind)
{
    return nameOf(kTransformKindNames, kind);
}

std::optional<TransformKind> transformKindFromName(const std::string &name)
{
    return kindOf(kTransformKindNames, name);
}

const char *decodeModeName(DecodeMode mode)
{
    return nameOf(kDecodeModeNames, mode);
}

std::optional<DecodeMode> decodeModeFromName(const std::string &name)
{
    return kindOf(kDecodeModeNames, name);
}

} // namespace loaderlab
