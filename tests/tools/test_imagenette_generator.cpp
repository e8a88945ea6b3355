// Tests for the dataset generators: the Imagenette-like folder (layout, image
// geometry, determinism, refusal to overwrite) and the random tensor file.

#include "core/dataset/tensor_file_format.h"
#include "core/tools/imagenette_generator.h"
#include "tests/support/test_main.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/imgcodecs.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>

using namespace loaderlab;

namespace {

ImageFolderSpec smallSpec(std::uint64_t seed)
{
    ImageFolderSpec spec;
    spec.classes = 3;
    spec.imagesPerClass = 4;
    spec.minShortSide = 64;
    spec.maxShortSide = 96;
    spec.seed = seed;
    return spec;
}

std::string path(const QTemporaryDir &dir, const char *name)
{
    return dir.filePath(QString::fromLatin1(name)).toStdString();
}

// Relative path -> SHA-256 of the contents, for every file under `root`.
std::map<QString, QByteArray> hashTree(const QString &root)
{
    std::map<QString, QByteArray> hashes;
    const QDir base(root);
    const auto classes = base.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString &cls : classes) {
        const QDir classDir(base.filePath(cls));
        for (const QString &file : classDir.entryList(QDir::Files, QDir::Name)) {
            QFile f(classDir.filePath(file));
            if (!f.open(QIODevice::ReadOnly))
                return {};
            hashes[cls + QLatin1Char('/') + file] = QCryptographicHash::hash(
                f.readAll(), QCryptographicHash::Sha256);
        }
    }
    return hashes;
}

std::string errorOf(const std::function<void()> &call)
{
    try {
        call();
    } catch (const std::exception &error) {
        return error.what();
    }
    return {};
}

} // namespace

class TestImagenetteGenerator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void writesLayoutAndGeometry();
    void reportsProgress();
    void namesClassesBeyondTen();
    void sameSeedSameBytes();
    void differentSeedDifferentBytes();
    void refusesNonEmptyTarget();
    void acceptsEmptyTarget();
    void rejectsBadSpec();
    void writesFloatTensorFile();
    void writesUInt8TensorFile();
};

void TestImagenetteGenerator::writesLayoutAndGeometry()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const std::string out = path(tmp, "folder");
    generateImageFolder(out, smallSpec(1));

    const QDir root(QString::fromStdString(out));
    const QStringList classes = root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    QCOMPARE(classes, (QStringList{QStringLiteral("n01440764"), QStringLiteral("n02102040"),
                                   QStringLiteral("n02979186")}));
    QVERIFY(!QFileInfo::exists(QString::fromStdString(out + ".part")));

    int files = 0;
    for (const QString &cls : classes) {
        const QDir classDir(root.filePath(cls));
        const QStringList names = classDir.entryList(QDir::Files, QDir::Name);
        QCOMPARE(names.size(), 4);
        QCOMPARE(names.first(), cls + QStringLiteral("_0001.JPEG"));
        QCOMPARE(names.last(), cls + QStringLiteral("_0004.JPEG"));
        for (const QString &name : names) {
            const std::string file = classDir.filePath(name).toStdString();
            const cv::Mat image = cv::imread(file, cv::IMREAD_COLOR);
            QVERIFY2(!image.empty(), file.c_str());
            const int shortSide = std::min(image.rows, image.cols);
            const int longSide = std::max(image.rows, image.cols);
            QVERIFY2(shortSide >= 64 && shortSide <= 96, file.c_str());
            QVERIFY2(longSide * 3 <= shortSide * 4, file.c_str()); // aspect within 4:3
            ++files;
        }
    }
    QCOMPARE(files, 12);
}

void TestImagenetteGenerator::reportsProgress()
{
    QTemporaryDir tmp;
    std::int64_t calls = 0;
    std::int64_t lastDone = 0;
    std::int64_t lastTotal = 0;
    bool increasing = true;
    const ProgressCallback progress = [&](std::int64_t done, std::int64_t total) {
        increasing = increasing && done == lastDone + 1;
        lastDone = done;
        lastTotal = total;
        ++calls;
    };
    generateImageFolder(path(tmp, "folder"), smallSpec(2), progress);
    QCOMPARE(calls, std::int64_t{12});
    QVERIFY(increasing);
    QCOMPARE(lastDone, std::int64_t{12});
    QCOMPARE(lastTotal, std::int64_t{12});
}

void TestImagenetteGenerator::namesClassesBeyondTen()
{
    QTemporaryDir tmp;
    ImageFolderSpec spec = smallSpec(3);
    spec.classes = 12;
    spec.imagesPerClass = 1;
    spec.minShortSide = 16;
    spec.maxShortSide = 16;
    const std::string out = path(tmp, "folder");
    generateImageFolder(out, spec);
    const QStringList classes =
        QDir(QString::fromStdString(out)).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    QCOMPARE(classes.size(), 12);
    QCOMPARE(classes.at(9), QStringLiteral("n03888605"));
    QCOMPARE(classes.at(10), QStringLiteral("n90000010"));
    QCOMPARE(classes.at(11), QStringLiteral("n90000011"));
}

void TestImagenetteGenerator::sameSeedSameBytes()
{
    QTemporaryDir tmp;
    generateImageFolder(path(tmp, "a"), smallSpec(42));
    generateImageFolder(path(tmp, "b"), smallSpec(42));
    const auto a = hashTree(tmp.filePath(QStringLiteral("a")));
    const auto b = hashTree(tmp.filePath(QStringLiteral("b")));
    QCOMPARE(a.size(), std::size_t{12});
    QVERIFY(a == b);
}

