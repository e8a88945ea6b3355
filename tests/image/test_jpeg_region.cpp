// Region decoding: a JPEG decoded only where a transform reads gives, inside the
// region, exactly the pixels of the full decode, for every chroma subsampling,
// progressive and restart-marker files, greyscale, and every DCT scale; the
// window really is smaller than the image; and the eval transform from a window
// equals the eval transform from the whole image. The test JPEGs are written
// with libjpeg itself, so the subsampling factors are the ones asked for.

#include "core/dataset/dataset.h"
#include "core/image/image_decoder.h"
#include "core/image/image_transforms.h"
#include "core/image/jpeg_decoder.h"
#include "tests/support/test_main.h"

#include <opencv2/core.hpp>

#include <QtTest/QtTest>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <jpeglib.h>

using namespace loaderlab;

namespace {

using RegionBytes = std::vector<std::uint8_t>;

// Gradients, hard edges and noise, so that a wrong neighbour shows.
cv::Mat pattern(int width, int height, unsigned seed)
{
    std::mt19937 rng(seed);
    cv::Mat rgb(height, width, CV_8UC3);
    for (int y = 0; y < height; ++y) {
        auto *p = rgb.ptr<std::uint8_t>(y);
        for (int x = 0; x < width; ++x, p += 3) {
            const int edge = ((x / 7 + y / 5) % 2) ? 255 : 0;
            p[0] = static_cast<std::uint8_t>((x * 255 / std::max(width - 1, 1) + rng() % 40) % 256);
            p[1] = static_cast<std::uint8_t>((y * 3 + edge / 2) % 256);
            p[2] = static_cast<std::uint8_t>((edge + static_cast<int>(rng() % 256)) / 2);
        }
    }
    return rgb;
}

struct JpegKind
{
    int hSamp = 2; // luma sampling factors (chroma are 1)
    int vSamp = 2;
    bool grey = false;
    J_COLOR_SPACE fourChannels = JCS_UNKNOWN; // JCS_CMYK or JCS_YCCK: a 4-channel file
    bool progressive = false;
    int restartRows = 0;
};

RegionBytes encode(const cv::Mat &rgb, const JpegKind &kind)
{
    jpeg_compress_struct cinfo{};
    jpeg_error_mgr err{};
    cinfo.err = jpeg_std_error(&err);
    jpeg_create_compress(&cinfo);
    unsigned char *buffer = nullptr;
    unsigned long size = 0;
    jpeg_mem_dest(&cinfo, &buffer, &size);
    const bool cmyk = kind.fourChannels != JCS_UNKNOWN;
    cinfo.image_width = static_cast<JDIMENSION>(rgb.cols);
    cinfo.image_height = static_cast<JDIMENSION>(rgb.rows);
    cinfo.input_components = cmyk ? 4 : 3;
    cinfo.in_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, 90, TRUE);
    if (kind.grey)
        jpeg_set_colorspace(&cinfo, JCS_GRAYSCALE);
    if (cmyk)
        jpeg_set_colorspace(&cinfo, kind.fourChannels);
    // Four channels: the pattern's R, G, B and their mean as K.
    std::vector<JSAMPLE> row(static_cast<std::size_t>(rgb.cols) * 4);
    cinfo.comp_info[0].h_samp_factor = kind.grey ? 1 : kind.hSamp;
    cinfo.comp_info[0].v_samp_factor = kind.grey ? 1 : kind.vSamp;
    if (kind.progressive)
        jpeg_simple_progression(&cinfo);
    cinfo.restart_in_rows = kind.restartRows;
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        auto *in = const_cast<JSAMPLE *>(rgb.ptr<JSAMPLE>(static_cast<int>(cinfo.next_scanline)));
        for (int x = 0; cmyk && x < rgb.cols; ++x) {
            const JSAMPLE *p = in + x * 3;
            std::copy(p, p + 3, &row[static_cast<std::size_t>(x) * 4]);
            row[static_cast<std::size_t>(x) * 4 + 3] = static_cast<JSAMPLE>((p[0] + p[1] + p[2])
                                                                            / 3);
        }
        JSAMPROW out = cmyk ? row.data() : in;
        jpeg_write_scanlines(&cinfo, &out, 1);
    }
    jpeg_finish_compress(&cinfo);
    RegionBytes out(buffer, buffer + size);
    jpeg_destroy_compress(&cinfo);
    std::free(buffer);
    return out;
}

