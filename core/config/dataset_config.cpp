// DatasetConfig helpers: kind and transform names for the CLI and JSON configs.
// openDataset() (core/loader/open_dataset.h) maps a configuration onto a Dataset class.

#include "core/config/dataset_config.h"

#include <stdexcept>
#include <string>

// lupdate reads the kinds' labels from this file (context "DatasetKind"); core has
// no Qt, so the marker expands to the plain text here.
#define QT_TRANSLATE_NOOP(scope, text) text

namespace loaderlab {

namespace {

// The one list of dataset kinds (what each field means: dataset_config.h).
constexpr DatasetKindInfo kDatasetKinds[] = {
    {.kind = DatasetKind::Synthetic,
     .name = "synthetic",
     .label = QT_TRANSLATE_NOOP("DatasetKind", "synthetic"),
     .path = DatasetPathKind::None,
     .pytorchEngine = true},
    {.kind = DatasetKind::TensorFile,
     .name = "tensor",
     .label = QT_TRANSLATE_NOOP("DatasetKind", "preprocessed tensor file"),
     .path = DatasetPathKind::File,
     .pytorchEngine = true},
    {.kind = DatasetKind::ImageFolder,
     .name = "folder",
     .label = QT_TRANSLATE_NOOP("DatasetKind", "image folder"),
     .path = DatasetPathKind::Folder,
     .imageTransform = true,
     .pytorchEngine = true},
    {.kind = DatasetKind::Idx,
     .name = "idx",
     .label = QT_TRANSLATE_NOOP("DatasetKind", "IDX (MNIST)"),
     .path = DatasetPathKind::Folder},
    {.kind = DatasetKind::Cifar10,
     .name = "cifar10",
     .label = QT_TRANSLATE_NOOP("DatasetKind", "CIFAR-10"),
     .path = DatasetPathKind::Folder},
    // The user's own Dataset, transforms and step in a Python file
    // (docs/your-pipeline.md): only PyTorch's DataLoader can run it.
    {.kind = DatasetKind::Python,
     .name = "python",
     .label = QT_TRANSLATE_NOOP("DatasetKind", "Python pipeline file"),
     .path = DatasetPathKind::File,
     .pytorchEngine = true,
     .loaderlabEngine = false},
};

} // namespace

std::span<const DatasetKindInfo> datasetKinds()
{
    return kDatasetKinds;
}

const DatasetKindInfo &datasetKindInfo(DatasetKind kind)
{
    for (const DatasetKindInfo &info : kDatasetKinds) {
        if (info.kind == kind)
            return info;
    }
    throw std::invalid_argument("dataset kind " + std::to_string(static_cast<int>(kind))
                                + " is not in the table of kinds");
}

const char *datasetKindName(DatasetKind kind)
{
    for (const DatasetKindInfo &info : kDatasetKinds) {
        if (info.kind == kind)
            return info.name.data();
    }
    return "unknown";
}

std::optional<DatasetKind> datasetKindFromName(const std::string &name)
{
    for (const DatasetKindInfo &info : kDatasetKinds) {
        if (info.name == name)
            return info.kind;
    }
    return std::nullopt;
}

// The tables' names are literals, so their data is NUL-terminated.
const char *transformKindName(TransformKind kind)
{
    return enumName(kTransformKindNames, kind).data();
}

std::optional<TransformKind> transformKindFromName(const std::string &name)
{
    return enumFromName(kTransformKindNames, name);
}

const char *decodeModeName(DecodeMode mode)
{
    return enumName(kDecodeModeNames, mode).data();
}

std::optional<DecodeMode> decodeModeFromName(const std::string &name)
{
    return enumFromName(kDecodeModeNames, name);
}

} // namespace loaderlab
