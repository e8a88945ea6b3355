#pragma once

// Dataset generators for `loaderlab make-dataset`: an Imagenette-like JPEG folder
// (ImageFolder layout, natural-looking content, deterministic for a seed) and a
// preprocessed tensor file of random samples.

#include "core/dataset/dataset.h"

#include <cstdint>
#include <functional>
#include <string>

namespace loaderlab {

struct ImageFolderSpec
{
    int classes = 10;
    int imagesPerClass = 100;
    int minShortSide = 300;
    int maxShortSide = 500;
    int jpegQuality = 90;
    std::uint64_t seed = 0;
};

// Called after each item with (done, total); may be empty.
using ProgressCallback = std::function<void(std::int64_t done, std::int64_t total)>;

// Writes `spec` into `dir` (created; must not exist or be empty). Images are
// written into "<dir>.part" and the folder is renamed into place only when
// complete. Throws std::invalid_argument for bad settings or a target that exists
// and is not an empty folder, std::runtime_error for a failed write; both name the
// path and the reason.
void generateImageFolder(const std::string &dir, const ImageFolderSpec &spec,
                         const ProgressCallback &progress = {});

// Writes `count` random samples of `shape` (labels 0..9) as a tensor file. Throws
// std::invalid_argument for a bad shape or count and when `path` already exists
// (nothing is replaced), std::runtime_error for a failed write.
void generateTensorFile(const std::string &path, std::int64_t count, SampleShape shape, DType dtype,
                        std::uint64_t seed, const ProgressCallback &progress = {});

} // namespace loaderlab
