// What libjpeg and libpng say while OpenCV decodes a file reaches the log or the
// SampleError with the file's name (escaped for the terminal), not stderr bare.

#include "core/image/codec_messages.h"
#include "core/image/image_decoder.h"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <spdlog/spdlog.h>

#include "tests/support/log_capture.h"
#include "tests/support/test_main.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <vector>

using namespace loaderlab;

namespace {

using CodecBytes = std::vector<std::uint8_t>;

// A file name that must not reach a terminal as is: a colour escape, a byte
// that is not UTF-8.
const std::string kPath = "dir/bad\x1B[31m\xE9.jpg";
const std::string kShownPath = "dir/bad\\x1B[31m\\xE9.jpg";

CodecBytes encoded(const char *extension)
{
    cv::Mat img(48, 64, CV_8UC3);
    cv::RNG(5).fill(img, cv::RNG::UNIFORM, 0, 256);
    std::vector<uchar> bytes;
    cv::imencode(extension, img, bytes);
    return bytes;
}

// Junk between the last scan and EOI: libjpeg decodes the image and warns
// "Corrupt JPEG data: N extraneous bytes before marker 0xd9" (N is a little less
// than 64: the Huffman decoder has read a few bytes ahead).
CodecBytes jpegWithExtraneousBytes()
{
    CodecBytes jpeg = encoded(".jpg");
    const CodecBytes junk(64, 0x11);
    jpeg.insert(jpeg.end() - 2, junk.begin(), junk.end());
    return jpeg;
}

bool isExtraneousBytesWarning(const std::string &text)
{
    return text.starts_with("Corrupt JPEG data: ")
           && text.ends_with(" extraneous bytes before marker 0xd9");
}

// Offset of the first chunk of `type` in a PNG (its length field).
std::size_t findChunk(const CodecBytes &png, const char *type)
{
    std::size_t pos = 8;
    while (pos + 8 <= png.size()) {
        const std::uint32_t length = (std::uint32_t{png[pos]} << 24) | (png[pos + 1] << 16)
                                     | (png[pos + 2] << 8) | png[pos + 3];
        if (std::memcmp(&png[pos + 4], type, 4) == 0)
            return pos;
        pos += 12 + length;
    }
    return 0;
}

// The first IDAT chunk's CRC flipped (its data intact): a libpng error.
CodecBytes pngWithBadIdatCrc()
{
    CodecBytes png = encoded(".png");
    const std::size_t idat = findChunk(png, "IDAT");
    const std::size_t length = (std::size_t{png[idat]} << 24) | (png[idat + 1] << 16)
                               | (png[idat + 2] << 8) | png[idat + 3];
    png[idat + 8 + length] ^= 0xFF;
    return png;
}

// An ancillary tEXt chunk with a wrong CRC: libpng warns and decodes the image.
CodecBytes pngWithBadTextCrc()
{
    CodecBytes png = encoded(".png");
    const std::size_t idat = findChunk(png, "IDAT");
    const CodecBytes chunk = {0, 0, 0, 3, 't', 'E', 'X', 't', 'a', 0, 'b', 0xDE, 0xAD, 0xBE, 0xEF};
    png.insert(png.begin() + static_cast<std::ptrdiff_t>(idat), chunk.begin(), chunk.end());
    return png;
}

} // namespace

class TestCodecMessages : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void jpegWarningIsCollectedInScope()
    {
        const CodecBytes jpeg = jpegWithExtraneousBytes();
        CodecMessageScope scope;
        const cv::Mat image = cv::imdecode(cv::Mat(1, static_cast<int>(jpeg.size()), CV_8UC1,
                                                   const_cast<std::uint8_t *>(jpeg.data())),
                                           cv::IMREAD_COLOR);
        QVERIFY(!image.empty());
        QCOMPARE(scope.warnings().size(), std::size_t{1});
        QVERIFY2(isExtraneousBytesWarning(scope.warnings().front()),
                 scope.warnings().front().c_str());
    }

    void jpegWarningIsLoggedWithTheFileName()
    {
        const CodecBytes jpeg = jpegWithExtraneousBytes();
        LogCapture log;
        const cv::Mat image = decodeImageBytes(jpeg, kPath, DecodeLimits{});
        QCOMPARE(image.cols, 64);
        const std::string line = log.text();
        const std::string prefix = "warning " + kShownPath + ": ";
        QVERIFY2(line.starts_with(prefix) && line.ends_with("\n")
                     && isExtraneousBytesWarning(
                         line.substr(prefix.size(), line.size() - prefix.size() - 1)),
                 line.c_str());
    }

    void goodImagesLogNothing()
    {
        LogCapture log;
        (void)decodeImageBytes(encoded(".jpg"), kPath, DecodeLimits{});
        (void)decodeImageBytes(encoded(".png"), kPath, DecodeLimits{});
        QCOMPARE(log.text(), std::string());
    }

    void pngErrorIsTheSampleErrorReason()
    {
        LogCapture log;
        try {
            (void)decodeImageBytes(pngWithBadIdatCrc(), kPath, DecodeLimits{});
            QFAIL("a PNG with a broken IDAT CRC decoded");
        } catch (const SampleError &e) {
            QCOMPARE(e.source(), kPath);
            QCOMPARE(e.reason(), std::string("cannot decode (libpng error: IDAT: CRC error)"));
        }
    }

    void pngWarningIsLoggedWithTheFileName()
    {
        LogCapture log;
        const cv::Mat image = decodeImageBytes(pngWithBadTextCrc(), kPath, DecodeLimits{});
        QCOMPARE(image.rows, 48);
        QCOMPARE(log.text(), "warning " + kShownPath + ": libpng warning: tEXt: CRC error\n");
    }

    void scopesNestAndEnd()
    {
        const CodecBytes jpeg = jpegWithExtraneousBytes();
        const cv::Mat wrapped(1, static_cast<int>(jpeg.size()), CV_8UC1,
                              const_cast<std::uint8_t *>(jpeg.data()));
        CodecMessageScope outer;
        {
            CodecMessageScope inner;
            QCOMPARE(CodecMessageScope::current(), &inner);
            (void)cv::imdecode(wrapped, cv::IMREAD_COLOR);
            QCOMPARE(inner.warnings().size(), std::size_t{1});
        }
        QCOMPARE(CodecMessageScope::current(), &outer);
        QVERIFY(outer.warnings().empty());
    }
};

LOADERLAB_GUILESS_TEST_MAIN(TestCodecMessages)
#include "test_codec_messages.moc"
