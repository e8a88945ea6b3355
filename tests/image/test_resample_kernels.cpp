// The resampler's kernel sets (scalar, AVX2, AVX-512) against a plain, independent
// port of Pillow's ImagingResample written here: byte for byte, on random images
// of many sizes (one-pixel rows, strong downscales with wide windows, upscales,
// crops touching every edge), and the fused normalising path against
// resize + toNormalizedChw.

#include "core/image/image_transforms.h"
#include "tests/support/test_main.h"

#include <opencv2/core.hpp>

#include <QtTest/QtTest>

#include <cmath>
#include <random>
#include <vector>

using namespace loaderlab;

namespace {

// Pillow's Resample.c, precompute_coeffs + ImagingResampleHorizontal/Vertical_8bpc,
// for the bilinear filter, on an interleaved 3-channel image.
struct Coeffs
{
    std::vector<int> xmin, xsize;
    std::vector<std::vector<int>> k;
};

Coeffs pillowCoeffs(int inSize, int outSize)
{
    const double scale = double(inSize) / outSize;
    const double filterscale = scale < 1.0 ? 1.0 : scale;
    const double support = filterscale;
    Coeffs c;
    for (int xx = 0; xx < outSize; ++xx) {
        const double center = (xx + 0.5) * scale;
        const double ss = 1.0 / filterscale;
        int xmin = int(center - support + 0.5);
        if (xmin < 0)
            xmin = 0;
        int xmax = int(center + support + 0.5);
        if (xmax > inSize)
            xmax = inSize;
        xmax -= xmin;
        std::vector<double> w(static_cast<std::size_t>(xmax));
        double ww = 0;
        for (int x = 0; x < xmax; ++x) {
            double t = (x + xmin - center + 0.5) * ss;
            t = t < 0 ? -t : t;
            w[static_cast<std::size_t>(x)] = t < 1.0 ? 1.0 - t : 0.0;
            ww += w[static_cast<std::size_t>(x)];
        }
        std::vector<int> fixed;
        for (double v : w) {
            if (ww != 0.0)
                v /= ww;
            fixed.push_back(v < 0 ? int(-0.5 + v * (1 << 22)) : int(0.5 + v * (1 << 22)));
        }
        c.xmin.push_back(xmin);
        c.xsize.push_back(xmax);
        c.k.push_back(fixed);
    }
    return c;
}

int clip(long long v)
{
    v >>= 22;
    return v < 0 ? 0 : (v > 255 ? 255 : int(v));
}

cv::Mat pillowResize(const cv::Mat &src, int width, int height)
{
    cv::Mat temp = src.clone();
    if (width != src.cols) {
        const Coeffs c = pillowCoeffs(src.cols, width);
        temp.create(src.rows, width, CV_8UC3);
        for (int y = 0; y < src.rows; ++y)
            for (int x = 0; x < width; ++x)
                for (int ch = 0; ch < 3; ++ch) {
                    long long s = 1 << 21;
                    for (int t = 0; t < c.xsize[std::size_t(x)]; ++t)
                        s += src.at<cv::Vec3b>(y, c.xmin[std::size_t(x)] + t)[ch]
                             * c.k[std::size_t(x)][std::size_t(t)];
                    temp.at<cv::Vec3b>(y, x)[ch] = uchar(clip(s));
                }
    }
    if (height == temp.rows)
        return temp;
    const Coeffs c = pillowCoeffs(temp.rows, height);
    cv::Mat out(height, temp.cols, CV_8UC3);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < temp.cols; ++x)
            for (int ch = 0; ch < 3; ++ch) {
                long long s = 1 << 21;
                for (int t = 0; t < c.xsize[std::size_t(y)]; ++t)
                    s += temp.at<cv::Vec3b>(c.xmin[std::size_t(y)] + t, x)[ch]
                         * c.k[std::size_t(y)][std::size_t(t)];
                out.at<cv::Vec3b>(y, x)[ch] = uchar(clip(s));
            }
    return out;
}

