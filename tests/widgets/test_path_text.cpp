// pathToText / pathFromText: a directory whose name is not UTF-8 survives the trip
// through a text field, whether the text shows `\xHH` escapes or is what a file
// dialog returned (U+FFFD for each bad byte).

#include "tests/support/test_main.h"
#include "widgets/common/path_text.h"

#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace loaderlab;

class TestPathText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    // QTemporaryDir cannot remove what QString cannot name.
    void cleanupTestCase()
    {
        for (const std::string &path : m_made)
            ::rmdir(path.c_str());
    }

    void escapedTextRoundTrips()
    {
        const std::string raw = makeDir("caf\xE9\xFF");
        const QString text = pathToText(raw);
        QCOMPARE(text, m_dir.path() + QStringLiteral("/caf\\xE9\\xFF"));
        QCOMPARE(pathFromText(text), raw);
    }

    void fileDialogTextIsResolvedOnDisk()
    {
        const std::string raw = makeDir("dialog\xE9");
        // What QFileDialog and QFile::decodeName give for it, and why this exists:
        const QString fromDialog = QFile::decodeName(QByteArray::fromStdString(raw));
        QVERIFY(fromDialog.contains(QChar::ReplacementCharacter));
        QVERIFY(QFile::encodeName(fromDialog).toStdString() != raw);
        QCOMPARE(pathFromText(fromDialog), raw);
        QCOMPARE(pathFromText(fromDialog + QStringLiteral("/")), raw + "/");
    }

    void ambiguousReplacementIsNotGuessed()
    {
        const std::string first = makeDir("twin\xE9");
        const std::string second = makeDir("twin\xFF");
        const QString text = QFile::decodeName(QByteArray::fromStdString(first));
        QCOMPARE(QFile::decodeName(QByteArray::fromStdString(second)), text);
        const std::string result = pathFromText(text);
        QVERIFY(result != first && result != second);
    }

    void utf8AndLiteralNamesAreKept()
    {
        const std::string utf8 = makeDir("caf\xC3\xA9");
        QCOMPARE(pathToText(utf8), m_dir.path() + QStringLiteral("/caf\u00E9"));
        QCOMPARE(pathFromText(pathToText(utf8)), utf8);
        // A name that really is the text "lit\xE9" is taken as typed.
        const std::string literal = makeDir("lit\\xE9");
        QCOMPARE(pathFromText(QString::fromStdString(literal)), literal);
    }

    void missingPathKeepsItsBytes()
    {
        const std::string missing = m_dir.path().toStdString() + "/missing\xE9";
        QCOMPARE(pathFromText(pathToText(missing)), missing);
        QCOMPARE(pathFromText(QString()), std::string());
    }

private:
    std::string makeDir(const char *name)
    {
        const std::string path = m_dir.path().toStdString() + "/" + name;
        if (::mkdir(path.c_str(), 0755) != 0)
            qFatal("cannot create %s", path.c_str());
        m_made.push_back(path);
        return path;
    }

    QTemporaryDir m_dir;
    std::vector<std::string> m_made;
};

LOADERLAB_GUILESS_TEST_MAIN(TestPathText)
#include "test_path_text.moc"
