// ImageNet transforms matching torchvision + PIL. The resampler is a port of
// Pillow's ImagingResample (Resample.c, 8 bits per channel): per-output-pixel
// triangle-filter windows whose support grows with the downscale factor,
// coefficients in 22-bit fixed point, horizontal pass then vertical pass.

#include "core/image/image_transforms.h"
#include "core/system/splitmix64.h"

#include <opencv2/core.hpp>
#include <opencv2/core/hal/intrin.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace loaderlab {

namespace {

constexpr int kPrecisionBits = 32 - 8 - 2; // Pillow's PRECISION_BITS
constexpr std::int32_t kRoundingBias = 1 << (kPrecisionBits - 1);

// Filter windows for output pixels [first, first + count) of one axis.
struct AxisCoeffs
{
    int ksize = 0;
    std::vector<int> bounds;           // (first input pixel, tap count) per output pixel
    std::vector<std::int32_t> weights; // ksize per output pixel, fixed point
    std::vector<double> scratch;
};

// Scratch kept per thread so steady-state resizes do not allocate.
struct ResampleScratch
{
    AxisCoeffs horizontal;
    AxisCoeffs vertical;
    std::vector<std::uint8_t> temp;
    std::vector<std::int32_t> acc;
};

void computeCoeffs(int inSize, int outSize, int first, int count, AxisCoeffs &c)
{
    const double scale = static_cast<double>(inSize) / outSize;
    const double filterScale = std::max(scale, 1.0);
    const double support = 1.0 * filterScale; // bilinear filter support is 1
    c.ksize = static_cast<int>(std::ceil(support)) * 2 + 1;
    c.bounds.resize(static_cast<std::size_t>(count) * 2);
    c.weights.assign(static_cast<std::size_t>(count) * c.ksize, 0);
    c.scratch.resize(static_cast<std::size_t>(c.ksize));
    for (int i = 0; i < count; ++i) {
        const double center = (first + i + 0.5) * scale;
        const double ss = 1.0 / filterScale;
        // Truncating casts, exactly as Pillow rounds the window ends.
        const int xmin = std::max(static_cast<int>(center - support + 0.5), 0);
        const int xmax = std::min(static_cast<int>(center + support + 0.5), inSize) - xmin;
        double sum = 0.0;
        for (int x = 0; x < xmax; ++x) {
            const double t = std::abs((x + xmin - center + 0.5) * ss);
            const double w = t < 1.0 ? 1.0 - t : 0.0;
            c.scratch[static_cast<std::size_t>(x)] = w;
            sum += w;
        }
        std::int32_t *k = &c.weights[static_cast<std::size_t>(i) * c.ksize];
        for (int x = 0; x < xmax; ++x) {
            double w = c.scratch[static_cast<std::size_t>(x)];
            if (sum != 0.0)
                w /= sum;
            const double fixed = w * (1 << kPrecisionBits);
            k[x] = static_cast<std::int32_t>(w < 0 ? fixed - 0.5 : fixed + 0.5);
        }
        c.bounds[static_cast<std::size_t>(i) * 2] = xmin;
        c.bounds[static_cast<std::size_t>(i) * 2 + 1] = xmax;
    }
}

inline std::uint8_t clip8(std::int32_t v)
{
    v >>= kPrecisionBits;
    return static_cast<std::uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

void horizontalPass(const std::uint8_t *in, const AxisCoeffs &c, int outCols, std::uint8_t *out)
{
    for (int x = 0; x < outCols; ++x) {
        const int xmin = c.bounds[static_cast<std::size_t>(x) * 2];
        const int taps = c.bounds[static_cast<std::size_t>(x) * 2 + 1];
        const std::int32_t *k = &c.weights[static_cast<std::size_t>(x) * c.ksize];
        const std::uint8_t *p = in + static_cast<std::ptrdiff_t>(xmin) * 3;
        std::int32_t s0 = kRoundingBias, s1 = kRoundingBias, s2 = kRoundingBias;
        for (int t = 0; t < taps; ++t, p += 3) {
            s0 += p[0] * k[t];
            s1 += p[1] * k[t];
            s2 += p[2] * k[t];
        }
        out[x * 3] = clip8(s0);
        out[x * 3 + 1] = clip8(s1);
        out[x * 3 + 2] = clip8(s2);
    }
}

// acc[i] += in[i] * w over a row. Integer arithmetic, so the SIMD path gives
// exactly the scalar (and Pillow's) result.
void accumulateRow(const std::uint8_t *in, std::int32_t w, std::int32_t *acc, std::size_t n)
{
    std::size_t i = 0;
#if CV_SIMD128
    const cv::v_int32x4 vw = cv::v_setall_s32(w);
    for (; i + 16 <= n; i += 16) {
        cv::v_uint16x8 lo, hi;
        cv::v_expand(cv::v_load(in + i), lo, hi);
        cv::v_uint32x4 q0, q1, q2, q3;
        cv::v_expand(lo, q0, q1);
        cv::v_expand(hi, q2, q3);
        cv::v_store(acc + i, cv::v_load(acc + i) + cv::v_reinterpret_as_s32(q0) * vw);
        cv::v_store(acc + i + 4, cv::v_load(acc + i + 4) + cv::v_reinterpret_as_s32(q1) * vw);
        cv::v_store(acc + i + 8, cv::v_load(acc + i + 8) + cv::v_reinterpret_as_s32(q2) * vw);
        cv::v_store(acc + i + 12, cv::v_load(acc + i + 12) + cv::v_reinterpret_as_s32(q3) * vw);
    }
#endif
    for (; i < n; ++i)
        acc[i] += in[i] * w;
}

// out[i] = clip8(acc[i]); saturating packs clamp to 0..255 exactly like clip8.
void clipRow(const std::int32_t *acc, std::uint8_t *out, std::size_t n)
{
    std::size_t i = 0;
#if CV_SIMD128
    for (; i + 16 <= n; i += 16) {
        const cv::v_int16x8 lo = cv::v_pack(cv::v_load(acc + i) >> kPrecisionBits,
                                            cv::v_load(acc + i + 4) >> kPrecisionBits);
        const cv::v_int16x8 hi = cv::v_pack(cv::v_load(acc + i + 8) >> kPrecisionBits,
                                            cv::v_load(acc + i + 12) >> kPrecisionBits);
        cv::v_store(out + i, cv::v_pack_u(lo, hi));
    }
#endif
    for (; i < n; ++i)
        out[i] = clip8(acc[i]);
}

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

// 256-entry tables of (v / 255 - mean) / std in float32, evaluated as torchvision
// does, so the output is bit-identical and the hot loop is three lookups a pixel.
using NormalizeTable = std::array<std::array<float, 256>, 3>;

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

} // namespace

void resampleBilinear(const cv::Mat &src, cv::Size outSize, cv::Rect outRoi, cv::Mat &dst)
{
    checkRgb(src, "resampleBilinear");
    if (src.empty() || outSize.width <= 0 || outSize.height <= 0 || outRoi.empty()
        || (outRoi & cv::Rect(cv::Point(0, 0), outSize)) != outRoi)
        throw std::invalid_argument("resampleBilinear: empty image or region outside output");

    thread_local ResampleScratch s;
    computeCoeffs(src.rows, outSize.height, outRoi.y, outRoi.height, s.vertical);
    const int lastRow = (outRoi.height - 1) * 2;
    const int yFirst = s.vertical.bounds[0];
    const int yLast = s.vertical.bounds[static_cast<std::size_t>(lastRow)]
                      + s.vertical.bounds[static_cast<std::size_t>(lastRow) + 1];
    const std::size_t rowBytes = static_cast<std::size_t>(outRoi.width) * 3;

    // Horizontal pass over just the source rows the vertical windows touch. At
    // scale 1 the filter is the identity, so the source rows are used directly.
    const bool sameWidth = src.cols == outSize.width;
    const std::uint8_t *tempBase = nullptr;
    std::size_t tempStride = rowBytes;
    if (sameWidth) {
        tempBase = src.ptr<std::uint8_t>(yFirst) + static_cast<std::size_t>(outRoi.x) * 3;
        tempStride = src.step[0];
    } else {
        computeCoeffs(src.cols, outSize.width, outRoi.x, outRoi.width, s.horizontal);
        s.temp.resize(rowBytes * static_cast<std::size_t>(yLast - yFirst));
        for (int y = yFirst; y < yLast; ++y)
            horizontalPass(src.ptr<std::uint8_t>(y), s.horizontal, outRoi.width,
                           &s.temp[rowBytes * static_cast<std::size_t>(y - yFirst)]);
        tempBase = s.temp.data();
    }

    // Vertical pass, one output row at a time: a multiply-add of whole rows.
    dst.create(outRoi.height, outRoi.width, CV_8UC3);
    s.acc.resize(rowBytes);
    for (int y = 0; y < outRoi.height; ++y) {
        const int ymin = s.vertical.bounds[static_cast<std::size_t>(y) * 2] - yFirst;
        const int taps = s.vertical.bounds[static_cast<std::size_t>(y) * 2 + 1];
        const std::int32_t *k = &s.vertical.weights[static_cast<std::size_t>(y) * s.vertical.ksize];
        std::fill(s.acc.begin(), s.acc.end(), kRoundingBias);
        for (int t = 0; t < taps; ++t)
            accumulateRow(tempBase + tempStride * static_cast<std::size_t>(ymin + t), k[t],
                          s.acc.data(), rowBytes);
        clipRow(s.acc.data(), dst.ptr<std::uint8_t>(y), rowBytes);
    }
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

void resizeCenterCrop(const cv::Mat &img, int resizeSize, int cropSize, cv::Mat &dst)
{
    const cv::Size resized = shortSideSize(img.size(), resizeSize);
    if (cropSize > resized.width || cropSize > resized.height) {
        dst = centerCrop(resizeBilinear(img, resized.width, resized.height), cropSize);
        return;
    }
    const cv::Rect roi(centerOffset(resized.width - cropSize),
                       centerOffset(resized.height - cropSize), cropSize, cropSize);
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
    resampleBilinear(img(box), {size, size}, {0, 0, size, size}, dst);
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
