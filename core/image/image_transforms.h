#pragma once

// The ImageNet transforms on RGB, uint8, HWC images, written to give the same
// pixels as torchvision with PIL: antialiased bilinear resize (PIL's
// ImagingResample, fixed-point, horizontal then vertical pass), center crop and
// RandomResizedCrop with torchvision's offsets and rounding, and ToTensor +
// Normalize into a caller-owned CHW buffer.

#include "core/image/image_window.h"

#include <opencv2/core/mat.hpp>

#include <cstdint>
#include <random>
#include <span>

namespace loaderlab {

inline constexpr float kImageNetMean[3] = {0.485f, 0.456f, 0.406f};
inline constexpr float kImageNetStd[3] = {0.229f, 0.224f, 0.225f};

// Resamples `src` (CV_8UC3, may be a ROI) to `outSize` with PIL's antialiased
// bilinear filter, but computes only the output pixels inside `outRoi` (in output
// coordinates); `dst` receives an outRoi-sized image. Each output pixel depends
// only on its own filter window, so resize-then-crop fused this way gives exactly
// the pixels of the full resize.
void resampleBilinear(const cv::Mat &src, cv::Size outSize, cv::Rect outRoi, cv::Mat &dst);
// The same from a decoded window of a larger image (src.fullSize is the input
// size); std::invalid_argument when the window lacks a pixel the filter reads.
void resampleBilinear(const ImageWindow &src, cv::Size outSize, cv::Rect outRoi, cv::Mat &dst);

// resampleBilinear + toNormalizedChw in one pass: each output row is normalised
// into `out` (3 * outRoi.area() floats, CHW) while it is still in cache.
void resampleBilinearNormalized(const cv::Mat &src, cv::Size outSize, cv::Rect outRoi,
                                std::span<float> out);
void resampleBilinearNormalized(const ImageWindow &src, cv::Size outSize, cv::Rect outRoi,
                                std::span<float> out);

// The input pixels an inSize -> outSize resample reads to compute `outRoi`: the
// union of their filter windows.
cv::Rect resampleSourceRect(cv::Size inSize, cv::Size outSize, cv::Rect outRoi);

// The resampler's inner loops come in several instruction sets, chosen at run time
// (Auto: the best the CPU supports). All give the same bytes; tests and benchmarks
// force one to compare them. setResampleIsa throws std::invalid_argument for one
// the CPU or build lacks; it is process-wide, so set it before loading starts.
enum class ResampleIsa { Auto, Scalar, Avx2, Avx512 };
bool resampleIsaSupported(ResampleIsa isa);
void setResampleIsa(ResampleIsa isa);
const char *resampleIsaName(); // of the kernels in use: "scalar", "avx2", "avx512"

// Full antialiased bilinear resize to width x height.
cv::Mat resizeBilinear(const cv::Mat &img, int width, int height);

// torchvision's size for Resize(size): short side == size, long side =
// int(size * long / short).
cv::Size shortSideSize(cv::Size in, int size);
cv::Mat resizeShortSide(const cv::Mat &img, int size);

// torchvision's center crop: top = int(round((h - size) / 2.0)), left likewise;
// a crop larger than the image is zero-padded as torchvision does.
cv::Mat centerCrop(const cv::Mat &img, int size);

// Eval transform, Resize(resizeSize) + CenterCrop(cropSize), resampling only the
// cropped pixels. `dst` is reused when it already has the right size.
void resizeCenterCrop(const cv::Mat &img, int resizeSize, int cropSize, cv::Mat &dst);

// The eval transform and ToTensor + Normalize fused: into `out`, 3 * cropSize²
// floats, CHW; bit-identical to resizeCenterCrop + toNormalizedChw. A window must
// cover resizeCenterCropSourceRect(img.fullSize, ...).
void resizeCenterCropNormalized(const cv::Mat &img, int resizeSize, int cropSize,
                                std::span<float> out);
void resizeCenterCropNormalized(const ImageWindow &img, int resizeSize, int cropSize,
                                std::span<float> out);

// The pixels of an image of size `in` that the eval transform reads: what a
// decoder has to produce (all of them when the crop is padded).
cv::Rect resizeCenterCropSourceRect(cv::Size in, int resizeSize, int cropSize);

struct RandomResizedCropOptions
{
    double minScale = 0.08;
    double maxScale = 1.0;
    double minRatio = 3.0 / 4.0;
    double maxRatio = 4.0 / 3.0;
    double flipProbability = 0.5; // RandomHorizontalFlip after the crop
};

// torchvision's RandomResizedCrop.get_params: 10 attempts with a log-uniform
// aspect ratio, then the center-crop fallback with the ratio clamped.
cv::Rect randomResizedCropRect(cv::Size in, std::mt19937_64 &rng,
                               const RandomResizedCropOptions &options = {});

// Train transform: RandomResizedCrop(size) + RandomHorizontalFlip, into `dst`.
void randomResizedCrop(const cv::Mat &img, int size, std::mt19937_64 &rng, cv::Mat &dst,
                       const RandomResizedCropOptions &options = {});
// The same once the box has been drawn (randomResizedCropRect on the full image's
// size, with the same `rng`): resizes `box` of a window that covers it, then
// draws the flip. Lets a decoder produce only the box.
void resizeBoxAndFlip(const ImageWindow &img, cv::Rect box, int size, std::mt19937_64 &rng,
                      cv::Mat &dst, const RandomResizedCropOptions &options = {});
cv::Mat randomResizedCrop(const cv::Mat &img, int size, std::mt19937_64 &rng,
                          const RandomResizedCropOptions &options = {});

// Seed of the per-sample generator (splitmix64 mixing of seed, epoch, index), so
// a sample's random crop does not depend on which thread builds it.
std::uint64_t sampleSeed(std::uint64_t seed, int epoch, std::int64_t index);

// ToTensor + Normalize(ImageNet mean, std): RGB HWC uint8 -> CHW float32.
// Bit-identical to torchvision's (x / 255 - mean) / std in float32.
// `out` must hold exactly 3 * rows * cols floats (std::invalid_argument otherwise).
void toNormalizedChw(const cv::Mat &img, std::span<float> out);

// RGB HWC uint8 -> CHW uint8, no scaling.
void toChwU8(const cv::Mat &img, std::span<std::uint8_t> out);

} // namespace loaderlab
