// File names that are not UTF-8 or that hold control characters, end to end with
// the real binary: the run's JSON and CSV are still written, the JSON names the
// file with `\xHH` escapes, and what reaches stderr names files without raw
// control bytes (a decode warning included).

#include "cli_process.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <fstream>
#include <unistd.h>

namespace {

using clitest::Result;
using clitest::runLoaderlab;

// Writes `content` to a path given as raw bytes; QFile would re-encode the name.
bool writeRawName(const QByteArray &path, const QByteArray &content)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    const bool ok = ::write(fd, content.constData(), static_cast<size_t>(content.size()))
                    == content.size();
    return ::close(fd) == 0 && ok;
}

QByteArrayList linesContaining(const QByteArray &text, const QByteArray &needle)
{
    QByteArrayList found;
    for (const QByteArray &line : text.split('\n')) {
        if (line.contains(needle))
            found.append(line);
    }
    return found;
}

const QByteArray kCorruptJpegWarning = "Corrupt JPEG data: ";

} // namespace

class TestCliNames : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void runWritesJsonAndCsvWithEscapedNames();
    void preprocessNamesFilesSafely();
    void cleanupTestCase();

private:
    // QTemporaryDir cannot remove what QString cannot name: unlinked by hand.
    QByteArrayList m_rawFiles;
    QTemporaryDir m_dir;
    QString m_folder;
};

void TestCliNames::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_folder = m_dir.filePath(QStringLiteral("images"));
    const Result made = clitest::makeImageFolder(m_folder);
    QVERIFY2(made.exitCode == 0, made.errBytes.constData());

    const QDir folder(m_folder);
    const QString classDir = folder.entryList(QDir::Dirs | QDir::NoDotAndDotDot).first();
    const QByteArray classPath = QFile::encodeName(folder.filePath(classDir));
    const QString goodName = QDir(folder.filePath(classDir)).entryList(QDir::Files).first();
    QFile good(folder.filePath(classDir) + QLatin1Char('/') + goodName);
    QVERIFY(good.open(QIODevice::ReadOnly));
    QByteArray damaged = good.readAll();
    // Junk before the scan: "Corrupt JPEG data: N extraneous bytes before marker
    // 0xda", raised while the header is read, so also by a decode of only the
    // crop's rows (junk before EOI would lie past the last row it reads).
    const qsizetype scan = damaged.indexOf(QByteArray("\xFF\xDA", 2));
    QVERIFY(scan > 0);
    damaged.insert(scan, QByteArray(64, '\x11'));

    // Not UTF-8 (0xE9, 0xFF) and not decodable: a skipped sample named in the JSON.
    m_rawFiles = {classPath + "/bad_\xE9\xFF.jpg", classPath + "/warn_\x1B[31m.jpg"};
    QVERIFY(writeRawName(m_rawFiles[0], "this is not a JPEG"));
    // A colour escape in the name of an image that decodes with a warning.
    QVERIFY(writeRawName(m_rawFiles[1], damaged));
}

void TestCliNames::runWritesJsonAndCsvWithEscapedNames()
{
    const QString json = m_dir.filePath(QStringLiteral("run.json"));
    const QString csv = m_dir.filePath(QStringLiteral("run.csv"));
    const Result r = runLoaderlab({QStringLiteral("run"), QStringLiteral("--dataset"),
                                   QStringLiteral("folder"), QStringLiteral("--path"), m_folder,
                                   QStringLiteral("--batch-size"), QStringLiteral("4"),
                                   QStringLiteral("--json"), json, QStringLiteral("--csv"), csv});
    QVERIFY2(r.exitCode == 0, r.errBytes.constData());

    std::ifstream in(json.toStdString());
    const auto summary = nlohmann::json::parse(in);
    QCOMPARE(summary["summary"]["samples"].get<int>(), 7); // 6 made + the warned one
    QCOMPARE(summary["summary"]["skipped_samples"].get<int>(), 1);
    const std::string source = summary["skipped"][0]["source"].get<std::string>();
    const std::string escapedName = "/bad_\\xE9\\xFF.jpg";
    QVERIFY2(
        source.size() > escapedName.size()
            && source.compare(source.size() - escapedName.size(), escapedName.size(), escapedName)
                   == 0,
        source.c_str());

    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().count('\n'), 3); // header + 8 indices in batches of 4

    // The warning names the file, escaped; no bare libjpeg line, no raw escape byte.
    const QByteArrayList warnings = linesContaining(r.errBytes, kCorruptJpegWarning);
    QCOMPARE(warnings.size(), 1);
    QVERIFY2(warnings.first().contains("/warn_\\x1B[31m.jpg: " + kCorruptJpegWarning),
             warnings.first().constData());
    QVERIFY2(!r.errBytes.contains('\x1B'), r.errBytes.constData());
}

void TestCliNames::preprocessNamesFilesSafely()
{
    const QString tensor = m_dir.filePath(QStringLiteral("images.tensor"));
    const Result r = runLoaderlab({QStringLiteral("preprocess"), m_folder, tensor});
    QVERIFY2(r.exitCode == 0, r.errBytes.constData());
    QVERIFY2(r.errBytes.contains("/bad_\\xE9\\xFF.jpg: not a JPEG or PNG image"),
             r.errBytes.constData());
    const QByteArrayList warnings = linesContaining(r.errBytes, kCorruptJpegWarning);
    QCOMPARE(warnings.size(), 1);
    QVERIFY2(warnings.first().contains("/warn_\\x1B[31m.jpg: "), warnings.first().constData());
    QVERIFY2(!r.errBytes.contains('\x1B') && !r.outBytes.contains('\x1B'), r.errBytes.constData());
    QVERIFY(!r.outBytes.contains(kCorruptJpegWarning));
}

void TestCliNames::cleanupTestCase()
{
    for (const QByteArray &path : m_rawFiles)
        ::unlink(path.constData());
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliNames)
#include "test_cli_names.moc"
