#pragma once

// DatasetConfig: what the user picks (kind, path, transform). The factory that turns
// it into an open Dataset is openDataset() (core/loader/open_dataset.h).

#include "core/config/enum_names.h"
#include "core/config/sample_shape.h"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace loaderlab {

// A new kind is added here, to datasetKinds() (dataset_config.cpp) and to the
// switches over it that -Wswitch then names (openDataset, the memory footprint).
enum class DatasetKind { Synthetic, TensorFile, ImageFolder, Idx, Cifar10, Python };

// What a kind's dataset.path names; the window's Browse button picks one of these.
enum class DatasetPathKind {
    None,   // no path: the data is generated
    File,   // a file (Browse opens a file dialog)
    Folder, // a folder, or for some kinds a file in it (Browse opens a folder dialog)
};

// One dataset kind, described once: the JSON configs and the command line use its
// name, the window's dataset combo its label, and the controls, the sweep editor and
// the engines what it needs. Labels are English; the window translates them in the
// context "DatasetKind".
struct DatasetKindInfo
{
    DatasetKind kind;
    std::string_view name;  // "synthetic": in configs, on the command line, in sweeps
    std::string_view label; // "image folder": the window's dataset combo
    DatasetPathKind path;
    bool imageTransform = false; // dataset.transform and dataset.decode apply to it
    bool pytorchEngine = false;  // PyTorch's DataLoader engine can read it
    bool loaderlabEngine = true; // LoaderLab's own engine can read it
};

// Every kind, in the order the window and the help texts list them.
std::span<const DatasetKindInfo> datasetKinds();
const DatasetKindInfo &datasetKindInfo(DatasetKind kind);

// Image-folder transforms: the standard ImageNet eval and train pipelines.
enum class TransformKind { Eval, Train };

inline constexpr EnumNames<TransformKind, 2> kTransformKindNames{{
    {TransformKind::Eval, "eval"},
    {TransformKind::Train, "train"},
}};

// How JPEGs are decoded: Exact gives torchvision + PIL's pixels; Fast (eval
// transform only) decodes at the smallest DCT scale M/8 that keeps the short side
// at least the resize size, then resizes exactly: faster on large photos, close
// to but not exactly the reference pixels (docs/benchmarks.md).
enum class DecodeMode { Exact, Fast };

inline constexpr EnumNames<DecodeMode, 2> kDecodeModeNames{{
    {DecodeMode::Exact, "exact"},
    {DecodeMode::Fast, "fast"},
}};

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
    // Kind Python: the pipeline file's make_dataset(args) and make_step(args) get
    // these (dataset.args), each value the JSON text of a string, number or boolean.
    std::map<std::string, std::string> args;
};

const char *datasetKindName(DatasetKind kind); // datasetKindInfo(kind).name
std::optional<DatasetKind> datasetKindFromName(const std::string &name);
// The names in kTransformKindNames and kDecodeModeNames; each string lives for the
// program (a literal).
const char *transformKindName(TransformKind kind);
std::optional<TransformKind> transformKindFromName(const std::string &name);
const char *decodeModeName(DecodeMode mode);
std::optional<DecodeMode> decodeModeFromName(const std::string &name);

} // namespace loaderlab