// The CMYK values a 4-channel JPEG stores, as libjpeg outputs them.
cv::Mat decodeRawCmyk(const RegionBytes &jpeg)
{
    jpeg_decompress_struct cinfo{};
    jpeg_error_mgr err{};
    cinfo.err = jpeg_std_error(&err);
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, jpeg.data(), static_cast<unsigned long>(jpeg.size()));
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_CMYK;
    jpeg_start_decompress(&cinfo);
    cv::Mat raw(static_cast<int>(cinfo.output_height), static_cast<int>(cinfo.output_width),
                CV_8UC4);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = raw.ptr<JSAMPLE>(static_cast<int>(cinfo.output_scanline));
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return raw;
}

ImageWindow decode(const RegionBytes &jpeg, int scale, cv::Rect region)
{
    std::vector<std::string> warnings;
    ImageWindow window;
    decodeJpeg(jpeg, "test.jpg", {scale, region}, window, warnings);
    if (!warnings.empty())
        throw std::runtime_error("warning: " + warnings.front());
    return window;
}

// The first pixel where `window` differs from `whole` inside `region`, as text.
QString firstDifference(const cv::Mat &whole, const ImageWindow &window, cv::Rect region)
{
    for (int y = region.y; y < region.y + region.height; ++y) {
        const auto *a = whole.ptr<std::uint8_t>(y) + region.x * 3;
        const auto *b = window.pixels.ptr<std::uint8_t>(y - window.origin.y)
                        + (region.x - window.origin.x) * 3;
        if (std::memcmp(a, b, static_cast<std::size_t>(region.width) * 3) != 0)
            return QStringLiteral("row %1 differs").arg(y);
    }
    return {};
}

} // namespace