cv::Mat randomKernelImage(int width, int height, std::mt19937 &rng)
{
    cv::Mat img(height, width, CV_8UC3);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width * 3; ++x)
            img.ptr<uchar>(y)[x] = uchar(rng() % 256);
    return img;
}

} // namespace

class TestResampleKernels : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cleanup() { setResampleIsa(ResampleIsa::Auto); }

    void kernelsMatchPillow_data()
    {
        QTest::addColumn<int>("isa");
        QTest::newRow("scalar") << static_cast<int>(ResampleIsa::Scalar);
        QTest::newRow("avx2") << static_cast<int>(ResampleIsa::Avx2);
        QTest::newRow("avx512") << static_cast<int>(ResampleIsa::Avx512);
    }

    void kernelsMatchPillow()
    {
        QFETCH(int, isa);
        if (!resampleIsaSupported(static_cast<ResampleIsa>(isa)))
            QSKIP("this CPU lacks the instruction set");
        setResampleIsa(static_cast<ResampleIsa>(isa));
        std::mt19937 rng(42);
        const cv::Size cases[][2] = {
            {{1, 1}, {3, 2}},         {{2, 5}, {1, 1}},         {{5, 3}, {2, 7}},
            {{17, 9}, {4, 3}},        {{64, 64}, {21, 40}},     {{200, 3}, {7, 1}},
            {{3, 200}, {1, 9}},       {{97, 61}, {96, 60}},     {{120, 90}, {240, 180}},
            {{500, 375}, {341, 256}}, {{333, 500}, {256, 384}}, {{257, 33}, {12, 33}},
        };
        for (const auto &c : cases) {
            const cv::Mat src = randomKernelImage(c[0].width, c[0].height, rng);
            const cv::Mat expected = pillowResize(src, c[1].width, c[1].height);
            const cv::Mat ours = resizeBilinear(src, c[1].width, c[1].height);
            QVERIFY2(cv::norm(ours, expected, cv::NORM_INF) == 0,
                     qPrintable(QStringLiteral("%1x%2 -> %3x%4")
                                    .arg(c[0].width)
                                    .arg(c[0].height)
                                    .arg(c[1].width)
                                    .arg(c[1].height)));
        }
        // Random sizes and crops of the output, against the full reference resize.
        for (int round = 0; round < 60; ++round) {
            const int w = 1 + int(rng() % 300), h = 1 + int(rng() % 300);
            const int ow = 1 + int(rng() % 200), oh = 1 + int(rng() % 200);
            const cv::Mat src = randomKernelImage(w, h, rng);
            const cv::Mat expected = pillowResize(src, ow, oh);
            const int rx = int(rng() % unsigned(ow)), ry = int(rng() % unsigned(oh));
            const cv::Rect roi(rx, ry, 1 + int(rng() % unsigned(ow - rx)),
                               1 + int(rng() % unsigned(oh - ry)));
            cv::Mat ours;
            resampleBilinear(src, {ow, oh}, roi, ours);
            QVERIFY2(cv::norm(ours, expected(roi), cv::NORM_INF) == 0,
                     qPrintable(QStringLiteral("%1x%2 -> %3x%4, region %5,%6 %7x%8")
                                    .arg(w)
                                    .arg(h)
                                    .arg(ow)
                                    .arg(oh)
                                    .arg(roi.x)
                                    .arg(roi.y)
                                    .arg(roi.width)
                                    .arg(roi.height)));
        }
    }

    void fusedNormalizeMatchesTwoPasses()
    {
        std::mt19937 rng(7);
        for (const cv::Size size : {cv::Size(500, 375), cv::Size(300, 451), cv::Size(60, 50)}) {
            const cv::Mat src = randomKernelImage(size.width, size.height, rng);
            cv::Mat cropped;
            resizeCenterCrop(src, 64, 56, cropped);
            std::vector<float> expected(3 * 56 * 56), fused(3 * 56 * 56);
            toNormalizedChw(cropped, expected);
            resizeCenterCropNormalized(src, 64, 56, fused);
            QVERIFY(expected == fused);
        }
    }
};

LOADERLAB_GUILESS_TEST_MAIN(TestResampleKernels)
#include "test_resample_kernels.moc"
