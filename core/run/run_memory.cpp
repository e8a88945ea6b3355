// Run memory estimate: what Loader, the datasets and the transforms allocate for a
// given configuration, and the refusal of a configuration over the budget. Every
// product saturates, so absurd settings give "more than 8 EiB", never a wrapped
// small number that would pass the check.

#include "core/run/run_memory.h"

#include "core/dataset/synthetic_dataset.h"
#include "core/dataset/tensor_file_format.h"
#include "core/system/memory_budget.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>
#include <stdexcept>

namespace loaderlab {
namespace {

namespace fs = std::filesystem;

// CIFAR-10's binary record: a label byte and 3x32x32 pixels, all kept in memory.
constexpr std::int64_t kCifarRecordBytes = 1 + 3 * 32 * 32;
constexpr std::int64_t kCifarTrainSamples = 50'000;
// Bytes of one entry of the epoch's sample order (std::int64_t).
constexpr std::int64_t kIndexBytes = 8;
constexpr std::uint32_t kIdxImagesMagic = 0x00000803;

// Defaults the "dominant setting" is judged against (LoaderConfig's, 3x224x224 float32).
constexpr double kDefaultBatchSize = 32.0;
constexpr double kDefaultSampleBytes = 3.0 * 224 * 224 * 4;
constexpr double kDefaultInFlight = 5.0;

std::int64_t sampleBytesOf(const SampleShape &shape, DType dtype)
{
    std::int64_t bytes = static_cast<std::int64_t>(dtypeSize(dtype));
    for (const int side : {shape.channels, shape.height, shape.width})
        bytes = saturatingMul(bytes, std::max(side, 0));
    return bytes;
}

std::string sampleText(const SampleShape &shape, DType dtype)
{
    return shapeToString(shape) + " " + dtypeName(dtype);
}

std::int64_t pixelsOf(std::int64_t side)
{
    return saturatingMul(side, side);
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
        return std::nullopt;   // IdxDataset reports a bad header with its reason
    return header;
}

// An image-folder resize or crop the decoder could never have produced: the image
// after the transform would already be over the decompression-bomb guard.
void checkImageSizes(const DatasetConfig &config)
{
    if (config.kind != DatasetKind::ImageFolder)
        return;
    const std::pair<const char *, int> sizes[] = {{"dataset.resize", config.resizeSize},
                                                  {"dataset.crop", config.cropSize}};
    for (const auto &[setting, side] : sizes) {
        const std::int64_t pixels = pixelsOf(side);
        if (pixels > config.maxImagePixels) {
            throw std::invalid_argument(
                std::string(setting) + " " + std::to_string(side) + ": an image of "
                + std::to_string(side) + "x" + std::to_string(side) + " has "
                + std::to_string(pixels) + " pixels, over dataset.max_image_pixels "
                + std::to_string(config.maxImagePixels)
                + " (the largest image the decoder accepts)");
        }
    }
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
    f.scratchPerThreadBytes = saturatingMul(3, pixelsOf(config.cropSize));
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

// Which setting makes the estimate large: the part that dominates the total and,
// for batch buffers, the factor furthest above its default.
std::string dominantSetting(const LoaderConfig &loader, const DatasetFootprint &dataset,
                            const MemoryEstimate &e)
{
    const std::int64_t largest = std::max({e.batchBuffersBytes, e.datasetBytes, e.scratchBytes,
                                           e.indexBytes});
    if (largest == e.datasetBytes && e.datasetBytes > 0)
        return dataset.shapeSetting + " (held in memory)";
    if (largest == e.indexBytes && e.indexBytes > 0)
        return std::to_string(dataset.samples) + " samples";
    if (largest == e.scratchBytes && e.scratchBytes > 0)
        return "loader.num_workers " + std::to_string(loader.numWorkers);
    const double batchRatio = loader.batchSize / kDefaultBatchSize;
    const double sampleRatio = static_cast<double>(e.sampleBytes) / kDefaultSampleBytes;
    const double inFlightRatio = static_cast<double>(e.batchesInFlight) / kDefaultInFlight;
    if (inFlightRatio >= batchRatio && inFlightRatio >= sampleRatio && inFlightRatio > 1.0) {
        return "loader.num_workers " + std::to_string(loader.numWorkers)
               + " x loader.prefetch_factor " + std::to_string(loader.prefetchFactor)
               + (loader.pinMemory ? " with loader.pin_memory" : "");
    }
    if (batchRatio >= sampleRatio)
        return "loader.batch_size " + std::to_string(loader.batchSize);
    return dataset.shapeSetting;
}

std::string describe(const LoaderConfig &loader, const DatasetFootprint &dataset,
                     const MemoryEstimate &e)
{
    std::string text = "batch buffers: loader.batch_size " + std::to_string(loader.batchSize)
                       + " x " + sampleText(dataset.shape, dataset.dtype) + " ("
                       + formatBytes(e.sampleBytes) + ") = " + formatBytes(e.batchBytes)
                       + " per batch x " + std::to_string(e.batchesInFlight) + " in flight (";
    if (loader.numWorkers > 0) {
        text += "loader.num_workers " + std::to_string(loader.numWorkers)
                + " x loader.prefetch_factor " + std::to_string(loader.prefetchFactor)
                + " + 1 held by the consumer";
    } else {
        text += "loader.num_workers 0: the one the consumer loads";
    }
    text += std::string(loader.pinMemory ? ", x 2 for pin_memory copies" : "") + ") = "
            + formatBytes(e.batchBuffersBytes);
    if (e.datasetBytes > 0)
        text += "; dataset in memory " + formatBytes(e.datasetBytes);
    if (e.scratchBytes > 0)
        text += "; per-thread transform scratch " + formatBytes(e.scratchBytes);
    if (e.indexBytes > 0)
        text += "; sample order " + formatBytes(e.indexBytes);
    return text;
}

void checkEstimate(const RunConfig &config, const DatasetFootprint &dataset,
                   std::int64_t budgetBytes)
{
    const MemoryEstimate e = estimateRunMemory(config.loader, dataset);
    if (e.totalBytes <= budgetBytes)
        return;
    throw std::invalid_argument(
        dominantSetting(config.loader, dataset, e) + ": the run needs about "
        + formatBytes(e.totalBytes) + " of host memory, over the memory budget of "
        + formatBytes(budgetBytes)
        + " (set --memory-budget MB or memory_budget_mb in the config). Estimate: "
        + describe(config.loader, dataset, e));
}

} // namespace

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
        f.shapeSetting = "the images of " + config.path + " (" + shapeToString(dataset.sampleShape()) + ")";
        break;
    case DatasetKind::TensorFile:
        f.shapeSetting = "the samples of " + config.path + " (" + shapeToString(dataset.sampleShape()) + ")";
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
        try {
            const TensorFileHeader header = readTensorFileHeader(config.path);
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
    }
    return std::nullopt;
}

MemoryEstimate estimateRunMemory(const LoaderConfig &loader, const DatasetFootprint &dataset)
{
    MemoryEstimate e;
    e.sampleBytes = sampleBytesOf(dataset.shape, dataset.dtype);
    e.batchBytes = saturatingMul(std::max(loader.batchSize, 0), e.sampleBytes);
    // Loader dispatches W x prefetch_factor batches, each holding a pooled buffer from
    // dispatch to delivery, and refills the window as it hands one over, so the
    // consumer's batch is one more. With pin_memory every one of them may also hold
    // its page-locked copy (the pinned pool has the same bound).
    const std::int64_t workers = std::max(loader.numWorkers, 0);
    const std::int64_t window = saturatingMul(workers, std::max(loader.prefetchFactor, 0));
    e.batchesInFlight = saturatingMul(workers > 0 ? saturatingAdd(window, 1) : 1,
                                      loader.pinMemory ? 2 : 1);
    e.batchBuffersBytes = saturatingMul(e.batchesInFlight, e.batchBytes);
    e.datasetBytes = dataset.residentBytes;
    e.scratchBytes = saturatingMul(std::max<std::int64_t>(workers, 1), dataset.scratchPerThreadBytes);
    e.indexBytes = saturatingMul(dataset.samples, kIndexBytes);
    e.totalBytes = saturatingAdd(saturatingAdd(e.batchBuffersBytes, e.datasetBytes),
                                 saturatingAdd(e.scratchBytes, e.indexBytes));
    return e;
}

void checkRunMemory(const RunConfig &config, std::int64_t budgetBytes)
{
    checkImageSizes(config.dataset);
    if (const auto footprint = peekDatasetFootprint(config.dataset))
        checkEstimate(config, *footprint, budgetBytes);
}

void checkRunMemory(const RunConfig &config, const Dataset &dataset, std::int64_t budgetBytes)
{
    checkImageSizes(config.dataset);
    checkEstimate(config, datasetFootprint(config.dataset, dataset), budgetBytes);
}

} // namespace loaderlab
