// ImageFolderDataset: scans the folder the way torchvision's ImageFolder does and
// runs decode + ImageNet transform + normalisation straight into the batch slot.

#include "core/image/image_folder_dataset.h"

#include "core/image/image_decoder.h"
#include "core/image/image_transforms.h"
#include "core/loader/clock.h"

#include <opencv2/core.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <system_error>

namespace loaderlab {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxDepth = 16;

bool hasImageExtension(const fs::path &file)
{
    std::string ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".jpg" || ext == ".jpeg" || ext == ".png";
}

// Images of one class folder in torchvision's order: sorted(os.walk(dir)) visits
// directories by path string, and each directory's files sorted by name.
void scanClass(const fs::path &classDir, std::int64_t label, std::vector<ImageEntry> &entries)
{
    std::vector<std::string> dirs{classDir.string()};
    std::error_code ec;
    const auto options = fs::directory_options::follow_directory_symlink
                         | fs::directory_options::skip_permission_denied;
    for (fs::recursive_directory_iterator it(classDir, options, ec), end; !ec && it != end;
         it.increment(ec)) {
        // A depth cap, so a symlink cycle cannot make the scan run forever.
        if (it.depth() >= kMaxDepth)
            it.disable_recursion_pending();
        std::error_code entryEc;
        if (it->is_directory(entryEc))
            dirs.push_back(it->path().string());
    }
    std::sort(dirs.begin(), dirs.end());
    std::vector<std::string> files;
    for (const std::string &dir : dirs) {
        files.clear();
        for (const fs::directory_entry &entry : fs::directory_iterator(dir, ec)) {
            std::error_code fileEc;
            if (!entry.is_directory(fileEc) && hasImageExtension(entry.path()))
                files.push_back(entry.path().string());
        }
        std::sort(files.begin(), files.end());
        for (std::string &file : files)
            entries.push_back({std::move(file), label});
    }
}

} // namespace

ImageFolderDataset::ImageFolderDataset(const DatasetConfig &config)
    : m_config(config)
{
    disableOpenCvThreading();
    const fs::path root(m_config.path);
    std::error_code ec;
    if (!fs::exists(root, ec))
        throw DatasetError(m_config.path + ": image folder does not exist");
    if (!fs::is_directory(root, ec))
        throw DatasetError(m_config.path + ": not a directory");
    if (m_config.resizeSize <= 0 || m_config.cropSize <= 0)
        throw DatasetError(m_config.path + ": resize and crop sizes must be positive");

    for (const fs::directory_entry &entry : fs::directory_iterator(root, ec)) {
        std::error_code dirEc;
        if (entry.is_directory(dirEc))
            m_classes.push_back(entry.path().filename().string());
    }
    if (ec)
        throw DatasetError(m_config.path + ": cannot list folder: " + ec.message());
    std::sort(m_classes.begin(), m_classes.end());
    for (std::size_t i = 0; i < m_classes.size(); ++i)
        scanClass(root / m_classes[i], static_cast<std::int64_t>(i), m_entries);
    if (m_entries.empty())
        throw DatasetError(m_config.path
                           + ": no images found (expected <class>/<image>.jpg|.jpeg|.png)");
}

std::string ImageFolderDataset::description() const
{
    return "image-folder " + m_config.path + " (" + std::to_string(m_entries.size()) + ", "
           + (m_config.transform == TransformKind::Train ? "train" : "eval") + ")";
}

std::int64_t ImageFolderDataset::size() const
{
    return static_cast<std::int64_t>(m_entries.size());
}

SampleShape ImageFolderDataset::sampleShape() const
{
    return {3, m_config.cropSize, m_config.cropSize};
}

std::int64_t ImageFolderDataset::load(std::int64_t index, std::span<std::byte> out,
                                      SampleContext &context) const
{
    if (index < 0 || index >= size())
        throw std::out_of_range("ImageFolderDataset::load: index out of range");
    if (out.size() != sampleBytes())
        throw std::invalid_argument("ImageFolderDataset::load: output has the wrong size");
    const ImageEntry &entry = m_entries[static_cast<std::size_t>(index)];

    const DecodeLimits limits{m_config.maxFileBytes, m_config.maxImagePixels};
    const cv::Mat image = decodeImageFile(entry.path, limits, context.timing);

    const std::int64_t start = steadyNowNs();
    // One transformed image per thread, reused: no per-sample allocation here.
    thread_local cv::Mat transformed;
    try {
        if (m_config.transform == TransformKind::Train) {
            std::mt19937_64 rng(sampleSeed(context.seed, context.epoch, index));
            randomResizedCrop(image, m_config.cropSize, rng, transformed);
        } else {
            resizeCenterCrop(image, m_config.resizeSize, m_config.cropSize, transformed);
        }
    } catch (const cv::Exception &e) {
        throw SampleError(entry.path, std::string("transform failed: ") + e.what());
    }
    // The batch slot is float32 storage handed over as bytes.
    const std::span<float> floats(reinterpret_cast<float *>(out.data()),
                                  out.size() / sizeof(float));
    toNormalizedChw(transformed, floats);
    context.timing.transformNs += steadyNowNs() - start;
    return entry.label;
}

} // namespace loaderlab
