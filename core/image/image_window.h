#pragma once

// ImageWindow: a decoded image, or the part of it a decoder was asked for. A JPEG
// decoder can skip the rows and columns a transform will never read (a center
// crop's discarded border); the resampler then reads the window as if it were the
// whole image, with every filter tap at the position it has in the full image.

#include <opencv2/core/mat.hpp>

namespace loaderlab {

struct ImageWindow
{
    cv::Mat pixels;    // RGB, CV_8UC3: the rectangle at `origin` of the full image
    cv::Point origin;  // top-left of `pixels` in the full image
    cv::Size fullSize; // the whole image's size

    // The whole of `image` as a window (no copy).
    static ImageWindow whole(const cv::Mat &image) { return {image, {0, 0}, image.size()}; }

    cv::Rect rect() const { return {origin, pixels.size()}; }
    bool isWhole() const { return origin == cv::Point(0, 0) && pixels.size() == fullSize; }
    // True when the window holds every pixel of `r` (full-image coordinates).
    bool covers(const cv::Rect &r) const { return (r & rect()) == r; }
};

} // namespace loaderlab
