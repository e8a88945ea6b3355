#pragma once

// The inner loops of the antialiased bilinear resampler (a port of Pillow's
// ImagingResample, see image_transforms.h), one set per instruction set, picked
// at run time. Every kernel does Pillow's integer arithmetic exactly (22-bit
// fixed-point weights, 32-bit sums, a rounding bias, then a shift and a clamp to
// 0..255), so all of them give the same bytes; only the speed differs. Internal to
// core/image.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace loaderlab {

inline constexpr int kResamplePrecisionBits = 32 - 8 - 2; // Pillow's PRECISION_BITS
inline constexpr std::int32_t kResampleRoundingBias = 1 << (kResamplePrecisionBits - 1);

// Filter windows for output pixels [first, first + count) of one axis of an
// inSize -> outSize resample, with input positions counted from `shift` (the
// origin of a decoded window along this axis).
struct AxisCoeffs
{
    int inSize = 0;
    int outSize = 0;
    int first = 0;
    int count = 0;
    int shift = 0;
    int ksize = 0;
    std::vector<int> bounds;           // (first input pixel - shift, tap count) per output pixel
    std::vector<std::int32_t> weights; // ksize per output pixel, fixed point
    // Weights laid out for the SIMD horizontal kernels: per output pixel, groups of
    // `lanesPerTap`-wide vectors holding each tap's weight for R, G, B and 0 for the
    // fourth lane, `taps rounded up to tapsPerVector` taps, zero-padded. Empty
    // until a SIMD kernel asks for it.
    std::vector<std::int32_t> expanded;
    int expandedTapsPerVector = 0;
    int expandedStride = 0; // int32s per output pixel in `expanded`
};

// The coefficients of one axis, cached per thread by (inSize, outSize, first,
// count, shift): the same image sizes come back again and again in a dataset. The
// reference stays valid until the next call for the same axis on this thread.
enum class ResampleAxis { Horizontal, Vertical };
const AxisCoeffs &cachedAxisCoeffs(ResampleAxis axis, int inSize, int outSize, int first, int count,
                                   int shift = 0);

// Fills c.expanded for SIMD kernels that take `tapsPerVector` taps per vector of
// 4 * tapsPerVector int32 lanes (once per cached coefficient set).
void expandCoeffs(AxisCoeffs &c, int tapsPerVector);

struct ResampleKernels
{
    const char *name;
    int tapsPerVector; // for expandCoeffs; 0: the kernel reads c.weights
    // One row, 3 channels: out[x] = clip(sum_t in[xmin + t] * k[t]) for the
    // c.count output pixels. `in` holds inCols pixels (rowEnd = in + 3 * inCols);
    // kernels read no byte at or past rowEnd.
    void (*horizontal)(const std::uint8_t *in, const std::uint8_t *rowEnd, const AxisCoeffs &c,
                       std::uint8_t *out);
    // out[i] = clip(sum_t rows[t * stride + i] * k[t]), i < n.
    void (*vertical)(const std::uint8_t *rows, std::size_t stride, const std::int32_t *k, int taps,
                     std::uint8_t *out, std::size_t n);
};

// 256-entry tables of (v / 255 - mean) / std in float32 per channel (image_transforms.cpp).
using NormalizeTable = std::array<std::array<float, 256>, 3>;
const NormalizeTable &normalizeTable();
const ResampleKernels *avx2ResampleKernels();   // nullptr when not built in
const ResampleKernels *avx512ResampleKernels(); // nullptr when not built in

} // namespace loaderlab
