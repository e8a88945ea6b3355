// DatasetFootprint: the sizes each dataset kind allocates, mirrored from the dataset
// classes, and the header reads that learn them before a file is opened.

#include "core/memory/dataset_footprint.h"

#include "core/dataset/synthetic_dataset.h"
#include "core/dataset/tensor_shards.h"
#include "core/system/memory_budget.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>

namespace loaderlab {
namespace {

namespace fs = std::filesystem;

// CIFAR-10's binary record: a label byte and 3x32x32 pixels, all kept in memory.
constexpr std::int64_t kCifarRecordBytes = 1 + 3 * 32 * 32;
constexpr std::int64_t kCifarTrainSamples = 50'000;
constexpr std::uint32_t kIdxImagesMagic = 0x00000803;

// Headers are read from regular files only: opening a FIFO would wait for a writer.
bool isRegularFile(const std::string &path)
{
    std::error_code error;
    return fs::is_regular_file(path, error);
}

// The images file an IdxDataset opened with `path` reads (the same rule as its
// constructor): the file itself, or train-images-idx3-ubyte[.gz] in a directory.
std::string idxImagesPath(const std::string &path)
{
    std::error_code error;
    if (!fs::is_directory(path, error))
        return path;
    const fs::path plain = fs::path(path) / "train-images-idx3-ubyte";
    return fs::is_regular_file(plain, error) ? plain.string() : plain.string() + ".gz";
}

// The 16-byte IDX images header: magic, count, rows, columns. Nothing else is read,
// so a small gzip file declaring gigabytes is judged before it is inflated.
std::optional<std::array<std::uint32_t, 4>> readIdxImagesHeader(const std::string &path)
{
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file)
        return std::nullopt;
    std::array<unsigned char, 16> raw{};
    const int got = gzread(file, raw.data(), static_cast<unsigned>(raw.size()));
    gzclose(file);
    if (got != static_cast<int>(raw.size()))
        return std::nullopt;
    std::array<std::uint32_t, 4> header{};
    for (std::size_t i = 0; i < header.size(); ++i) {
        header[i] = (std::uint32_t{raw[4 * i]} << 24) | (std::uint32_t{raw[4 * i + 1]} << 16)
                    | (std::uint32_t{raw[4 * i + 2]} << 8) | std::uint32_t{raw[4 * i + 3]};
    }
    if (header[0] != kIdxImagesMagic || header[2] == 0 || header[3] == 0
        || header[2] > static_cast<std::uint32_t>(std::numeric_limits<int>::max())
        || header[3] > static_cast<std::uint32_t>(std::numeric_limits<int>::max()))
        return std::nullopt; // IdxDataset reports a bad header with its reason
    return header;
}

DatasetFootprint imageFolderFootprint(const DatasetConfig &config, std::int64_t samples)
{
    DatasetFootprint f;
    f.shape = {3, config.cropSize, config.cropSize};
    f.dtype = DType::Float32;
    f.samples = samples;
    // Each loading thread keeps its transformed uint8 crop (thread_local in
    // ImageFolderDataset::load). The decoded image is not counted: its size depends
    // on the files, bounded by dataset.max_image_pixels x 3 bytes per thread.
    f.scratchPerThreadBytes = saturatingMul(3, saturatingMul(config.cropSize, config.cropSize));
    f.shapeSetting = "dataset.crop " + std::to_string(config.cropSize);
    return f;
}

DatasetFootprint syntheticFootprint(const DatasetConfig &config)
{
    DatasetFootprint f;
    f.shape = config.syntheticShape;
    f.dtype = DType::Float32;
    f.samples = config.syntheticSamples;
    const std::int64_t pool = std::clamp<std::int64_t>(config.syntheticSamples, 0,
                                                       SyntheticDataset::kMaxPoolSize);
    f.residentBytes = saturatingMul(pool, sampleBytesOf(f.shape, f.dtype));
    f.shapeSetting = "dataset.synthetic_shape " + shapeToString(f.shape);
    return f;
}

DatasetFootprint cifarFootprint(std::int64_t samples)
{
    DatasetFootprint f;
    f.shape = {3, 32, 32};
    f.samples = samples;
    f.residentBytes = saturatingMul(samples, kCifarRecordBytes);
    f.shapeSetting = "CIFAR-10 3x32x32";
    return f;
}

} // namespace

