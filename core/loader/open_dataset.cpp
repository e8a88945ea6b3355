// openDataset(): the one place that maps a configuration onto a Dataset class. It
// sits above both core/dataset and core/image, so it can open every kind.

#include "core/loader/open_dataset.h"

#include "core/dataset/cifar10_dataset.h"
#include "core/dataset/idx_dataset.h"
#include "core/dataset/synthetic_dataset.h"
#include "core/dataset/tensor_file_dataset.h"
#include "core/image/image_folder_dataset.h"
#include "core/system/regular_file.h"

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

namespace loaderlab {

namespace {

// The config carries no seed of its own; a fixed one keeps the synthetic data the
// same from run to run, so runs stay comparable.
constexpr std::uint64_t kSyntheticSeed = 0x4c6f61646572ULL;

} // namespace

DatasetPtr openDataset(const DatasetConfig &config)
{
    if (config.kind == DatasetKind::Synthetic) {
        return std::make_shared<SyntheticDataset>(config.syntheticShape, config.syntheticSamples,
                                                  kSyntheticSeed);
    }

    // Checked here once, so every dataset class reports a missing path the same way.
    if (config.path.empty()) {
        throw DatasetError(std::string("no dataset path given for ")
                           + datasetKindName(config.kind));
    }
    std::error_code error;
    if (!std::filesystem::exists(config.path, error))
        throw DatasetError(config.path + ": "
                           + pathErrorText(config.path, error ? error.value() : ENOENT));

    switch (config.kind) {
    case DatasetKind::TensorFile:
        return std::make_shared<TensorFileDataset>(config.path);
    case DatasetKind::ImageFolder:
        return std::make_shared<ImageFolderDataset>(config);
    case DatasetKind::Idx:
        return std::make_shared<IdxDataset>(config.path);
    case DatasetKind::Cifar10:
        return std::make_shared<Cifar10Dataset>(config.path);
    case DatasetKind::Python:
        throw DatasetError(config.path
                           + ": a Python pipeline file runs on PyTorch's DataLoader "
                             "(engine pytorch), not on LoaderLab's loader");
    case DatasetKind::Synthetic:
        break;
    }
    throw DatasetError(config.path + ": unknown dataset kind");
}

} // namespace loaderlab
