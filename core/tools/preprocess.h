#pragma once

// preprocessImageFolder: the "offline preprocessing" step. Decodes every image of
// an ImageFolder with the eval transform and writes the result as a tensor file
// (float32, normalised; or uint8, resized and cropped but not normalised).

#include "core/config/dataset_config.h"
#include "core/dataset/dataset.h"
#include "core/image/image_folder_dataset.h"
#include "core/record/trace_record.h"
#include "core/tools/imagenette_generator.h"

#include <string>
#include <vector>

namespace loaderlab {

struct PreprocessOptions
{
    DType dtype = DType::Float32;
    int threads = 0; // 0: one per core
    int resizeSize = 256;
    int cropSize = 224;
    // Only the images [first, end) of the folder's sorted list (end < 0: to the last),
    // as one shard of a sharded preprocess writes them; skipped images keep their
    // index in the whole folder.
    std::int64_t first = 0;
    std::int64_t end = -1;
    // Finish a file with no records (a shard whose images are all unreadable)
    // instead of failing.
    bool allowEmpty = false;
};

struct PreprocessResult
{
    std::int64_t written = 0;
    std::vector<SkippedSample> skipped; // unreadable images, with path and reason
};

// Throws DatasetError for a bad input folder, std::invalid_argument when the output
// is a directory or one of the input images or the range lies outside the folder
// (checked before decoding anything), std::runtime_error for a failed write (the
// output file is left as it was).
PreprocessResult preprocessImageFolder(const std::string &inputDir, const std::string &outputFile,
                                       const PreprocessOptions &options,
                                       const ProgressCallback &progress = {});

// The same on a folder listed already, with preprocessDatasetConfig(): the shards of
// one preprocess share a listing.
PreprocessResult preprocessImageFolder(const ImageFolderDataset &dataset,
                                       const std::string &outputFile,
                                       const PreprocessOptions &options,
                                       const ProgressCallback &progress = {});

// The image folder `inputDir` as preprocess reads it: the eval transform at the
// options' resize and crop.
DatasetConfig preprocessDatasetConfig(const std::string &inputDir,
                                      const PreprocessOptions &options);

} // namespace loaderlab
