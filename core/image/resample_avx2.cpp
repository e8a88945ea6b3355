// AVX2 kernels of the resampler (compiled with -mavx2, called only when the CPU
// has AVX2). Same integer arithmetic as the scalar kernels: 32-bit products of
// 8-bit pixels and 22-bit weights, 32-bit sums, so the bytes are identical.

#include "core/image/resample_kernels.h"

#include <immintrin.h>

#include <cstring>

namespace loaderlab {

namespace {

inline std::uint8_t clip8(std::int32_t v)
{
    v >>= kResamplePrecisionBits;
    return static_cast<std::uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

// Two taps per vector: lanes R G B 0 of pixel t, then of pixel t + 1.
void horizontal(const std::uint8_t *in, const std::uint8_t *rowEnd, const AxisCoeffs &c,
                std::uint8_t *out)
{
    const __m128i spread = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i bias = _mm_set1_epi32(kResampleRoundingBias);
    for (int x = 0; x < c.count; ++x) {
        const int xmin = c.bounds[static_cast<std::size_t>(x) * 2];
        const int taps = c.bounds[static_cast<std::size_t>(x) * 2 + 1];
        const std::uint8_t *p = in + static_cast<std::ptrdiff_t>(xmin) * 3;
        const int pairs = (taps + 1) / 2;
        std::uint8_t *o = out + static_cast<std::ptrdiff_t>(x) * 3;
        // Each pair loads 8 bytes; near the row's end that would read past it.
        if (p + static_cast<std::ptrdiff_t>(pairs - 1) * 6 + 8 > rowEnd) {
            const std::int32_t *k = &c.weights[static_cast<std::size_t>(x) * c.ksize];
            std::int32_t s0 = kResampleRoundingBias, s1 = kResampleRoundingBias,
                         s2 = kResampleRoundingBias;
            for (int t = 0; t < taps; ++t) {
                s0 += p[t * 3] * k[t];
                s1 += p[t * 3 + 1] * k[t];
                s2 += p[t * 3 + 2] * k[t];
            }
            o[0] = clip8(s0);
            o[1] = clip8(s1);
            o[2] = clip8(s2);
            continue;
        }
        const auto *k = reinterpret_cast<const __m256i *>(
            &c.expanded[static_cast<std::size_t>(x) * c.expandedStride]);
        __m256i acc = _mm256_setzero_si256();
        for (int j = 0; j < pairs; ++j) {
            const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(p + j * 6));
            const __m256i pixels = _mm256_cvtepu8_epi32(_mm_shuffle_epi8(bytes, spread));
            acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(pixels, _mm256_loadu_si256(k + j)));
        }
        __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        sum = _mm_srai_epi32(_mm_add_epi32(sum, bias), kResamplePrecisionBits);
        sum = _mm_packus_epi16(_mm_packs_epi32(sum, sum), sum);
        const auto rgb = static_cast<std::uint32_t>(_mm_cvtsi128_si32(sum));
        std::memcpy(o, &rgb, 3);
    }
}

// 32 bytes of the output row at a time, the sums kept in registers.
void vertical(const std::uint8_t *rows, std::size_t stride, const std::int32_t *k, int taps,
              std::uint8_t *out, std::size_t n)
{
    const __m256i bias = _mm256_set1_epi32(kResampleRoundingBias);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i a0 = bias, a1 = bias, a2 = bias, a3 = bias;
        for (int t = 0; t < taps; ++t) {
            const std::uint8_t *row = rows + stride * static_cast<std::size_t>(t) + i;
            const __m256i w = _mm256_set1_epi32(k[t]);
            const auto load8 = [row](int at) {
                return _mm256_cvtepu8_epi32(
                    _mm_loadl_epi64(reinterpret_cast<const __m128i *>(row + at)));
            };
            a0 = _mm256_add_epi32(a0, _mm256_mullo_epi32(load8(0), w));
            a1 = _mm256_add_epi32(a1, _mm256_mullo_epi32(load8(8), w));
            a2 = _mm256_add_epi32(a2, _mm256_mullo_epi32(load8(16), w));
            a3 = _mm256_add_epi32(a3, _mm256_mullo_epi32(load8(24), w));
        }
        a0 = _mm256_srai_epi32(a0, kResamplePrecisionBits);
        a1 = _mm256_srai_epi32(a1, kResamplePrecisionBits);
        a2 = _mm256_srai_epi32(a2, kResamplePrecisionBits);
        a3 = _mm256_srai_epi32(a3, kResamplePrecisionBits);
        // The packs work within 128-bit halves; the permute puts the bytes in order.
        const __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(a0, a1),
                                                  _mm256_packs_epi32(a2, a3));
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i),
                            _mm256_permutevar8x32_epi32(bytes, order));
    }
    for (; i < n; ++i) {
        std::int32_t s = kResampleRoundingBias;
        for (int t = 0; t < taps; ++t)
            s += rows[stride * static_cast<std::size_t>(t) + i] * k[t];
        out[i] = clip8(s);
    }
}

const ResampleKernels kAvx2{"avx2", 2, horizontal, vertical};

} // namespace

const ResampleKernels *avx2ResampleKernels()
{
    return &kAvx2;
}

} // namespace loaderlab
