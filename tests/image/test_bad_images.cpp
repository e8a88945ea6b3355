// Bad-file corpus for the image pipeline: every broken file must give a
// SampleError naming the file and the reason, never a crash; good files load.

#include "core/image/image_decoder.h"
#include "core/image/image_folder_dataset.h"
#include "tests/support/test_main.h"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <QtTest/QtTest>

#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

using namespace loaderlab;
namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<std::uint8_t>;

void writeBytes(const fs::path &path, const Bytes &bytes)
{
    std::ofstream file(path, std::ios::binary);
    file.write(reinterpret_cast<const char *>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
}

Bytes validJpeg()
{
    cv::Mat img(48, 64, CV_8UC3);
    cv::RNG(3).fill(img, cv::RNG::UNIFORM, 0, 256);
    std::vector<uchar> bytes;
    cv::imencode(".jpg", img, bytes);
    return bytes;
}

std::uint32_t crc32(const std::uint8_t *data, std::size_t size)
{
    std::uint32_t crc = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < size; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

void appendBe32(Bytes &out, std::uint32_t v)
{
    for (int shift = 24; shift >= 0; shift -= 8)
        out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// PNG signature and an IHDR chunk (with a correct CRC), then `tail`.
Bytes pngWithHeader(std::uint32_t width, std::uint32_t height, const Bytes &tail)
{
    Bytes out = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    appendBe32(out, 13);
    Bytes chunk = {'I', 'H', 'D', 'R'};
    appendBe32(chunk, width);
    appendBe32(chunk, height);
    chunk.insert(chunk.end(), {8, 2, 0, 0, 0}); // 8-bit RGB
    out.insert(out.end(), chunk.begin(), chunk.end());
    appendBe32(out, crc32(chunk.data(), chunk.size()));
    out.insert(out.end(), tail.begin(), tail.end());
    return out;
}

Bytes randomBytes(std::size_t size, unsigned seed)
{
    std::mt19937 rng(seed);
    Bytes out(size);
    for (std::uint8_t &b : out)
        b = static_cast<std::uint8_t>(rng());
    return out;
}

} // namespace

class TestBadImages : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_root = fs::path(m_dir.path().toStdString());
        const fs::path cls = m_root / "cls";
        fs::create_directories(cls);
        const Bytes jpeg = validJpeg();

        // File names sort in this order, so entry i is m_expected[i].
        writeBytes(cls / "a_valid.jpg", jpeg);
        Bytes padded = jpeg;
        padded.insert(padded.end(), 16, 0x00);
        writeBytes(cls / "b_valid_zero_padded.jpg", padded);
        writeBytes(cls / "c_truncated.jpg", Bytes(jpeg.begin(), jpeg.begin() + jpeg.size() / 2));
        writeBytes(cls / "d_empty.jpg", {});
        const std::string text = "this is a text file, not a picture\n";
        writeBytes(cls / "e_text.jpg", Bytes(text.begin(), text.end()));
        writeBytes(cls / "f_bomb.png", pngWithHeader(100000, 100000, randomBytes(64, 1)));
        writeBytes(cls / "g_random.png", randomBytes(4096, 2));
        writeBytes(cls / "h_garbage_after_ihdr.png", pngWithHeader(32, 32, randomBytes(500, 3)));
        writeBytes(cls / "i_jpeg_bomb.jpg", withSofSize(jpeg, 60000, 60000));
        writeBytes(cls / "j_header_only.jpg", Bytes(jpeg.begin(), jpeg.begin() + 4));
        const Bytes png = pngWithHeader(8, 8, {});
        writeBytes(cls / "k_png_truncated_ihdr.png", Bytes(png.begin(), png.begin() + 14));
    }

    void goodFilesLoad()
    {
        const ImageFolderDataset dataset(config());
        std::vector<float> out(3 * 16 * 16);
        for (int i : {0, 1}) {
            SampleContext context;
            QCOMPARE(dataset.load(i, std::as_writable_bytes(std::span(out)), context),
                     std::int64_t{0});
        }
    }

    void badFilesGiveSampleErrors_data()
    {
        QTest::addColumn<int>("index");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("reason");
        QTest::newRow("truncated")
            << 2 << QStringLiteral("c_truncated.jpg") << QStringLiteral("truncated JPEG data");
        QTest::newRow("empty") << 3 << QStringLiteral("d_empty.jpg")
                               << QStringLiteral("empty file");
        QTest::newRow("text") << 4 << QStringLiteral("e_text.jpg")
                              << QStringLiteral("not a JPEG or PNG image");
        QTest::newRow("png bomb") << 5 << QStringLiteral("f_bomb.png")
                                  << QStringLiteral("declares 100000x100000 pixels, over the limit "
                                                    "of 178956970: possible decompression bomb");
        QTest::newRow("random") << 6 << QStringLiteral("g_random.png")
                                << QStringLiteral("not a JPEG or PNG image");
        QTest::newRow("garbage") << 7 << QStringLiteral("h_garbage_after_ihdr.png")
                                 << QStringLiteral("cannot decode");
        QTest::newRow("jpeg bomb") << 8 << QStringLiteral("i_jpeg_bomb.jpg")
                                   << QStringLiteral("declares 60000x60000 pixels");
        QTest::newRow("header only")
            << 9 << QStringLiteral("j_header_only.jpg") << QStringLiteral("truncated JPEG header");
        QTest::newRow("short png")
            << 10 << QStringLiteral("k_png_truncated_ihdr.png") << QStringLiteral("no IHDR chunk");
    }

    void badFilesGiveSampleErrors()
    {
        QFETCH(int, index);
        QFETCH(QString, file);
        QFETCH(QString, reason);
        const ImageFolderDataset dataset(config());
        const std::string path = (m_root / "cls" / file.toStdString()).string();
        QCOMPARE(dataset.entries()[static_cast<std::size_t>(index)].path, path);
        std::vector<float> out(3 * 16 * 16);
        SampleContext context;
        try {
            dataset.load(index, std::as_writable_bytes(std::span(out)), context);
            QFAIL("expected SampleError");
        } catch (const SampleError &e) {
            QCOMPARE(e.source(), path);
            const QString message = QString::fromStdString(e.what());
            QVERIFY2(message.contains(QString::fromStdString(path)), e.what());
            QVERIFY2(message.contains(reason), e.what());
        }
    }

    void oversizedFileIsRefusedBeforeReading()
    {
        DatasetConfig limited = config();
        limited.maxFileBytes = 100;
        const ImageFolderDataset dataset(limited);
        std::vector<float> out(3 * 16 * 16);
        SampleContext context;
        try {
            dataset.load(0, std::as_writable_bytes(std::span(out)), context);
            QFAIL("expected SampleError");
        } catch (const SampleError &e) {
            const QString reason = QString::fromStdString(e.reason());
            QVERIFY2(reason.contains(QStringLiteral("over the limit of 100")), e.what());
        }
    }

    void headerParserReadsDeclaredSize()
    {
        const Bytes jpeg = validJpeg();
        const ImageHeaderInfo info = parseImageHeader(jpeg, "mem.jpg");
        QCOMPARE(info.width, 64);
        QCOMPARE(info.height, 48);
        const ImageHeaderInfo png = parseImageHeader(pngWithHeader(321, 123, {}), "mem.png");
        QVERIFY(png.format == ImageFormat::Png);
        QCOMPARE(png.width, 321);
        QCOMPARE(png.height, 123);
    }

private:
    // The JPEG with its SOF frame header rewritten to declare width x height.
    static Bytes withSofSize(Bytes jpeg, int width, int height)
    {
        for (std::size_t i = 2; i + 9 < jpeg.size(); ++i) {
            if (jpeg[i] == 0xFF && (jpeg[i + 1] == 0xC0 || jpeg[i + 1] == 0xC2)) {
                jpeg[i + 5] = static_cast<std::uint8_t>(height >> 8);
                jpeg[i + 6] = static_cast<std::uint8_t>(height & 0xFF);
                jpeg[i + 7] = static_cast<std::uint8_t>(width >> 8);
                jpeg[i + 8] = static_cast<std::uint8_t>(width & 0xFF);
                break;
            }
        }
        return jpeg;
    }

    DatasetConfig config() const
    {
        DatasetConfig c;
        c.kind = DatasetKind::ImageFolder;
        c.path = m_root.string();
        c.resizeSize = 20;
        c.cropSize = 16;
        return c;
    }

    QTemporaryDir m_dir;
    fs::path m_root;
};

LOADERLAB_GUILESS_TEST_MAIN(TestBadImages)
#include "test_bad_images.moc"
