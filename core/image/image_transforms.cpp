// ImageNet transforms matching torchvision + PIL: sizes, crops and offsets with
// torchvision's rounding, normalisation bit-identical to its float32 arithmetic.
// The resampler itself is in resample.cpp.

#include "core/image/image_transforms.h"
#include "core/image/resample_kernels.h"
#include "core/system/splitmix64.h"

#include <opencv2/core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace loaderlab {

namespace {

// Python's round(): halves go to the even neighbour.
long long pyRound(double v)
{
    const double lower = std::floor(v);
    const double diff = v - lower;
    auto r = static_cast<long long>(lower);
    if (diff > 0.5 || (diff == 0.5 && (r % 2) != 0))
        ++r;
    return r;
}

// Offset of a centered crop: int(round(d / 2.0)) for d = size - crop >= 0.
int centerOffset(int d)
{
    return static_cast<int>(pyRound(d / 2.0));
}

void flipHorizontal(cv::Mat &img)
{
    for (int y = 0; y < img.rows; ++y) {
        std::uint8_t *row = img.ptr<std::uint8_t>(y);
        for (int l = 0, r = img.cols - 1; l < r; ++l, --r) {
            std::swap(row[l * 3], row[r * 3]);
            std::swap(row[l * 3 + 1], row[r * 3 + 1]);
            std::swap(row[l * 3 + 2], row[r * 3 + 2]);
        }
    }
}

// Uniform double in [0, 1) from the top 53 bits: the same on every standard
// library, unlike std::uniform_real_distribution.
double uniform01(std::mt19937_64 &rng)
{
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

void checkRgb(const cv::Mat &img, const char *what)
{
    if (img.type() != CV_8UC3)
        throw std::invalid_argument(std::string(what) + ": expects an 8-bit 3-channel image");
}

} // namespace

// 256-entry tables of (v / 255 - mean) / std in float32, evaluated as torchvision
// does, so the output is bit-identical and the hot loop is three lookups a pixel.
const NormalizeTable &normalizeTable()
{
    static const NormalizeTable table = [] {
        NormalizeTable t{};
        for (int c = 0; c < 3; ++c)
            for (int v = 0; v < 256; ++v)
                t[c][v] = (static_cast<float>(v) / 255.0f - kImageNetMean[c]) / kImageNetStd[c];
        return t;
    }();
    return table;
}

cv::Mat resizeBilinear(const cv::Mat &img, int width, int height)
{
    cv::Mat dst;
    resampleBilinear(img, {width, height}, {0, 0, width, height}, dst);
    return dst;
}

cv::Size shortSideSize(cv::Size in, int size)
{
    const bool portrait = in.width <= in.height;
    const int shortSide = portrait ? in.width : in.height;
    const int longSide = portrait ? in.height : in.width;
    // Python: int(size * long / short), a true division then truncation.
    const auto newLong = static_cast<int>(static_cast<double>(std::int64_t{size} * longSide)
                                          / shortSide);
    return portrait ? cv::Size(size, newLong) : cv::Size(newLong, size);
}

cv::Mat resizeShortSide(const cv::Mat &img, int size)
{
    const cv::Size out = shortSideSize(img.size(), size);
    return resizeBilinear(img, out.width, out.height);
}

cv::Mat centerCrop(const cv::Mat &img, int size)
{
    checkRgb(img, "centerCrop");
    // Per axis: a crop that fits takes a rounded-centre window; a larger one is
    // padded with (crop - dim) // 2 zeros before, as torchvision's pad does.
    const auto axis = [size](int dim, int &srcOffset, int &dstOffset, int &length) {
        srcOffset = size <= dim ? centerOffset(dim - size) : 0;
        dstOffset = size <= dim ? 0 : (size - dim) / 2;
        length = std::min(size, dim);
    };
    int sx = 0, dx = 0, w = 0, sy = 0, dy = 0, h = 0;
    axis(img.cols, sx, dx, w);
    axis(img.rows, sy, dy, h);
    cv::Mat out = cv::Mat::zeros(size, size, CV_8UC3);
    img(cv::Rect(sx, sy, w, h)).copyTo(out(cv::Rect(dx, dy, w, h)));
    return out;
}

namespace {

// The crop inside the resized image, or an empty rect when the crop is larger
// than the resized image (torchvision then pads).
cv::Rect centerCropRoi(cv::Size resized, int cropSize)
{
    if (cropSize > resized.width || cropSize > resized.height)
        return {};
    return {centerOffset(resized.width - cropSize), centerOffset(resized.height - cropSize),
            cropSize, cropSize};
}

} // namespace

void resizeCenterCropNormalized(const ImageWindow &img, int resizeSize, int cropSize,
                                std::span<float> out)
{
    checkRgb(img.pixels, "resizeCenterCropNormalized");
    const cv::Size resized = shortSideSize(img.fullSize, resizeSize);
    const cv::Rect roi = centerCropRoi(resized, cropSize);
    if (roi.empty()) {
        if (!img.isWhole())
            throw std::invalid_argument(
                "resizeCenterCropNormalized: a padded crop needs the whole image");
        cv::Mat padded;
        resizeCenterCrop(img.pixels, resizeSize, cropSize, padded);
        toNormalizedChw(padded, out);
        return;
    }
    resampleBilinearNormalized(img, resized, roi, out);
}

void resizeCenterCropNormalized(const cv::Mat &img, int resizeSize, int cropSize,
                                std::span<float> out)
{
    resizeCenterCropNormalized(ImageWindow::whole(img), resizeSize, cropSize, out);
}

cv::Rect resizeCenterCropSourceRect(cv::Size in, int resizeSize, int cropSize)
{
    const cv::Size resized = shortSideSize(in, resizeSize);
    const cv::Rect roi = centerCropRoi(resized, cropSize);
    if (roi.empty())
        return {cv::Point(0, 0), in};
    return resampleSourceRect(in, resized, roi);
}

void resizeCenterCrop(const cv::Mat &img, int resizeSize, int cropSize, cv::Mat &dst)
{
    const cv::Size resized = shortSideSize(img.size(), resizeSize);
    const cv::Rect roi = centerCropRoi(resized, cropSize);
    if (roi.empty()) {
        dst = centerCrop(resizeBilinear(img, resized.width, resized.height), cropSize);
        return;
    }
    resampleBilinear(img, resized, roi, dst);
}

cv::Rect randomResizedCropRect(cv::Size in, std::mt19937_64 &rng,
                               const RandomResizedCropOptions &options)
{
    const int height = in.height;
    const int width = in.width;
    const double area = static_cast<double>(height) * width;
    const double logMin = std::log(options.minRatio);
    const double logMax = std::log(options.maxRatio);
    for (int attempt = 0; attempt < 10; ++attempt) {
        const double targetArea =
            area * (options.minScale + (options.maxScale - options.minScale) * uniform01(rng));
        const double aspect = std::exp(logMin + (logMax - logMin) * uniform01(rng));
        const long long w = pyRound(std::sqrt(targetArea * aspect));
        const long long h = pyRound(std::sqrt(targetArea / aspect));
        if (w > 0 && w <= width && h > 0 && h <= height) {
            const auto top = static_cast<int>(rng() % static_cast<std::uint64_t>(height - h + 1));
            const auto left = static_cast<int>(rng() % static_cast<std::uint64_t>(width - w + 1));
            return {left, top, static_cast<int>(w), static_cast<int>(h)};
        }
    }
    // Fallback: the whole image, cut to the nearest allowed aspect ratio.
    const double inRatio = static_cast<double>(width) / height;
    int w = width;
    int h = height;
    if (inRatio < options.minRatio)
        h = static_cast<int>(pyRound(w / options.minRatio));
    else if (inRatio > options.maxRatio)
        w = static_cast<int>(pyRound(h * options.maxRatio));
    return {(width - w) / 2, (height - h) / 2, w, h};
}

void randomResizedCrop(const cv::Mat &img, int size, std::mt19937_64 &rng, cv::Mat &dst,
                       const RandomResizedCropOptions &options)
{
    checkRgb(img, "randomResizedCrop");
    const cv::Rect box = randomResizedCropRect(img.size(), rng, options);
    resizeBoxAndFlip(ImageWindow::whole(img), box, size, rng, dst, options);
}

void resizeBoxAndFlip(const ImageWindow &img, cv::Rect box, int size, std::mt19937_64 &rng,
                      cv::Mat &dst, const RandomResizedCropOptions &options)
{
    checkRgb(img.pixels, "resizeBoxAndFlip");
    if (box.empty() || !img.covers(box))
        throw std::invalid_argument("resizeBoxAndFlip: the window does not cover the box");
    // The box is resized as an image of its own: no pixel outside it is read.
    resampleBilinear(img.pixels(box - img.origin), {size, size}, {0, 0, size, size}, dst);
    if (uniform01(rng) < options.flipProbability)
        flipHorizontal(dst);
}

cv::Mat randomResizedCrop(const cv::Mat &img, int size, std::mt19937_64 &rng,
                          const RandomResizedCropOptions &options)
{
    cv::Mat dst;
    randomResizedCrop(img, size, rng, dst, options);
    return dst;
}

std::uint64_t sampleSeed(std::uint64_t seed, int epoch, std::int64_t index)
{
    std::uint64_t h = splitmix64(seed);
    h = splitmix64(h ^ static_cast<std::uint64_t>(static_cast<std::int64_t>(epoch)));
    return splitmix64(h ^ static_cast<std::uint64_t>(index));
}

void toNormalizedChw(const cv::Mat &img, std::span<float> out)
{
    checkRgb(img, "toNormalizedChw");
    const std::size_t plane = static_cast<std::size_t>(img.rows) * img.cols;
    if (out.size() != plane * 3)
        throw std::invalid_argument("toNormalizedChw: output span has the wrong size");
    const NormalizeTable &t = normalizeTable();
    float *r = out.data();
    float *g = r + plane;
    float *b = g + plane;
    for (int y = 0; y < img.rows; ++y) {
        const std::uint8_t *p = img.ptr<std::uint8_t>(y);
        for (int x = 0; x < img.cols; ++x, p += 3) {
            *r++ = t[0][p[0]];
            *g++ = t[1][p[1]];
            *b++ = t[2][p[2]];
        }
    }
}

void toChwU8(const cv::Mat &img, std::span<std::uint8_t> out)
{
    checkRgb(img, "toChwU8");
    const std::size_t plane = static_cast<std::size_t>(img.rows) * img.cols;
    if (out.size() != plane * 3)
        throw std::invalid_argument("toChwU8: output span has the wrong size");
    std::uint8_t *r = out.data();
    std::uint8_t *g = r + plane;
    std::uint8_t *b = g + plane;
    for (int y = 0; y < img.rows; ++y) {
        const std::uint8_t *p = img.ptr<std::uint8_t>(y);
        for (int x = 0; x < img.cols; ++x, p += 3) {
            *r++ = p[0];
            *g++ = p[1];
            *b++ = p[2];
        }
    }
}

} // namespace loaderlab
