// The antialiased bilinear resampler, a port of Pillow's ImagingResample (Resample.c,
// 8 bits per channel): per-output-pixel triangle-filter windows whose support grows
// with the downscale factor, coefficients in 22-bit fixed point, horizontal pass
// then vertical pass with a clamp to 0..255 after each. Only the source rows that
// the wanted output rows need are resampled horizontally, coefficients are cached
// per size, and the inner loops are SIMD kernels chosen at run time
// (resample_kernels.h).

#include "core/image/image_transforms.h"
#include "core/image/resample_kernels.h"

#include <opencv2/core.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace loaderlab {

namespace {

// The filter geometry of one axis, as Pillow's precompute_coeffs sets it up.
struct FilterGeometry
{
    double scale;
    double filterScale;
    double support; // bilinear filter support is 1, widened by the downscale factor

    FilterGeometry(int inSize, int outSize)
        : scale(static_cast<double>(inSize) / outSize)
        , filterScale(std::max(scale, 1.0))
        , support(filterScale)
    {
    }

    // Output pixel `i`'s input window: first pixel and tap count. Truncating
    // casts, exactly as Pillow rounds the window ends.
    std::pair<int, int> window(int i, int inSize) const
    {
        const double center = (i + 0.5) * scale;
        const int xmin = std::max(static_cast<int>(center - support + 0.5), 0);
        const int xmax = std::min(static_cast<int>(center + support + 0.5), inSize) - xmin;
        return {xmin, xmax};
    }
};

void computeCoeffs(AxisCoeffs &c)
{
    const FilterGeometry g(c.inSize, c.outSize);
    c.ksize = static_cast<int>(std::ceil(g.support)) * 2 + 1;
    c.bounds.resize(static_cast<std::size_t>(c.count) * 2);
    c.weights.assign(static_cast<std::size_t>(c.count) * c.ksize, 0);
    std::vector<double> scratch(static_cast<std::size_t>(c.ksize));
    for (int i = 0; i < c.count; ++i) {
        const double center = (c.first + i + 0.5) * g.scale;
        const double ss = 1.0 / g.filterScale;
        const auto [xmin, xmax] = g.window(c.first + i, c.inSize);
        double sum = 0.0;
        for (int x = 0; x < xmax; ++x) {
            const double t = std::abs((x + xmin - center + 0.5) * ss);
            const double w = t < 1.0 ? 1.0 - t : 0.0;
            scratch[static_cast<std::size_t>(x)] = w;
            sum += w;
        }
        std::int32_t *k = &c.weights[static_cast<std::size_t>(i) * c.ksize];
        for (int x = 0; x < xmax; ++x) {
            double w = scratch[static_cast<std::size_t>(x)];
            if (sum != 0.0)
                w /= sum;
            const double fixed = w * (1 << kResamplePrecisionBits);
            k[x] = static_cast<std::int32_t>(w < 0 ? fixed - 0.5 : fixed + 0.5);
        }
        c.bounds[static_cast<std::size_t>(i) * 2] = xmin - c.shift;
        c.bounds[static_cast<std::size_t>(i) * 2 + 1] = xmax;
    }
}

inline std::uint8_t clip8(std::int32_t v)
{
    v >>= kResamplePrecisionBits;
    return static_cast<std::uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

void scalarHorizontal(const std::uint8_t *in, const std::uint8_t * /*rowEnd*/, const AxisCoeffs &c,
                      std::uint8_t *out)
{
    for (int x = 0; x < c.count; ++x) {
        const int xmin = c.bounds[static_cast<std::size_t>(x) * 2];
        const int taps = c.bounds[static_cast<std::size_t>(x) * 2 + 1];
        const std::int32_t *k = &c.weights[static_cast<std::size_t>(x) * c.ksize];
        const std::uint8_t *p = in + static_cast<std::ptrdiff_t>(xmin) * 3;
        std::int32_t s0 = kResampleRoundingBias, s1 = kResampleRoundingBias,
                     s2 = kResampleRoundingBias;
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

void scalarVertical(const std::uint8_t *rows, std::size_t stride, const std::int32_t *k, int taps,
                    std::uint8_t *out, std::size_t n)
{
    constexpr std::size_t kBlock = 64; // sums kept in registers / L1, not a row array
    std::array<std::int32_t, kBlock> acc{};
    for (std::size_t i = 0; i < n; i += kBlock) {
        const std::size_t m = std::min(kBlock, n - i);
        std::fill_n(acc.begin(), m, kResampleRoundingBias);
        for (int t = 0; t < taps; ++t) {
            const std::uint8_t *row = rows + stride * static_cast<std::size_t>(t) + i;
            for (std::size_t j = 0; j < m; ++j)
                acc[j] += row[j] * k[t];
        }
        for (std::size_t j = 0; j < m; ++j)
            out[i + j] = clip8(acc[j]);
    }
}

const ResampleKernels kScalar{"scalar", 0, scalarHorizontal, scalarVertical};

std::atomic<ResampleIsa> g_isa{ResampleIsa::Auto};

const ResampleKernels *kernelsFor(ResampleIsa isa)
{
    switch (isa) {
    case ResampleIsa::Scalar:
        return &kScalar;
    case ResampleIsa::Avx2:
        return __builtin_cpu_supports("avx2") ? avx2ResampleKernels() : nullptr;
    case ResampleIsa::Avx512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
                   ? avx512ResampleKernels()
                   : nullptr;
    case ResampleIsa::Auto:
        break;
    }
    static const ResampleKernels *best = [] {
        for (ResampleIsa candidate : {ResampleIsa::Avx512, ResampleIsa::Avx2})
            if (const ResampleKernels *k = kernelsFor(candidate))
                return k;
        return &kScalar;
    }();
    return best;
}

const ResampleKernels &activeKernels()
{
    const ResampleKernels *k = kernelsFor(g_isa.load(std::memory_order_relaxed));
    return k ? *k : kScalar;
}

// Per-thread scratch, so steady-state resizes do not allocate.
struct ResampleScratch
{
    std::vector<std::uint8_t> temp;
    std::vector<std::uint8_t> row;
};

void checkRgbSource(const cv::Mat &img, const char *what)
{
    if (img.type() != CV_8UC3)
        throw std::invalid_argument(std::string(what) + ": expects an 8-bit 3-channel image");
}

[[noreturn]] void windowTooSmall()
{
    throw std::invalid_argument(
        "resampleBilinear: the decoded window lacks pixels the filter reads");
}

// The resample itself; each finished output row y goes to rowOut(y), which
// returns where to write it, and then to rowDone(y) (may be empty).
template <typename RowOut, typename RowDone>
void resampleRows(const ImageWindow &window, cv::Size outSize, cv::Rect outRoi, RowOut rowOut,
                  RowDone rowDone)
{
    const cv::Mat &src = window.pixels;
    checkRgbSource(src, "resampleBilinear");
    if (src.empty() || outSize.width <= 0 || outSize.height <= 0 || outRoi.empty()
        || (outRoi & cv::Rect(cv::Point(0, 0), outSize)) != outRoi)
        throw std::invalid_argument("resampleBilinear: empty image or region outside output");

    const ResampleKernels &kernels = activeKernels();
    thread_local ResampleScratch s;
    const cv::Size inSize = window.fullSize;
    const cv::Point origin = window.origin;
    const AxisCoeffs &vertical = cachedAxisCoeffs(ResampleAxis::Vertical, inSize.height,
                                                  outSize.height, outRoi.y, outRoi.height);
    const int lastRow = (outRoi.height - 1) * 2;
    // Source rows read, relative to the window.
    const int yFirst = vertical.bounds[0] - origin.y;
    const int yLast = vertical.bounds[static_cast<std::size_t>(lastRow)]
                      + vertical.bounds[static_cast<std::size_t>(lastRow) + 1] - origin.y;
    if (yFirst < 0 || yLast > src.rows)
        windowTooSmall();
    const std::size_t rowBytes = static_cast<std::size_t>(outRoi.width) * 3;

    // Horizontal pass over just the source rows the vertical windows touch (the
    // rows a center crop discards are never computed). At scale 1 the filter is
    // the identity, so the source rows are used directly.
    const bool sameWidth = inSize.width == outSize.width;
    const std::uint8_t *tempBase = nullptr;
    std::size_t tempStride = rowBytes;
    if (sameWidth) {
        const int x = outRoi.x - origin.x;
        if (x < 0 || x + outRoi.width > src.cols)
            windowTooSmall();
        tempBase = src.ptr<std::uint8_t>(yFirst) + static_cast<std::size_t>(x) * 3;
        tempStride = src.step[0];
    } else {
        const AxisCoeffs &horizontal = cachedAxisCoeffs(ResampleAxis::Horizontal, inSize.width,
                                                        outSize.width, outRoi.x, outRoi.width,
                                                        origin.x);
        const std::size_t lastCol = static_cast<std::size_t>(outRoi.width - 1) * 2;
        if (horizontal.bounds[0] < 0
            || horizontal.bounds[lastCol] + horizontal.bounds[lastCol + 1] > src.cols)
            windowTooSmall();
        if (kernels.tapsPerVector > 0)
            expandCoeffs(const_cast<AxisCoeffs &>(horizontal), kernels.tapsPerVector);
        s.temp.resize(rowBytes * static_cast<std::size_t>(yLast - yFirst));
        const std::size_t inBytes = static_cast<std::size_t>(src.cols) * 3;
        for (int y = yFirst; y < yLast; ++y) {
            const std::uint8_t *in = src.ptr<std::uint8_t>(y);
            kernels.horizontal(in, in + inBytes, horizontal,
                               &s.temp[rowBytes * static_cast<std::size_t>(y - yFirst)]);
        }
        tempBase = s.temp.data();
    }

    // Vertical pass, one output row at a time: a multiply-add of whole rows.
    for (int y = 0; y < outRoi.height; ++y) {
        const int ymin = vertical.bounds[static_cast<std::size_t>(y) * 2] - origin.y - yFirst;
        const int taps = vertical.bounds[static_cast<std::size_t>(y) * 2 + 1];
        const std::int32_t *k = &vertical.weights[static_cast<std::size_t>(y) * vertical.ksize];
        kernels.vertical(tempBase + tempStride * static_cast<std::size_t>(ymin), tempStride, k,
                         taps, rowOut(y, s.row, rowBytes), rowBytes);
        rowDone(y);
    }
}

} // namespace

const AxisCoeffs &cachedAxisCoeffs(ResampleAxis axis, int inSize, int outSize, int first, int count,
                                   int shift)
{
    // Bounded: a folder of many different sizes just recomputes; 256 sets of a few
    // KiB each per thread at most.
    constexpr std::size_t kMaxCached = 256;
    using Key = std::tuple<int, int, int, int, int>;
    struct KeyHash
    {
        std::size_t operator()(const Key &k) const
        {
            const auto [a, b, c, d, e] = k;
            std::uint64_t h = static_cast<std::uint32_t>(a);
            h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(b);
            h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(c);
            h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(d);
            h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(e);
            return static_cast<std::size_t>(h ^ (h >> 29));
        }
    };
    // One cache per axis, so that clearing one never invalidates the other's
    // coefficients while a resample holds both.
    thread_local std::array<std::unordered_map<Key, AxisCoeffs, KeyHash>, 2> caches;
    auto &cache = caches[axis == ResampleAxis::Vertical ? 1 : 0];
    const Key key{inSize, outSize, first, count, shift};
    if (auto it = cache.find(key); it != cache.end())
        return it->second;
    if (cache.size() >= kMaxCached)
        cache.clear();
    AxisCoeffs c;
    c.inSize = inSize;
    c.outSize = outSize;
    c.first = first;
    c.count = count;
    c.shift = shift;
    computeCoeffs(c);
    return cache.emplace(key, std::move(c)).first->second;
}

void expandCoeffs(AxisCoeffs &c, int tapsPerVector)
{
    if (c.expandedTapsPerVector == tapsPerVector)
        return;
    const int groups = (c.ksize + tapsPerVector - 1) / tapsPerVector;
    c.expandedStride = groups * tapsPerVector * 4;
    c.expanded.assign(static_cast<std::size_t>(c.count) * c.expandedStride, 0);
    for (int x = 0; x < c.count; ++x) {
        const int taps = c.bounds[static_cast<std::size_t>(x) * 2 + 1];
        const std::int32_t *k = &c.weights[static_cast<std::size_t>(x) * c.ksize];
        std::int32_t *e = &c.expanded[static_cast<std::size_t>(x) * c.expandedStride];
        for (int t = 0; t < taps; ++t)
            e[t * 4] = e[t * 4 + 1] = e[t * 4 + 2] = k[t];
    }
    c.expandedTapsPerVector = tapsPerVector;
}

bool resampleIsaSupported(ResampleIsa isa)
{
    return isa == ResampleIsa::Auto || kernelsFor(isa) != nullptr;
}

void setResampleIsa(ResampleIsa isa)
{
    if (!resampleIsaSupported(isa))
        throw std::invalid_argument("setResampleIsa: not supported on this CPU or build");
    g_isa.store(isa, std::memory_order_relaxed);
}

const char *resampleIsaName()
{
    return activeKernels().name;
}

cv::Rect resampleSourceRect(cv::Size inSize, cv::Size outSize, cv::Rect outRoi)
{
    if (inSize.empty() || outRoi.empty())
        return {};
    // Windows only move right as the output position grows: the first and the
    // last output pixel bound the union.
    const auto span = [](int in, int out, int first, int count) {
        const FilterGeometry g(in, out);
        const auto [lo, loTaps] = g.window(first, in);
        const auto [hi, hiTaps] = g.window(first + count - 1, in);
        (void)loTaps;
        return std::pair{lo, hi + hiTaps};
    };
    const auto [x0, x1] = span(inSize.width, outSize.width, outRoi.x, outRoi.width);
    const auto [y0, y1] = span(inSize.height, outSize.height, outRoi.y, outRoi.height);
    return {x0, y0, x1 - x0, y1 - y0};
}

void resampleBilinear(const ImageWindow &src, cv::Size outSize, cv::Rect outRoi, cv::Mat &dst)
{
    dst.create(std::max(outRoi.height, 1), std::max(outRoi.width, 1), CV_8UC3);
    resampleRows(
        src, outSize, outRoi,
        [&dst](int y, std::vector<std::uint8_t> &, std::size_t) {
            return dst.ptr<std::uint8_t>(y);
        },
        [](int) {});
}

void resampleBilinear(const cv::Mat &src, cv::Size outSize, cv::Rect outRoi, cv::Mat &dst)
{
    resampleBilinear(ImageWindow::whole(src), outSize, outRoi, dst);
}

void resampleBilinearNormalized(const ImageWindow &src, cv::Size outSize, cv::Rect outRoi,
                                std::span<float> out)
{
    const std::size_t plane = static_cast<std::size_t>(std::max(outRoi.area(), 0));
    if (out.size() != plane * 3)
        throw std::invalid_argument("resampleBilinearNormalized: output span has the wrong size");
    const NormalizeTable &t = normalizeTable();
    std::vector<std::uint8_t> *row = nullptr;
    resampleRows(
        src, outSize, outRoi,
        [&row](int, std::vector<std::uint8_t> &scratch, std::size_t bytes) {
            scratch.resize(bytes);
            row = &scratch;
            return scratch.data();
        },
        [&](int y) {
            // The row is still in L1: normalise it into the three planes now.
            const std::size_t offset = static_cast<std::size_t>(y) * outRoi.width;
            float *r = out.data() + offset;
            float *g = r + plane;
            float *b = g + plane;
            const std::uint8_t *p = row->data();
            for (int x = 0; x < outRoi.width; ++x, p += 3) {
                r[x] = t[0][p[0]];
                g[x] = t[1][p[1]];
                b[x] = t[2][p[2]];
            }
        });
}

void resampleBilinearNormalized(const cv::Mat &src, cv::Size outSize, cv::Rect outRoi,
                                std::span<float> out)
{
    resampleBilinearNormalized(ImageWindow::whole(src), outSize, outRoi, out);
}

} // namespace loaderlab