std::int64_t sampleBytesOf(const SampleShape &shape, DType dtype)
{
    std::int64_t bytes = static_cast<std::int64_t>(dtypeSize(dtype));
    for (const int side : {shape.channels, shape.height, shape.width})
        bytes = saturatingMul(bytes, std::max(side, 0));
    return bytes;
}

DatasetFootprint datasetFootprint(const DatasetConfig &config, const Dataset &dataset)
{
    DatasetFootprint f;
    switch (config.kind) {
    case DatasetKind::Synthetic:
        f = syntheticFootprint(config);
        break;
    case DatasetKind::ImageFolder:
        f = imageFolderFootprint(config, dataset.size());
        break;
    case DatasetKind::Cifar10:
        f = cifarFootprint(dataset.size());
        break;
    case DatasetKind::Idx:
        f.residentBytes = saturatingMul(dataset.size(),
                                        sampleBytesOf(dataset.sampleShape(), DType::UInt8));
        f.shapeSetting = "the images of " + config.path + " ("
                         + shapeToString(dataset.sampleShape()) + ")";
        break;
    case DatasetKind::TensorFile:
        f.shapeSetting = "the samples of " + config.path + " ("
                         + shapeToString(dataset.sampleShape()) + ")";
        break;
    case DatasetKind::Python: // never opened by LoaderLab's loader: nothing to size
        break;
    }
    // The opened dataset is what the loader will size its buffers for.
    f.shape = dataset.sampleShape();
    f.dtype = dataset.dtype();
    f.samples = dataset.size();
    return f;
}

std::optional<DatasetFootprint> peekDatasetFootprint(const DatasetConfig &config)
{
    switch (config.kind) {
    case DatasetKind::Synthetic:
        return syntheticFootprint(config);
    case DatasetKind::ImageFolder:
        return imageFolderFootprint(config, 0);
    case DatasetKind::Cifar10:
        return cifarFootprint(kCifarTrainSamples);
    case DatasetKind::TensorFile: {
        // readTensorFileHeader refuses what is not a regular file before opening it.
        try {
            const TensorFileHeader header = tensorDatasetHeader(config.path);
            DatasetFootprint f;
            f.shape = header.shape;
            f.dtype = header.dtype;
            f.samples = static_cast<std::int64_t>(
                std::min<std::uint64_t>(header.count, static_cast<std::uint64_t>(kBytesUnbounded)));
            f.shapeSetting = "the samples of " + config.path + " (" + shapeToString(f.shape) + ")";
            return f;
        } catch (const std::exception &) {
            return std::nullopt;
        }
    }
    case DatasetKind::Idx: {
        const std::string images = idxImagesPath(config.path);
        if (!isRegularFile(images))
            return std::nullopt;
        const auto header = readIdxImagesHeader(images);
        if (!header)
            return std::nullopt;
        DatasetFootprint f;
        f.shape = {1, static_cast<int>((*header)[2]), static_cast<int>((*header)[3])};
        f.dtype = DType::Float32;
        f.samples = (*header)[1];
        // IdxDataset inflates every image into memory as bytes when it is opened.
        f.residentBytes = saturatingMul(f.samples, sampleBytesOf(f.shape, DType::UInt8));
        f.shapeSetting = "the images of " + images + " (" + std::to_string(f.samples) + " x "
                         + shapeToString(f.shape) + ")";
        return f;
    }
    case DatasetKind::Python: // the user's code: its footprint is not known beforehand
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace loaderlab
