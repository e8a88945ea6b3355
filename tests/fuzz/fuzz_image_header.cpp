// Fuzz target: the image header guard (core/image/image_decoder.h).
// parseImageHeader reads the JPEG SOF / PNG IHDR dimensions by hand, and
// decodeImageBytes refuses declared sizes over the pixel limit and truncated JPEGs
// before OpenCV sees the bytes. A SampleError is a clean refusal. The pixel limit
// is small here (1 Mpx) so that a header the guard lets through is cheap to
// decode, and the guard's own arithmetic is still exercised at its bounds. Each
// input is also decoded as the eval transform asks for it: DCT-scaled and only
// the region a small center crop reads (libjpeg's cropping and row skipping),
// then transformed from that window.

#include "core/image/image_decoder.h"
#include "core/image/image_transforms.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::span<const std::uint8_t> bytes(data, size);
    const std::string source = "fuzz-input";
    try {
        const loaderlab::ImageHeaderInfo header = loaderlab::parseImageHeader(bytes, source);
        (void)header;
    } catch (const loaderlab::SampleError &) {
    }

    loaderlab::DecodeLimits limits;
    limits.maxImagePixels = 1 << 20;
    try {
        const cv::Mat image = loaderlab::decodeImageBytes(bytes, source, limits);
        if (image.empty() || std::int64_t{image.cols} * image.rows > limits.maxImagePixels)
            std::abort(); // the guard let through what it promises to refuse
    } catch (const loaderlab::SampleError &) {
    }

    constexpr int kResize = 64;
    constexpr int kCrop = 56;
    try {
        loaderlab::DecodeOptions options;
        options.fastMinShortSide = kResize;
        cv::Rect region;
        options.region = [&region](cv::Size s) {
            region = loaderlab::resizeCenterCropSourceRect(s, kResize, kCrop);
            return region;
        };
        loaderlab::ImageWindow window;
        loaderlab::decodeImageBytes(bytes, source, limits, window, options);
        if (window.pixels.empty() || !window.covers(region))
            std::abort(); // a decode that succeeded must hold the region asked for
        std::vector<float> out(3 * kCrop * kCrop);
        loaderlab::resizeCenterCropNormalized(window, kResize, kCrop, out);
    } catch (const loaderlab::SampleError &) {
    }
    return 0;
}
