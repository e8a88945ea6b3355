// Tests of the ImageNet transforms against values derived by hand or produced by
// torchvision/PIL, and of RandomResizedCrop's determinism.

#include "core/image/image_transforms.h"
#include "tests/support/test_main.h"

#include <opencv2/core.hpp>

#include <QtTest/QtTest>

#include <random>
#include <vector>

using namespace loaderlab;

namespace {

// The 11x7 image that the PIL reference values below were computed from.
cv::Mat referenceImage()
{
    cv::Mat img(7, 11, CV_8UC3);
    for (int y = 0; y < 7; ++y)
        for (int x = 0; x < 11; ++x)
            img.at<cv::Vec3b>(y, x) = cv::Vec3b(static_cast<uchar>((x * 37 + y * 11) % 256),
                                                static_cast<uchar>((x * 5 + y * 29) % 256),
                                                static_cast<uchar>((x * y * 7) % 256));
    return img;
}

// Pixels record their own coordinates, so a crop shows where it was taken.
cv::Mat coordinateImage(int width, int height)
{
    cv::Mat img(height, width, CV_8UC3);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            img.at<cv::Vec3b>(y, x) = cv::Vec3b(static_cast<uchar>(x), static_cast<uchar>(y), 7);
    return img;
}

cv::Mat randomImage(int width, int height, unsigned seed)
{
    cv::Mat img(height, width, CV_8UC3);
    cv::RNG rng(seed);
    rng.fill(img, cv::RNG::UNIFORM, 0, 256);
    return img;
}

bool sameImage(const cv::Mat &a, const cv::Mat &b)
{
    return a.size() == b.size() && a.type() == b.type() && cv::norm(a, b, cv::NORM_INF) == 0;
}

} // namespace

