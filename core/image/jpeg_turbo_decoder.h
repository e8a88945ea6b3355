#pragma once

// JPEG decoding with libjpeg-turbo's TurboJPEG API: straight to RGB (no separate
// BGR-to-RGB pass) into a caller-owned buffer, optionally scaled by M/8 in the DCT
// domain. It is the same libjpeg-turbo that Pillow decodes with on Debian, with the
// same defaults (accurate integer IDCT, fancy upsampling), so full-size output is
// pixel for pixel what PIL gives.

#include <opencv2/core/mat.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace loaderlab {

// Decodes `data` (a JPEG whose header has already been checked) to an RGB CV_8UC3
// image in `out`, reallocating it only when the size changes. `scaleEighths` in
// 1..8 decodes at scaleEighths/8 of the full size (8: full size). Returns false,
// leaving `out` alone, for colour spaces TurboJPEG cannot turn into RGB (CMYK,
// YCCK), which the caller decodes another way. Throws SampleError naming `path`
// for a fatal error; the text of a warning (the image decoded, perhaps damaged)
// is appended to `warnings`.
bool decodeJpegTurbo(std::span<const std::uint8_t> data, const std::string &path, int scaleEighths,
                     cv::Mat &out, std::vector<std::string> &warnings);

// The smallest scale M/8, M in {1, 2, 4}, at which a width x height JPEG still has
// a short side of at least `minShortSide` pixels (libjpeg rounds scaled sizes up);
// 8 when no smaller one does or minShortSide <= 0.
int jpegScaleEighths(int width, int height, int minShortSide);

// A JPEG's size when decoded at scaleEighths/8, as libjpeg computes it.
int jpegScaledSize(int size, int scaleEighths);

} // namespace loaderlab
