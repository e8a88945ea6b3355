#pragma once

// JPEG decoding with libjpeg-turbo's libjpeg API: straight to RGB (no separate
// BGR-to-RGB pass) into a caller-owned buffer, optionally scaled by M/8 in the DCT
// domain, and optionally only the region a transform will read. It is the same
// libjpeg-turbo that Pillow decodes with on Debian, with the same defaults
// (accurate integer IDCT, fancy upsampling) and Pillow's CMYK-to-RGB arithmetic,
// so every pixel it produces is what PIL gives for that pixel.
//
// A region saves work: columns outside it skip the inverse DCT, upsampling and
// colour conversion (jpeg_crop_scanline), rows above it are entropy-decoded only
// (jpeg_skip_scanlines) and rows below it are not decoded at all. The decoder
// keeps one iMCU of margin on every cropped side, so the fancy upsampler sees
// the same neighbours as in a full decode and the region's pixels are identical.

#include "core/image/image_window.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace loaderlab {

struct JpegDecodeRequest
{
    int scaleEighths = 8; // 1..8: decode at scaleEighths/8 of the full size
    // The pixels wanted, in the scaled image's coordinates; empty: all of them.
    // The window decoded covers it and may be larger.
    cv::Rect region;
};

// Decodes `data` (a JPEG whose header has already been checked) into `out`,
// reallocating its pixels only when their size changes. CMYK and YCCK images are
// converted to RGB as Pillow converts them. Throws SampleError naming `path` for
// a fatal error; the text of each warning (the image decoded, perhaps damaged) is
// appended to `warnings` (the first few of them).
void decodeJpeg(std::span<const std::uint8_t> data, const std::string &path,
                const JpegDecodeRequest &request, ImageWindow &out,
                std::vector<std::string> &warnings);

// The smallest scale M/8, M in {1, 2, 4}, at which a width x height JPEG still has
// a short side of at least `minShortSide` pixels (libjpeg rounds scaled sizes up);
// 8 when no smaller one does or minShortSide <= 0.
int jpegScaleEighths(int width, int height, int minShortSide);

// A JPEG's size when decoded at scaleEighths/8, as libjpeg computes it.
int jpegScaledSize(int size, int scaleEighths);

} // namespace loaderlab
