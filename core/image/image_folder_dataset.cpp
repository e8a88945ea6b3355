// ImageFolderDataset: scans the folder the way torchvision's ImageFolder does and
// runs decode + ImageNet transform + normalisation straight into the batch slot.

#include "core/image/image_folder_dataset.h"

#include "core/image/image_decoder.h"
#include "core/image/image_transforms.h"
#include "core/system/clock.h"
#include "core/system/regular_file.h"

#include <opencv2/core.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <system_error>
#include <utility>

#include <sys/stat.h>

namespace loaderlab {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxDepth = 16;

// Decoded images up to this size (a 12 Mpx photo) stay allocated per thread for the
// next sample; larger ones are freed after use.
constexpr std::size_t kMaxRetainedImageBytes = 36u * 1024 * 1024;

bool hasImageExtension(const fs::path &file)
{
    std::string ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".jpg" || ext == ".jpeg" || ext == ".png";
}

// Directories already scanned, by device and inode: however many symlinks lead to a
// directory (a link to "..", a cycle, a class linked into another), it is listed once.
using VisitedDirs = std::set<std::pair<dev_t, ino_t>>;

// Marks `dir` visited; false when it was already (or cannot be identified).
bool markVisited(const fs::path &dir, VisitedDirs &visited)
{
    struct stat info
    {
    };
    if (::stat(dir.c_str(), &info) != 0)
        return false;
    return visited.insert({info.st_dev, info.st_ino}).second;
}

void warnUnreadable(const fs::path &path, const std::error_code &ec)
{
    spdlog::warn("skipped {}: cannot read it: {}", path.string(),
                 pathErrorText(path.string(), ec.value()));
}

struct DirImages
{
    std::string dir;
    std::vector<std::string> files;
};

// Lists `dir`'s image files and walks its subdirectories (following symlinks) that
// were not visited yet, children in name order so the first path to reach a
// directory is always the same one.
void walk(const fs::path &dir, int depth, VisitedDirs &visited, std::vector<DirImages> &out)
{
    DirImages here{dir.string(), {}};
    std::vector<fs::path> subdirs;
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    // A folder that cannot be listed (permission denied, a path too long) is left
    // out with a warning naming it and the reason, never silently.
    if (ec)
        warnUnreadable(dir, ec);
    for (const fs::directory_entry &entry : it) {
        std::error_code entryEc;
        const fs::file_status status = entry.status(entryEc); // follows symlinks
        if (entryEc && entryEc != std::errc::no_such_file_or_directory)
            warnUnreadable(entry.path(), entryEc);
        if (fs::is_directory(status)) {
            subdirs.push_back(entry.path());
            continue;
        }
        if (!hasImageExtension(entry.path()))
            continue;
        // A FIFO, socket or device named like an image is left out here, never opened:
        // reading a FIFO would block a worker forever. (A missing symlink target stays
        // in, and fails at load time as an unreadable sample.)
        if (fs::exists(status) && !fs::is_regular_file(status)) {
            spdlog::warn("skipped {}: {}", entry.path().string(),
                         regularFileProblem(entry.path().string()));
            continue;
        }
        here.files.push_back(entry.path().string());
    }
    out.push_back(std::move(here));
    // A depth cap as well, so a pathological tree cannot exhaust the stack.
    if (depth >= kMaxDepth)
        return;
    std::sort(subdirs.begin(), subdirs.end());
    for (const fs::path &sub : subdirs) {
        if (markVisited(sub, visited))
            walk(sub, depth + 1, visited, out);
    }
}

// Images of one class folder in torchvision's order: sorted(os.walk(dir)) visits
// directories by path string, and each directory's files sorted by name.
void scanClass(const fs::path &classDir, std::int64_t label, VisitedDirs &visited,
               std::vector<ImageEntry> &entries)
{
    std::vector<DirImages> dirs;
    walk(classDir, 0, visited, dirs);
    std::sort(dirs.begin(), dirs.end(),
              [](const DirImages &a, const DirImages &b) { return a.dir < b.dir; });
    for (DirImages &dir : dirs) {
        std::sort(dir.files.begin(), dir.files.end());
        for (std::string &file : dir.files)
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
        throw DatasetError(m_config.path + ": "
                           + (ec && ec != std::errc::no_such_file_or_directory
                                  ? pathErrorText(m_config.path, ec.value())
                                  : std::string("image folder does not exist")));
    if (!fs::is_directory(root, ec))
        throw DatasetError(m_config.path + ": not a directory");
    if (m_config.resizeSize <= 0 || m_config.cropSize <= 0)
        throw DatasetError(m_config.path + ": resize and crop sizes must be positive");

    for (const fs::directory_entry &entry : fs::directory_iterator(root, ec)) {
        std::error_code dirEc;
        if (entry.is_directory(dirEc))
            m_classes.push_back(entry.path().filename().string());
        else if (dirEc && dirEc != std::errc::no_such_file_or_directory)
            warnUnreadable(entry.path(), dirEc); // a symlink loop, a name too long
    }
    if (ec)
        throw DatasetError(m_config.path + ": cannot list folder: " + ec.message());
    std::sort(m_classes.begin(), m_classes.end());
    // The root and every class folder belong to themselves: a link from one class up to
    // the root must not pull the other classes' images in under its label.
    VisitedDirs visited;
    markVisited(root, visited);
    std::vector<fs::path> classDirs;
    for (const std::string &name : m_classes) {
        if (markVisited(root / name, visited))
            classDirs.push_back(root / name);
        else
            classDirs.emplace_back(); // the same folder as an earlier class: left empty
    }
    for (std::size_t i = 0; i < m_classes.size(); ++i) {
        if (!classDirs[i].empty())
            scanClass(classDirs[i], static_cast<std::int64_t>(i), visited, m_entries);
    }
    if (m_entries.empty())
        throw DatasetError(m_config.path
                           + ": no images found (expected <class>/<image>.jpg|.jpeg|.png)");
}

std::string ImageFolderDataset::description() const
{
    return "image-folder " + m_config.path + " (" + std::to_string(m_entries.size()) + ", "
           + (m_config.transform == TransformKind::Train ? "train" : "eval")
           + (m_config.decode == DecodeMode::Fast ? ", fast decode" : "") + ")";
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
    // The decoded and transformed images are per thread and reused: no per-sample
    // allocation once the sizes have been seen.
    thread_local ImageWindow image;
    thread_local cv::Mat transformed;
    // An unusually large image is not kept per thread afterwards (it may be up to
    // max_image_pixels x 3 bytes), however this sample ends.
    struct ReleaseLarge
    {
        ~ReleaseLarge()
        {
            if (image.pixels.total() * image.pixels.elemSize() > kMaxRetainedImageBytes)
                image.pixels.release();
        }
    } releaseLarge;
    const bool eval = m_config.transform == TransformKind::Eval;
    // Only the pixels the transform reads are decoded: the resize's filter
    // windows for the center crop, or the random crop's box (drawn from the image's
    // size before decoding, from the same per-sample generator as always).
    DecodeOptions options;
    std::optional<std::mt19937_64> rng; // train only: seeding it is not free
    cv::Rect box;
    if (eval) {
        // Fast decode scales JPEGs in the DCT domain down to the resize target at most.
        if (m_config.decode == DecodeMode::Fast)
            options.fastMinShortSide = m_config.resizeSize;
        options.region = [this](cv::Size decoded) {
            return resizeCenterCropSourceRect(decoded, m_config.resizeSize, m_config.cropSize);
        };
    } else {
        rng.emplace(sampleSeed(context.seed, context.epoch, index));
        options.region = [&rng, &box](cv::Size decoded) {
            box = randomResizedCropRect(decoded, *rng);
            return box;
        };
    }
    decodeImageFile(entry.path, limits, context.timing, image, options);

    const std::int64_t start = steadyNowNs();
    // The batch slot is float32 storage handed over as bytes.
    const std::span<float> floats(reinterpret_cast<float *>(out.data()),
                                  out.size() / sizeof(float));
    try {
        if (eval) {
            resizeCenterCropNormalized(image, m_config.resizeSize, m_config.cropSize, floats);
        } else {
            resizeBoxAndFlip(image, box, m_config.cropSize, *rng, transformed);
            toNormalizedChw(transformed, floats);
        }
    } catch (const cv::Exception &e) {
        throw SampleError(entry.path, std::string("transform failed: ") + e.what());
    }
    context.timing.transformNs += steadyNowNs() - start;
    return entry.label;
}

} // namespace loaderlab