class TestJpegRegion : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void regionEqualsTheFullDecode_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<int>("hSamp");
        QTest::addColumn<int>("vSamp");
        QTest::addColumn<bool>("grey");
        QTest::addColumn<int>("fourChannels");
        QTest::addColumn<bool>("progressive");
        QTest::addColumn<int>("restartRows");
        const int rgb = JCS_UNKNOWN;
        QTest::newRow("4:2:0") << 517 << 389 << 2 << 2 << false << rgb << false << 0;
        QTest::newRow("4:4:4") << 403 << 611 << 1 << 1 << false << rgb << false << 0;
        QTest::newRow("4:2:2") << 640 << 427 << 2 << 1 << false << rgb << false << 0;
        QTest::newRow("4:4:0") << 333 << 500 << 1 << 2 << false << rgb << false << 0;
        QTest::newRow("4:1:1") << 701 << 263 << 4 << 1 << false << rgb << false << 0;
        QTest::newRow("grey") << 410 << 390 << 1 << 1 << true << rgb << false << 0;
        QTest::newRow("cmyk 4:2:0") << 451 << 377 << 2 << 2 << false << int{JCS_CMYK} << false << 0;
        QTest::newRow("ycck 4:2:0") << 377 << 451 << 2 << 2 << false << int{JCS_YCCK} << false << 0;
        QTest::newRow("progressive 4:2:0") << 480 << 363 << 2 << 2 << false << rgb << true << 0;
        QTest::newRow("restart markers") << 529 << 301 << 2 << 2 << false << rgb << false << 1;
        QTest::newRow("narrow") << 1000 << 67 << 2 << 2 << false << rgb << false << 0;
    }

    void regionEqualsTheFullDecode()
    {
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(int, hSamp);
        QFETCH(int, vSamp);
        QFETCH(bool, grey);
        QFETCH(int, fourChannels);
        QFETCH(bool, progressive);
        QFETCH(int, restartRows);
        const RegionBytes jpeg = encode(
            pattern(width, height, static_cast<unsigned>(width * height)),
            {hSamp, vSamp, grey, static_cast<J_COLOR_SPACE>(fourChannels), progressive,
             restartRows});
        std::mt19937 rng(7);
        for (int scale : {8, 4, 2, 1, 3, 6}) {
            const ImageWindow whole = decode(jpeg, scale, {});
            QVERIFY(whole.isWhole());
            QCOMPARE(whole.fullSize,
                     cv::Size(jpegScaledSize(width, scale), jpegScaledSize(height, scale)));
            const cv::Size size = whole.fullSize;
            for (int trial = 0; trial < 12; ++trial) {
                const int x0 = static_cast<int>(rng() % static_cast<unsigned>(size.width));
                const int y0 = static_cast<int>(rng() % static_cast<unsigned>(size.height));
                const int w = 1 + static_cast<int>(rng() % static_cast<unsigned>(size.width - x0));
                const int h = 1 + static_cast<int>(rng() % static_cast<unsigned>(size.height - y0));
                const cv::Rect region(x0, y0, w, h);
                const ImageWindow part = decode(jpeg, scale, region);
                QCOMPARE(part.fullSize, size);
                QVERIFY2(part.covers(region), "the window does not cover the region");
                const QString diff = firstDifference(whole.pixels, part, region);
                QVERIFY2(diff.isEmpty(),
                         qPrintable(QStringLiteral("scale %1/8, region %2,%3 %4x%5: %6")
                                        .arg(scale)
                                        .arg(x0)
                                        .arg(y0)
                                        .arg(w)
                                        .arg(h)
                                        .arg(diff)));
            }
        }
    }

    void scaleIsTheSmallestThatKeepsTheShortSide_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<int>("minShortSide");
        QTest::addColumn<int>("eighths");
        // libjpeg rounds a scaled size up: 511 px halved is 256, 510 is 255.
        QTest::newRow("exact mode (0)") << 2100 << 2060 << 0 << 8;
        QTest::newRow("negative") << 2100 << 2060 << -5 << 8;
        QTest::newRow("under the size") << 200 << 300 << 256 << 8;
        QTest::newRow("exactly the size") << 256 << 400 << 256 << 8;
        QTest::newRow("510: 1/2 gives 255") << 510 << 700 << 256 << 8;
        QTest::newRow("511: 1/2 gives 256") << 511 << 700 << 256 << 4;
        QTest::newRow("512") << 512 << 512 << 256 << 4;
        QTest::newRow("portrait, short side 512") << 700 << 512 << 256 << 4;
        QTest::newRow("1020: 1/4 gives 255") << 1500 << 1020 << 256 << 4;
        QTest::newRow("1021: 1/4 gives 256") << 1021 << 1500 << 256 << 2;
        QTest::newRow("1024") << 1024 << 1024 << 256 << 2;
        QTest::newRow("2040: 1/8 gives 255") << 2040 << 2100 << 256 << 2;
        QTest::newRow("2041: 1/8 gives 256") << 2100 << 2041 << 256 << 1;
        QTest::newRow("224: 446 stays whole") << 446 << 446 << 224 << 8;
        QTest::newRow("224: 447 is halved") << 447 << 800 << 224 << 4;
        QTest::newRow("1 px of 8 px") << 8 << 9 << 1 << 1;
    }

    void scaleIsTheSmallestThatKeepsTheShortSide()
    {
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(int, minShortSide);
        QFETCH(int, eighths);
        QCOMPARE(jpegScaleEighths(width, height, minShortSide), eighths);
        QCOMPARE(jpegScaleEighths(height, width, minShortSide), eighths);
        if (minShortSide <= 0)
            return;
        // What libjpeg itself decodes: at the chosen scale the short side is at least
        // minShortSide (unless even the full size is not), one step smaller it is not.
        const RegionBytes jpeg = encode(cv::Mat(height, width, CV_8UC3, cv::Scalar(90, 120, 150)),
                                        {});
        const auto shortSide = [&](int scale) {
            const cv::Size s = decode(jpeg, scale, {}).fullSize;
            return std::min(s.width, s.height);
        };
        if (eighths < 8)
            QVERIFY(shortSide(eighths) >= minShortSide);
        if (eighths > 1)
            QVERIFY(shortSide(eighths / 2) < minShortSide);
    }

    void aCentreRegionSkipsTheBorder()
    {
        const RegionBytes jpeg = encode(pattern(800, 600, 3), {});
        const cv::Rect centre(300, 200, 200, 200);
        const ImageWindow part = decode(jpeg, 8, centre);
        QVERIFY(part.covers(centre));
        // One iMCU (16 px for 4:2:0) of margin, widened to iMCU boundaries: well
        // under the full 800 x 600.
        QVERIFY2(part.pixels.cols <= 200 + 4 * 16, qPrintable(QString::number(part.pixels.cols)));
        QVERIFY2(part.pixels.rows <= 200 + 2 * 16, qPrintable(QString::number(part.pixels.rows)));
        QVERIFY(part.origin.x > 0 && part.origin.y > 0);
    }

    void evalTransformFromTheWindowEqualsTheWholeImage_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<int>("minShortSide");
        QTest::newRow("landscape, exact") << 900 << 600 << 0;
        QTest::newRow("portrait, exact") << 401 << 777 << 0;
        QTest::newRow("landscape, fast 1/2") << 900 << 600 << 256;
        QTest::newRow("portrait, fast 1/4") << 1100 << 1500 << 256;
        QTest::newRow("small, upscaled") << 180 << 200 << 0;
        QTest::newRow("exactly the resize size") << 256 << 380 << 0;
    }

    void evalTransformFromTheWindowEqualsTheWholeImage()
    {
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(int, minShortSide);
        const RegionBytes jpeg = encode(pattern(width, height, 9), {});
        const int scale = jpegScaleEighths(width, height, minShortSide);
        const cv::Mat whole = decode(jpeg, scale, {}).pixels;
        std::vector<float> expected(3 * 224 * 224);
        resizeCenterCropNormalized(whole, 256, 224, expected);

        // Through the decoder's front door, as the image-folder dataset calls it.
        DecodeOptions options;
        options.fastMinShortSide = minShortSide;
        options.region = [](cv::Size s) { return resizeCenterCropSourceRect(s, 256, 224); };
        ImageWindow window;
        decodeImageBytes(jpeg, "test.jpg", DecodeLimits{}, window, options);
        QCOMPARE(window.fullSize, whole.size());
        std::vector<float> ours(expected.size());
        resizeCenterCropNormalized(window, 256, 224, ours);
        QVERIFY(ours == expected);
        if (shortSideSize(whole.size(), 256).height >= 224
            && shortSideSize(whole.size(), 256).width >= 224 && std::min(width, height) > 300)
            QVERIFY2(!window.isWhole(), "a center crop of a large image decoded the whole image");
    }

    void trainTransformFromTheBoxEqualsTheWholeImage()
    {
        const RegionBytes jpeg = encode(pattern(700, 500, 2), {});
        const cv::Mat whole = decode(jpeg, 8, {}).pixels;
        int partial = 0;
        for (std::uint64_t seed = 0; seed < 20; ++seed) {
            std::mt19937_64 rngWhole(seed);
            cv::Mat expected;
            randomResizedCrop(whole, 64, rngWhole, expected);

            std::mt19937_64 rng(seed);
            cv::Rect box;
            DecodeOptions options;
            options.region = [&](cv::Size s) {
                box = randomResizedCropRect(s, rng);
                return box;
            };
            ImageWindow window;
            decodeImageBytes(jpeg, "test.jpg", DecodeLimits{}, window, options);
            cv::Mat ours;
            resizeBoxAndFlip(window, box, 64, rng, ours);
            QCOMPARE(cv::norm(ours, expected, cv::NORM_INF), 0.0);
            // Same draws in the same order: the generators end in the same state.
            QCOMPARE(rng(), rngWhole());
            partial += window.isWhole() ? 0 : 1;
        }
        QVERIFY2(partial > 10, "random crops decoded the whole image");
    }

    void aWindowMissingAFilterTapIsRefused()
    {
        const cv::Mat image = pattern(500, 400, 5);
        const cv::Size resized = shortSideSize(image.size(), 256);
        const cv::Rect roi(16, 16, 224, 224);
        const cv::Rect need = resampleSourceRect(image.size(), resized, roi);
        cv::Mat expected;
        resampleBilinear(image, resized, roi, expected);

        // Exactly the rectangle: the same pixels.
        cv::Mat fromWindow;
        resampleBilinear(ImageWindow{image(need), need.tl(), image.size()}, resized, roi,
                         fromWindow);
        QCOMPARE(cv::norm(fromWindow, expected, cv::NORM_INF), 0.0);

        // One column or row less on any side: refused, never read out of bounds.
        const cv::Rect smaller[] = {{need.x + 1, need.y, need.width - 1, need.height},
                                    {need.x, need.y + 1, need.width, need.height - 1},
                                    {need.x, need.y, need.width - 1, need.height},
                                    {need.x, need.y, need.width, need.height - 1}};
        for (const cv::Rect &r : smaller) {
            cv::Mat out;
            QVERIFY_THROWS_EXCEPTION(
                std::invalid_argument,
                resampleBilinear(ImageWindow{image(r), r.tl(), image.size()}, resized, roi, out));
        }
    }

    void cmykBecomesRgbAsPillowConvertsIt()
    {
        const RegionBytes jpeg = encode(pattern(97, 61, 8), {2, 2, false, JCS_CMYK, false, 0});
        const cv::Mat rgb = decode(jpeg, 8, {}).pixels;
        // The stored values, straight from libjpeg, through Pillow's arithmetic:
        // raw mode "CMYK;I" (c = 255 - stored), then cmyk2rgb with nk = 255 - k:
        // nk - MULDIV255(c, nk).
        const cv::Mat raw = decodeRawCmyk(jpeg);
        QCOMPARE(raw.size(), rgb.size());
        const auto muldiv255 = [](int a, int b) {
            const int t = a * b + 128;
            return ((t >> 8) + t) >> 8;
        };
        for (int y = 0; y < rgb.rows; ++y) {
            for (int x = 0; x < rgb.cols; ++x) {
                const auto *in = raw.ptr<std::uint8_t>(y) + x * 4;
                const auto *out = rgb.ptr<std::uint8_t>(y) + x * 3;
                const int nk = 255 - (255 - in[3]);
                for (int c = 0; c < 3; ++c)
                    QCOMPARE(int{out[c]}, nk - muldiv255(255 - in[c], nk));
            }
        }
    }

    void aCorruptRegionDecodeNamesTheFile()
    {
        RegionBytes jpeg = encode(pattern(640, 480, 4), {});
        // Garble the entropy-coded data in the middle, keep SOI..header and EOI.
        for (std::size_t i = jpeg.size() / 2; i < jpeg.size() / 2 + 64; ++i)
            jpeg[i] = 0xFF;
        ImageWindow window;
        std::vector<std::string> warnings;
        try {
            decodeJpeg(jpeg, "bad.jpg", {8, cv::Rect(200, 200, 240, 240)}, window, warnings);
            // libjpeg may decode corrupt data with warnings (grey blocks), as PIL does.
            QVERIFY(!warnings.empty());
        } catch (const SampleError &e) {
            QVERIFY2(std::string(e.what()).find("bad.jpg") != std::string::npos, e.what());
        }
        // The thread's decompressor is usable afterwards.
        const RegionBytes good = encode(pattern(64, 48, 1), {});
        QCOMPARE(decode(good, 8, {}).pixels.size(), cv::Size(64, 48));
    }
};

LOADERLAB_GUILESS_TEST_MAIN(TestJpegRegion)
#include "test_jpeg_region.moc"