void TestImagenetteGenerator::differentSeedDifferentBytes()
{
    QTemporaryDir tmp;
    generateImageFolder(path(tmp, "a"), smallSpec(42));
    generateImageFolder(path(tmp, "b"), smallSpec(43));
    const auto a = hashTree(tmp.filePath(QStringLiteral("a")));
    const auto b = hashTree(tmp.filePath(QStringLiteral("b")));
    QCOMPARE(a.size(), std::size_t{12});
    QCOMPARE(b.size(), std::size_t{12});
    for (const auto &[name, hash] : a) {
        QVERIFY(b.count(name) == 1);
        QVERIFY2(b.at(name) != hash, qPrintable(name));
    }
}

void TestImagenetteGenerator::refusesNonEmptyTarget()
{
    QTemporaryDir tmp;
    const QString target = tmp.filePath(QStringLiteral("taken"));
    QVERIFY(QDir().mkpath(target));
    QFile marker(target + QStringLiteral("/keep.txt"));
    QVERIFY(marker.open(QIODevice::WriteOnly));
    marker.write("precious");
    marker.close();

    const std::string message = errorOf(
        [&] { generateImageFolder(target.toStdString(), smallSpec(1)); });
    QVERIFY2(message.find(target.toStdString()) != std::string::npos, message.c_str());
    QVERIFY2(message.find("already exists and is not empty") != std::string::npos, message.c_str());

    // Nothing written: the folder holds only the marker, unchanged, and no .part.
    QCOMPARE(QDir(target).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("keep.txt")});
    QVERIFY(marker.open(QIODevice::ReadOnly));
    QCOMPARE(marker.readAll(), QByteArray("precious"));
    QVERIFY(!QFileInfo::exists(target + QStringLiteral(".part")));
}

void TestImagenetteGenerator::acceptsEmptyTarget()
{
    QTemporaryDir tmp;
    const QString target = tmp.filePath(QStringLiteral("empty"));
    QVERIFY(QDir().mkpath(target));
    generateImageFolder(target.toStdString() + "/", smallSpec(5));
    QCOMPARE(hashTree(target).size(), std::size_t{12});
    QVERIFY(!QFileInfo::exists(target + QStringLiteral(".part")));
}

void TestImagenetteGenerator::rejectsBadSpec()
{
    QTemporaryDir tmp;
    const std::string out = path(tmp, "bad");
    ImageFolderSpec spec = smallSpec(1);
    spec.minShortSide = 100;
    spec.maxShortSide = 50;
    const std::string message = errorOf([&] { generateImageFolder(out, spec); });
    QVERIFY2(message.find(out) != std::string::npos, message.c_str());
    QVERIFY(!QFileInfo::exists(QString::fromStdString(out)));
}

void TestImagenetteGenerator::writesFloatTensorFile()
{
    QTemporaryDir tmp;
    const std::string out = path(tmp, "samples.lltensor");
    const SampleShape shape{3, 16, 12};
    std::int64_t lastDone = 0;
    generateTensorFile(out, 40, shape, DType::Float32, 7,
                       [&](std::int64_t done, std::int64_t) { lastDone = done; });
    QCOMPARE(lastDone, std::int64_t{40});

    const TensorFileHeader header = readTensorFileHeader(out);
    QCOMPARE(header.count, std::uint64_t{40});
    QVERIFY(header.shape == shape);
    QVERIFY(header.dtype == DType::Float32);

    // Labels in 0..9, values roughly standard normal.
    QFile file(QString::fromStdString(out));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    const std::size_t record = 8 + 3 * 16 * 12 * sizeof(float);
    QCOMPARE(static_cast<std::size_t>(bytes.size()), kTensorFileHeaderBytes + 40 * record);
    double sum = 0;
    double sumSq = 0;
    for (std::size_t r = 0; r < 40; ++r) {
        const char *rec = bytes.constData() + kTensorFileHeaderBytes + r * record;
        std::int64_t label = 0;
        std::memcpy(&label, rec, sizeof label);
        QVERIFY(label >= 0 && label <= 9);
        for (std::size_t i = 0; i < 3 * 16 * 12; ++i) {
            float value = 0;
            std::memcpy(&value, rec + 8 + i * sizeof(float), sizeof value);
            sum += value;
            sumSq += double{value} * value;
        }
    }
    const double n = 40.0 * 3 * 16 * 12;
    const double mean = sum / n;
    const double sd = std::sqrt(sumSq / n - mean * mean);
    QVERIFY2(std::abs(mean) < 0.05, qPrintable(QString::number(mean)));
    QVERIFY2(sd > 0.9 && sd < 1.1, qPrintable(QString::number(sd)));
}

void TestImagenetteGenerator::writesUInt8TensorFile()
{
    QTemporaryDir tmp;
    const std::string out = path(tmp, "bytes.lltensor");
    generateTensorFile(out, 5, SampleShape{1, 28, 28}, DType::UInt8, 1);
    const TensorFileHeader header = readTensorFileHeader(out);
    QCOMPARE(header.count, std::uint64_t{5});
    QVERIFY(header.shape == (SampleShape{1, 28, 28}));
    QVERIFY(header.dtype == DType::UInt8);
    QCOMPARE(QFileInfo(QString::fromStdString(out)).size(),
             static_cast<qint64>(kTensorFileHeaderBytes + 5 * (8 + 28 * 28)));
    QVERIFY(!QFileInfo::exists(QString::fromStdString(out + ".part")));
}

LOADERLAB_GUILESS_TEST_MAIN(TestImagenetteGenerator)
#include "test_imagenette_generator.moc"