class TestImageTransforms : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void constantImageStaysConstant()
    {
        const cv::Mat img(23, 37, CV_8UC3, cv::Scalar(10, 100, 200));
        for (const cv::Size size : {cv::Size(13, 7), cv::Size(50, 40), cv::Size(37, 5)}) {
            const cv::Mat out = resizeBilinear(img, size.width, size.height);
            QCOMPARE(out.cols, size.width);
            QCOMPARE(out.rows, size.height);
            QCOMPARE(
                cv::norm(out, cv::Mat(out.size(), CV_8UC3, cv::Scalar(10, 100, 200)), cv::NORM_INF),
                0.0);
        }
    }

    void downscaleByTwoMatchesTriangleFilter()
    {
        // Derivation, 8 -> 4 pixels: scale = 2, so the triangle filter is stretched
        // to support 2 and each output pixel xx is centred on input 2xx + 1. Pillow's
        // window is [int(c - 2 + 0.5), int(c + 2 + 0.5)) clipped to the image, and a
        // tap at x weighs 1 - |x - c + 0.5| / 2, normalised to sum 1:
        //   out0 = (3 p0 + 3 p1 + p2) / 7            (edge: taps 0..2)
        //   out1 = (p1 + 3 p2 + 3 p3 + p4) / 8
        //   out2 = (p3 + 3 p4 + 3 p5 + p6) / 8
        //   out3 = (p5 + 3 p6 + 3 p7) / 7            (edge: taps 5..7)
        // With a = {0,35,70,105,0,35,70,105} along x: A = {25, 70, 35, 80}; with
        // b = {0,14,28,42,0,14,28,42} along y: B = {10, 28, 14, 32}. Both passes
        // average with weights summing to 1, so pixel (x, y) = a[x] + b[y] maps to
        // A[xo] + B[yo] exactly (every intermediate is an integer: no rounding).
        const int a[8] = {0, 35, 70, 105, 0, 35, 70, 105};
        const int b[8] = {0, 14, 28, 42, 0, 14, 28, 42};
        const int expectA[4] = {25, 70, 35, 80};
        const int expectB[4] = {10, 28, 14, 32};
        cv::Mat img(8, 8, CV_8UC3);
        for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 8; ++x)
                img.at<cv::Vec3b>(y, x) = cv::Vec3b(static_cast<uchar>(a[x] + b[y]),
                                                    static_cast<uchar>(255 - a[x] - b[y]), 77);
        const cv::Mat out = resizeBilinear(img, 4, 4);
        for (int y = 0; y < 4; ++y) {
            for (int x = 0; x < 4; ++x) {
                const cv::Vec3b px = out.at<cv::Vec3b>(y, x);
                QCOMPARE(int(px[0]), expectA[x] + expectB[y]);
                QCOMPARE(int(px[1]), 255 - expectA[x] - expectB[y]);
                QCOMPARE(int(px[2]), 77);
            }
        }
    }

    void matchesPilReference()
    {
        // Produced by (python3, Pillow 9.4.0, as used by torchvision 0.14):
        //   a[y, x] = ((x*37 + y*11) % 256, (x*5 + y*29) % 256, (x*y*7) % 256), 11x7
        //   Image.fromarray(a).resize((4, 3), Image.BILINEAR)          -> kDown
        //   Image.fromarray(a).resize((17, 9), Image.BILINEAR), row 4  -> kUpRow4
        const int kDown[36] = {51, 31,  7,  144, 43,  22,  129, 57,  38,  81,  69,  53,
                               75, 93,  24, 164, 105, 77,  129, 119, 131, 105, 131, 156,
                               99, 155, 41, 179, 167, 131, 96,  181, 169, 129, 193, 113};
        const int kUpRow4[51] = {33,  87,  0,   50,  89,  10,  74,  93,  23,  98,  96,  37,  122,
                                 99,  51,  146, 102, 64,  170, 106, 78,  194, 109, 91,  218, 112,
                                 105, 242, 115, 119, 191, 118, 132, 49,  122, 146, 58,  125, 159,
                                 82,  128, 173, 106, 131, 187, 130, 135, 200, 147, 137, 210};
        const cv::Mat down = resizeBilinear(referenceImage(), 4, 3);
        for (int i = 0; i < 36; ++i)
            QCOMPARE(int(down.data[i]), kDown[i]);
        const cv::Mat up = resizeBilinear(referenceImage(), 17, 9);
        for (int i = 0; i < 51; ++i)
            QCOMPARE(int(up.ptr<uchar>(4)[i]), kUpRow4[i]);
    }

    void shortSideSizeTruncatesLikeTorchvision()
    {
        // int(256 * 500 / 375) = int(341.33) = 341; int(256 * 500 / 333) = int(384.38).
        QCOMPARE(shortSideSize({500, 375}, 256), cv::Size(341, 256));
        QCOMPARE(shortSideSize({333, 500}, 256), cv::Size(256, 384));
        QCOMPARE(shortSideSize({300, 300}, 256), cv::Size(256, 256));
        const cv::Mat out = resizeShortSide(randomImage(40, 30, 1), 20);
        QCOMPARE(out.size(), cv::Size(26, 20)); // int(20 * 40 / 30) = 26
    }

    void centerCropOffsetsRoundHalfToEven()
    {
        // 10x7, crop 4: left = round(3.0) = 3, top = round(1.5) = 2 (half to even).
        cv::Mat out = centerCrop(coordinateImage(10, 7), 4);
        QCOMPARE(out.size(), cv::Size(4, 4));
        QCOMPARE(out.at<cv::Vec3b>(0, 0), cv::Vec3b(3, 2, 7));
        // 13x9, crop 4: left = round(4.5) = 4, top = round(2.5) = 2.
        out = centerCrop(coordinateImage(13, 9), 4);
        QCOMPARE(out.at<cv::Vec3b>(0, 0), cv::Vec3b(4, 2, 7));
        QCOMPARE(out.at<cv::Vec3b>(3, 3), cv::Vec3b(7, 5, 7));
        // 11 wide: round(3.5) = 4.
        out = centerCrop(coordinateImage(11, 4), 4);
        QCOMPARE(out.at<cv::Vec3b>(0, 0), cv::Vec3b(4, 0, 7));
    }

    void centerCropPadsSmallImages()
    {
        // 3x2 into 4x4: pad left (4-3)//2 = 0, top (4-2)//2 = 1; the rest is zero.
        const cv::Mat out = centerCrop(coordinateImage(3, 2), 4);
        QCOMPARE(out.at<cv::Vec3b>(1, 0), cv::Vec3b(0, 0, 7));
        QCOMPARE(out.at<cv::Vec3b>(2, 2), cv::Vec3b(2, 1, 7));
        QCOMPARE(out.at<cv::Vec3b>(0, 0), cv::Vec3b(0, 0, 0));
        QCOMPARE(out.at<cv::Vec3b>(3, 1), cv::Vec3b(0, 0, 0));
        QCOMPARE(out.at<cv::Vec3b>(1, 3), cv::Vec3b(0, 0, 0));
    }

    void fusedResizeCropEqualsResizeThenCrop()
    {
        for (const cv::Size size : {cv::Size(97, 61), cv::Size(50, 80), cv::Size(64, 64)}) {
            const cv::Mat img = randomImage(size.width, size.height, 7);
            cv::Mat fused;
            resizeCenterCrop(img, 40, 32, fused);
            QVERIFY(sameImage(fused, centerCrop(resizeShortSide(img, 40), 32)));
        }
    }

    void normalizesKnownPixels()
    {
        // 2x3 image: (0,0,0) (255,255,255) (124,116,104) / (10,20,30) (0,255,0) (1,2,3).
        cv::Mat img(2, 3, CV_8UC3);
        const uchar px[6][3] = {{0, 0, 0},    {255, 255, 255}, {124, 116, 104},
                                {10, 20, 30}, {0, 255, 0},     {1, 2, 3}};
        for (int i = 0; i < 6; ++i)
            img.at<cv::Vec3b>(i / 3, i % 3) = cv::Vec3b(px[i][0], px[i][1], px[i][2]);
        std::vector<float> out(18);
        toNormalizedChw(img, out);
        // By hand: (v / 255 - mean) / std.
        QVERIFY(qAbs(out[0] - (-0.485f / 0.229f)) < 1e-5f);              // R of pixel 0
        QVERIFY(qAbs(out[1] - ((1.0f - 0.485f) / 0.229f)) < 1e-5f);      // R of pixel 1
        QVERIFY(qAbs(out[6 + 1] - ((1.0f - 0.456f) / 0.224f)) < 1e-5f);  // G of pixel 1
        QVERIFY(qAbs(out[12 + 1] - ((1.0f - 0.406f) / 0.225f)) < 1e-5f); // B of pixel 1
        QVERIFY(qAbs(out[2] - 0.0055655f) < 1e-5f);                      // (124/255 - .485) / .229
        QVERIFY(qAbs(out[6 + 2] - (-0.0049020f)) < 1e-5f);               // (116/255 - .456) / .224
        QVERIFY(qAbs(out[12 + 3] - (-1.2815686f)) < 1e-5f);              // (30/255 - .406) / .225
        QVERIFY(qAbs(out[6 + 4] - 2.4285714f) < 1e-5f);                  // G = 255 of pixel 4
        QVERIFY(qAbs(out[5] - (-2.1007792f)) < 1e-5f);                   // (1/255 - .485) / .229
    }

    void chwU8Layout()
    {
        const cv::Mat img = coordinateImage(3, 2);
        std::vector<std::uint8_t> out(18);
        toChwU8(img, out);
        const std::vector<std::uint8_t> expected = {0, 1, 2, 0, 1, 2, 0, 0, 0,
                                                    1, 1, 1, 7, 7, 7, 7, 7, 7};
        QCOMPARE(out, expected);
        std::vector<std::uint8_t> wrong(17);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, toChwU8(img, wrong));
    }

    void randomResizedCropIsDeterministicPerSample()
    {
        const cv::Mat img = randomImage(120, 90, 3);
        const auto crop = [&](std::uint64_t seed, int epoch, std::int64_t index) {
            std::mt19937_64 rng(sampleSeed(seed, epoch, index));
            return randomResizedCrop(img, 32, rng);
        };
        const cv::Mat first = crop(42, 1, 5);
        QCOMPARE(first.size(), cv::Size(32, 32));
        QVERIFY(sameImage(first, crop(42, 1, 5)));
        int differentIndex = 0;
        int differentEpoch = 0;
        for (int i = 0; i < 8; ++i) {
            differentIndex += sameImage(crop(42, 1, i), crop(42, 1, i + 100)) ? 0 : 1;
            differentEpoch += sameImage(crop(42, 1, i), crop(42, 2, i)) ? 0 : 1;
        }
        QCOMPARE(differentIndex, 8);
        QCOMPARE(differentEpoch, 8);
        QVERIFY(sampleSeed(1, 0, 0) != sampleSeed(2, 0, 0));
        QVERIFY(sampleSeed(1, 0, 1) != sampleSeed(1, 1, 0));
    }

    void randomResizedCropRectStaysInBounds()
    {
        std::mt19937_64 rng(9);
        for (int i = 0; i < 500; ++i) {
            const cv::Rect r = randomResizedCropRect({120, 90}, rng);
            QVERIFY(r.x >= 0 && r.y >= 0 && r.width > 0 && r.height > 0);
            QVERIFY(r.x + r.width <= 120 && r.y + r.height <= 90);
            // Rounding w and h can move the area a little outside [0.08, 1].
            QVERIFY(r.area() >= 0.07 * 120 * 90);
        }
    }

    void randomResizedCropFallsBackToCenter()
    {
        // 1000x10: any area >= 8% of 10000 with ratio <= 4/3 needs h >= 24 > 10, so
        // all 10 attempts fail. Fallback: ratio 100 > 4/3, so h = 10,
        // w = round(10 * 4/3) = 13, left = (1000 - 13) // 2 = 493, top = 0.
        std::mt19937_64 rng(1);
        QCOMPARE(randomResizedCropRect({1000, 10}, rng), cv::Rect(493, 0, 13, 10));
        // 10x1000: ratio 0.01 < 3/4: w = 10, h = round(10 / 0.75) = 13, top = 493.
        QCOMPARE(randomResizedCropRect({10, 1000}, rng), cv::Rect(0, 493, 10, 13));
    }

    void flipMirrorsTheCrop()
    {
        const cv::Mat img = randomImage(80, 60, 5);
        RandomResizedCropOptions noFlip;
        noFlip.flipProbability = 0.0;
        RandomResizedCropOptions alwaysFlip;
        alwaysFlip.flipProbability = 1.0;
        std::mt19937_64 rngA(77);
        std::mt19937_64 rngB(77);
        const cv::Mat plain = randomResizedCrop(img, 24, rngA, noFlip);
        const cv::Mat flipped = randomResizedCrop(img, 24, rngB, alwaysFlip);
        cv::Mat mirrored;
        cv::flip(plain, mirrored, 1);
        QVERIFY(sameImage(flipped, mirrored));
        QVERIFY(!sameImage(flipped, plain));
    }
};

LOADERLAB_GUILESS_TEST_MAIN(TestImageTransforms)
#include "test_image_transforms.moc"
