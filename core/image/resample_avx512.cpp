// AVX-512 kernels of the resampler (compiled with -mavx512f -mavx512bw, called only
// when the CPU has both). Same integer arithmetic as the scalar kernels, so the
// bytes are identical; twice the lanes of the AVX2 kernels.

#include "core/image/resample_kernels.h"

// GCC 12 warns about the `undefined` source operands inside its own AVX-512
// headers (GCC bug 105593), a false positive in every use of these intrinsics.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstring>

namespace loaderlab {

namespace {

inline std::uint8_t clip8(std::int32_t v)
{
    v >>= kResamplePrecisionBits;
    return static_cast<std::uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

void scalarPixel(const std::uint8_t *p, const std::int32_t *k, int taps, std::uint8_t *o)
{
    std::int32_t s0 = kResampleRoundingBias, s1 = kResampleRoundingBias, s2 = kResampleRoundingBias;
    for (int t = 0; t < taps; ++t) {
        s0 += p[t * 3] * k[t];
        s1 += p[t * 3 + 1] * k[t];
        s2 += p[t * 3 + 2] * k[t];
    }
    o[0] = clip8(s0);
    o[1] = clip8(s1);
    o[2] = clip8(s2);
}

// Four taps per vector: lanes R G B 0 of pixels t .. t + 3.
void horizontal(const std::uint8_t *in, const std::uint8_t *rowEnd, const AxisCoeffs &c,
                std::uint8_t *out)
{
    const __m128i spread = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
    const __m128i bias = _mm_set1_epi32(kResampleRoundingBias);
    for (int x = 0; x < c.count; ++x) {
        const int xmin = c.bounds[static_cast<std::size_t>(x) * 2];
        const int taps = c.bounds[static_cast<std::size_t>(x) * 2 + 1];
        const std::uint8_t *p = in + static_cast<std::ptrdiff_t>(xmin) * 3;
        const int quads = (taps + 3) / 4;
        std::uint8_t *o = out + static_cast<std::ptrdiff_t>(x) * 3;
        // Each quad loads 16 bytes; near the row's end that would read past it.
        if (p + static_cast<std::ptrdiff_t>(quads - 1) * 12 + 16 > rowEnd) {
            scalarPixel(p, &c.weights[static_cast<std::size_t>(x) * c.ksize], taps, o);
            continue;
        }
        const std::int32_t *k = &c.expanded[static_cast<std::size_t>(x) * c.expandedStride];
        __m512i acc = _mm512_setzero_si512();
        for (int j = 0; j < quads; ++j) {
            const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + j * 12));
            const __m512i pixels = _mm512_cvtepu8_epi32(_mm_shuffle_epi8(bytes, spread));
            acc = _mm512_add_epi32(acc, _mm512_mullo_epi32(pixels, _mm512_loadu_si512(k + j * 16)));
        }
        const __m256i half = _mm256_add_epi32(_mm512_castsi512_si256(acc),
                                              _mm512_extracti64x4_epi64(acc, 1));
        __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(half),
                                    _mm256_extracti128_si256(half, 1));
        sum = _mm_srai_epi32(_mm_add_epi32(sum, bias), kResamplePrecisionBits);
        sum = _mm_packus_epi16(_mm_packs_epi32(sum, sum), sum);
        const auto rgb = static_cast<std::uint32_t>(_mm_cvtsi128_si32(sum));
        std::memcpy(o, &rgb, 3);
    }
}

// 64 bytes of the output row at a time, the sums kept in registers.
void vertical(const std::uint8_t *rows, std::size_t stride, const std::int32_t *k, int taps,
              std::uint8_t *out, std::size_t n)
{
    const __m512i bias = _mm512_set1_epi32(kResampleRoundingBias);
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    std::size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i a0 = bias, a1 = bias, a2 = bias, a3 = bias;
        for (int t = 0; t < taps; ++t) {
            const std::uint8_t *row = rows + stride * static_cast<std::size_t>(t) + i;
            const __m512i w = _mm512_set1_epi32(k[t]);
            const auto load16 = [row](int at) {
                return _mm512_cvtepu8_epi32(
                    _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + at)));
            };
            a0 = _mm512_add_epi32(a0, _mm512_mullo_epi32(load16(0), w));
            a1 = _mm512_add_epi32(a1, _mm512_mullo_epi32(load16(16), w));
            a2 = _mm512_add_epi32(a2, _mm512_mullo_epi32(load16(32), w));
            a3 = _mm512_add_epi32(a3, _mm512_mullo_epi32(load16(48), w));
        }
        a0 = _mm512_srai_epi32(a0, kResamplePrecisionBits);
        a1 = _mm512_srai_epi32(a1, kResamplePrecisionBits);
        a2 = _mm512_srai_epi32(a2, kResamplePrecisionBits);
        a3 = _mm512_srai_epi32(a3, kResamplePrecisionBits);
        // The packs work within 128-bit lanes; the permute puts the bytes in order.
        const __m512i bytes = _mm512_packus_epi16(_mm512_packs_epi32(a0, a1),
                                                  _mm512_packs_epi32(a2, a3));
        _mm512_storeu_si512(out + i, _mm512_permutexvar_epi32(order, bytes));
    }
    // The rest (under 64 bytes) 16 at a time, then byte by byte.
    for (; i + 16 <= n; i += 16) {
        __m512i a = bias;
        for (int t = 0; t < taps; ++t) {
            const std::uint8_t *row = rows + stride * static_cast<std::size_t>(t) + i;
            a = _mm512_add_epi32(a, _mm512_mullo_epi32(_mm512_cvtepu8_epi32(_mm_loadu_si128(
                                                           reinterpret_cast<const __m128i *>(row))),
                                                       _mm512_set1_epi32(k[t])));
        }
        // Saturating narrowing with a clamp to 0..255 first, as clip8 does.
        a = _mm512_srai_epi32(a, kResamplePrecisionBits);
        a = _mm512_max_epi32(_mm512_min_epi32(a, _mm512_set1_epi32(255)), _mm512_setzero_si512());
        _mm_storeu_si128(reinterpret_cast<__m128i *>(out + i), _mm512_cvtepi32_epi8(a));
    }
    for (; i < n; ++i) {
        std::int32_t s = kResampleRoundingBias;
        for (int t = 0; t < taps; ++t)
            s += rows[stride * static_cast<std::size_t>(t) + i] * k[t];
        out[i] = clip8(s);
    }
}

const ResampleKernels kAvx512{"avx512", 4, horizontal, vertical};

} // namespace

const ResampleKernels *avx512ResampleKernels()
{
    return &kAvx512;
}

} // namespace loaderlab
