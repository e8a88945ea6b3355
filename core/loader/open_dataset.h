#pragma once

// openDataset(): turns a DatasetConfig (core/config/dataset_config.h) into an open
// Dataset of any kind, synthetic, tensor file, image folder, IDX or CIFAR-10.

#include "core/config/dataset_config.h"
#include "core/dataset/dataset.h"

namespace loaderlab {

// Opens the dataset described by `config`. Throws DatasetError with the path and
// the reason when it cannot be opened (missing path, no images, wrong file size).
DatasetPtr openDataset(const DatasetConfig &config);

} // namespace loaderlab
