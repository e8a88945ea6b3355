#pragma once

// Image decoding for the image-folder pipeline: reads a JPEG or PNG file, checks
// it before handing it to a codec (size limit, declared pixel count, truncation),
// and decodes it to an RGB, uint8, HWC image (JPEGs with libjpeg-turbo, PNGs with
// OpenCV). Every failure is a SampleError naming the file, never a crash.

#include "core/dataset/dataset.h"
#include "core/image/image_window.h"

#include <opencv2/core/mat.hpp>

#include <cstdint>
#include <functional>
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

struct DecodeOptions
{
    // > 0: the fast decode mode. A JPEG is decoded at the smallest DCT scale M/8
    // whose short side is still at least this many pixels (not pixel-exact; see
    // docs/benchmarks.md).
    int fastMinShortSide = 0;
    // When set, called once per image with the size it decodes to; returns the
    // pixels the caller will read. A JPEG decoder may then leave the rest out (the
    // window it returns covers the region); other formats decode whole.
    std::function<cv::Rect(cv::Size decodedSize)> region;
};

// Header checks, then the decode to RGB into `image` (its pixels reallocated only
// when their size changes). Rejects images declaring more than
// `limits.maxImagePixels` pixels and JPEGs without an EOI marker (truncated).
void decodeImageBytes(std::span<const std::uint8_t> data, const std::string &path,
                      const DecodeLimits &limits, ImageWindow &image,
                      const DecodeOptions &options = {});
// The whole image, at full size.
cv::Mat decodeImageBytes(std::span<const std::uint8_t> data, const std::string &path,
                         const DecodeLimits &limits);

// readImageFile + decodeImageBytes; adds the read and decode times to `timing`.
// The file buffer is a thread-local scratch vector, so steady-state loads do not
// allocate it again.
void decodeImageFile(const std::string &path, const DecodeLimits &limits, SampleTiming &timing,
                     ImageWindow &image, const DecodeOptions &options = {});
cv::Mat decodeImageFile(const std::string &path, const DecodeLimits &limits, SampleTiming &timing);

// Turns OpenCV's internal thread pool off, once per process. Called by the
// decoder itself; exposed for tools that use OpenCV directly.
void disableOpenCvThreading();

} // namespace loaderlab
