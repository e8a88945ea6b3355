#pragma once

// DatasetConfig: what the user picks (kind, path, transform). The factory that turns
// it into an open Dataset is openDataset() (core/loader/open_dataset.h).

#include "core/config/sample_shape.h"

#include <cstdint>
#include <optional>
#include <string>

namespace loaderlab {

enum class DatasetKind { Synthetic, TensorFile, ImageFolder, Idx, Cifar10 };

// Image-folder transforms: the standard ImageNet eval and train pipelines.
enum class TransformKind { Eval, Train };

// How JPEGs are decoded: Exact gives torchvision + PIL's pixels; Fast (eval
// transform only) decodes at the smallest DCT scale M/8 that keeps the short side
// at least the resize size, then resizes exactly: faster on large photos, close
// to but not exactly the reference pixels (docs/benchmarks.md).
enum class DecodeMode { Exact, Fast };

struct DatasetConfig
{
    DatasetKind kind = DatasetKind::Synthetic;
    std::string path; // unused for Synthetic
    SampleShape syntheticShape{3, 224, 224};
    std::int64_t syntheticSamples = 4096;
    TransformKind transform = TransformKind::Eval;
    int resizeSize = 256; // eval: short side after resize
    int cropSize = 224;   // eval center crop / train RandomResizedCrop
    DecodeMode decode = DecodeMode::Exact;
    // Decompression-bomb guard: images declaring more pixels are rejected before
    // decoding (the same limit as Pillow's DecompressionBombError threshold).
    std::int64_t maxImagePixels = 2LL * 89'478'485;
    // Images larger than this many bytes are rejected without reading them.
    std::int64_t maxFileBytes = 256LL * 1024 * 1024;
};

const char *datasetKindName(DatasetKind kind); // "synthetic", "tensor", "folder", "idx", "cifar10"
std::optional<DatasetKind> datasetKindFromName(const std::string &name);
const char *transformKindName(TransformKind kind); // "eval", "train"
std::optional<TransformKind> transformKindFromName(const std::string &name);
const char *decodeModeName(DecodeMode mode); // "exact", "fast"
std::optional<DecodeMode> decodeModeFromName(const std::string &name);

} // namespace loaderlab
