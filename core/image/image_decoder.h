#pragma once

// Image decoding for the image-folder pipeline: reads a JPEG or PNG file, checks
// it before handing it to OpenCV (size limit, declared pixel count, truncation),
// and decodes it to an RGB, uint8, HWC cv::Mat. Every failure is a SampleError
// naming the file, never a crash.

#include "core/dataset/dataset.h"

#include <opencv2/core/mat.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace loaderlab {

enum class ImageFormat { Jpeg, Png };

// What the file header declares, read without decoding any pixel data.
struct ImageHeaderInfo
{
    ImageFormat format = ImageFormat::Jpeg;
    int width = 0;
    int height = 0;
};

struct DecodeLimits
{
    std::int64_t maxFileBytes = 256LL * 1024 * 1024;
    std::int64_t maxImagePixels = 2LL * 89'478'485;
};

// Reads the whole of `path` into `out` (resized to the file size) with POSIX I/O.
// Throws SampleError for a missing/unreadable file, an empty file, or a file
// larger than `maxFileBytes` (checked before reading).
void readImageFile(const std::string &path, std::int64_t maxFileBytes,
                   std::vector<std::uint8_t> &out);

// Parses the JPEG SOF or PNG IHDR header. Throws SampleError ("not a JPEG or PNG
// image", a malformed header) using `path` as the source.
ImageHeaderInfo parseImageHeader(std::span<const std::uint8_t> data, const std::string &path);

// Header checks, then cv::imdecode and BGR->RGB. Rejects images declaring more
// than `limits.maxImagePixels` pixels and JPEGs without an EOI marker (truncated).
cv::Mat decodeImageBytes(std::span<const std::uint8_t> data, const std::string &path,
                         const DecodeLimits &limits);

// readImageFile + decodeImageBytes; adds the read and decode times to `timing`.
// The file buffer is a thread-local scratch vector, so steady-state loads do not
// allocate it again.
cv::Mat decodeImageFile(const std::string &path, const DecodeLimits &limits, SampleTiming &timing);

// Turns OpenCV's internal thread pool off, once per process. Called by the
// decoder itself; exposed for tools that use OpenCV directly.
void disableOpenCvThreading();

} // namespace loaderlab
