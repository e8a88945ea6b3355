#pragma once

// DatasetFootprint: what the run memory estimate needs to know about a dataset
// (sample shape and type, sample count, bytes it holds in memory, per-thread
// scratch), taken from an opened dataset, or before opening from the config and
// the file's header, because opening itself allocates: a synthetic dataset
// generates its pool and an IDX dataset inflates its whole file.

#include "core/config/dataset_config.h"
#include "core/dataset/dataset.h"

#include <cstdint>
#include <optional>
#include <string>

namespace loaderlab {

struct DatasetFootprint
{
    SampleShape shape;
    DType dtype = DType::Float32;
    std::int64_t samples = 0;       // 0 when not known yet (an unscanned image folder)
    std::int64_t residentBytes = 0; // held in memory for the whole run
    std::int64_t scratchPerThreadBytes = 0;
    // How the messages name the sample size: "dataset.synthetic_shape 3x224x224",
    // "dataset.crop 224", "the samples of /data/x.llt (3x224x224)".
    std::string shapeSetting;
};

// C x H x W x dtype size, saturated at kBytesUnbounded instead of overflowing.
std::int64_t sampleBytesOf(const SampleShape &shape, DType dtype);

// The footprint of an opened dataset, described by `config`.
DatasetFootprint datasetFootprint(const DatasetConfig &config, const Dataset &dataset);

// The footprint known before opening: from the config (synthetic, image folder,
// CIFAR-10) or from the header of a regular file (tensor file; IDX: 16 bytes read,
// nothing inflated). std::nullopt when the file cannot be read that way (missing,
// not a regular file, bad header): openDataset reports why.
std::optional<DatasetFootprint> peekDatasetFootprint(const DatasetConfig &config);

} // namespace loaderlab
