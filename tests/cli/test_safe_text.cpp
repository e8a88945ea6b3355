// escapeInvalidUtf8, escapeForTerminal and toSafeJson: which bytes pass, which
// become `\xHH`, and that the JSON of any name can be written and read back.

#include "core/system/safe_json.h"
#include "core/system/safe_text.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <string>

using namespace loaderlab;
using namespace std::string_literals;

class TestSafeText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void validUtf8PassesUnchanged_data();
    void validUtf8PassesUnchanged();
    void invalidBytesAreEscaped_data();
    void invalidBytesAreEscaped();
    void terminalEscapesControls_data();
    void terminalEscapesControls();
    void jsonWithAnyNameDumpsAndParses();
    void unescapeInvertsEscape();
    void csvFieldsAreQuoted();
};

void TestSafeText::validUtf8PassesUnchanged_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("ascii") << QByteArray("images/cat_01.jpg");
    QTest::newRow("two bytes") << QByteArray("caf\xC3\xA9/\xC3\xBF.jpg");
    QTest::newRow("three bytes") << QByteArray("\xE6\x97\xA5\xE6\x9C\xAC/\xE2\x82\xAC");
    QTest::newRow("four bytes") << QByteArray("\xF0\x9F\x90\x88.png");
    QTest::newRow("edges") << QByteArray("\xED\x9F\xBF \xEE\x80\x80 \xF4\x8F\xBF\xBF");
    QTest::newRow("backslash") << QByteArray("C:\\data\\x41");
}

void TestSafeText::validUtf8PassesUnchanged()
{
    QFETCH(QByteArray, text);
    const std::string bytes = text.toStdString();
    QVERIFY(isValidUtf8(bytes));
    QCOMPARE(escapeInvalidUtf8(bytes), bytes);
    QCOMPARE(escapeForTerminal(bytes), bytes);
}

void TestSafeText::invalidBytesAreEscaped_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("escaped");
    QTest::newRow("latin-1 e acute") << QByteArray("caf\xE9.jpg") << QStringLiteral("caf\\xE9.jpg");
    QTest::newRow("0xFF") << QByteArray("a\xFF"
                                        "b")
                          << QStringLiteral("a\\xFFb");
    QTest::newRow("lone continuation") << QByteArray("\x80x\xBF") << QStringLiteral("\\x80x\\xBF");
    QTest::newRow("overlong slash") << QByteArray("\xC0\xAF") << QStringLiteral("\\xC0\\xAF");
    QTest::newRow("overlong 3 bytes")
        << QByteArray("\xE0\x80\xAF") << QStringLiteral("\\xE0\\x80\\xAF");
    QTest::newRow("overlong 4 bytes")
        << QByteArray("\xF0\x80\x80\xAF") << QStringLiteral("\\xF0\\x80\\x80\\xAF");
    QTest::newRow("surrogate") << QByteArray("\xED\xA0\x80") << QStringLiteral("\\xED\\xA0\\x80");
    QTest::newRow("above U+10FFFF")
        << QByteArray("\xF4\x90\x80\x80") << QStringLiteral("\\xF4\\x90\\x80\\x80");
    QTest::newRow("F5") << QByteArray("\xF5") << QStringLiteral("\\xF5");
    // A truncated sequence: its lead byte is escaped, what follows is kept.
    QTest::newRow("truncated at end") << QByteArray("x\xE2\x82") << QStringLiteral("x\\xE2\\x82");
    QTest::newRow("truncated before ascii") << QByteArray("\xE2\x82"
                                                          "A\xC3\xA9")
                                            << QStringLiteral("\\xE2\\x82A\u00E9");
}

void TestSafeText::invalidBytesAreEscaped()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, escaped);
    const std::string text = bytes.toStdString();
    QVERIFY(!isValidUtf8(text));
    const std::string result = escapeInvalidUtf8(text);
    QCOMPARE(QString::fromStdString(result), escaped);
    QVERIFY(isValidUtf8(result));
    QCOMPARE(QString::fromStdString(escapeForTerminal(text)), escaped);
}

void TestSafeText::terminalEscapesControls_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("escaped");
    QTest::newRow("colour") << QByteArray("\x1B[31mred.jpg") << QStringLiteral("\\x1B[31mred.jpg");
    QTest::newRow("newline") << QByteArray("a\nb") << QStringLiteral("a\\x0Ab");
    QTest::newRow("carriage return, tab") << QByteArray("a\r\tb") << QStringLiteral("a\\x0D\\x09b");
    QTest::newRow("nul") << QByteArray("a\0b", 3) << QStringLiteral("a\\x00b");
    QTest::newRow("DEL") << QByteArray("a\x7F") << QStringLiteral("a\\x7F");
    QTest::newRow("C1 CSI") << QByteArray("a\xC2\x9B"
                                          "31m")
                            << QStringLiteral("a\\xC2\\x9B31m");
    QTest::newRow("U+00A0 stays") << QByteArray("a\xC2\xA0"
                                                "b")
                                  << QStringLiteral("a\u00A0b");
}

void TestSafeText::terminalEscapesControls()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, escaped);
    const std::string text = bytes.toStdString();
    QCOMPARE(QString::fromStdString(escapeForTerminal(text)), escaped);
    // Controls are valid UTF-8: JSON keeps them (as \u escapes of its own).
    QCOMPARE(escapeInvalidUtf8(text), text);
}

void TestSafeText::jsonWithAnyNameDumpsAndParses()
{
    const std::string bad = "dir/caf\xE9\xFF.jpg";
    nlohmann::json raw = {{"dataset", "ok"},
                          {"skipped", {{{"source", bad}, {"reason", "cannot open"}}}},
                          {"by_name", {{bad, 1}}}};
    QVERIFY_THROWS_EXCEPTION(nlohmann::json::exception, (void)raw.dump()); // why this exists

    const nlohmann::json parsed = nlohmann::json::parse(toSafeJson(raw).dump(2));
    QCOMPARE(parsed.at("dataset").get<std::string>(), "ok"s);
    QCOMPARE(parsed.at("skipped").at(0).at("source").get<std::string>(), "dir/caf\\xE9\\xFF.jpg"s);
    QCOMPARE(parsed.at("skipped").at(0).at("reason").get<std::string>(), "cannot open"s);
    QVERIFY(parsed.at("by_name").contains("dir/caf\\xE9\\xFF.jpg"));
    QCOMPARE(parsed.at("by_name").size(), std::size_t{1});
}

void TestSafeText::unescapeInvertsEscape()
{
    for (const std::string &bytes : {"caf\xE9\xFF.jpg"s,
                                     "\xE2\x82"
                                     "A\xC3\xA9"s,
                                     "plain"s, ""s})
        QCOMPARE(unescapeInvalidUtf8(escapeInvalidUtf8(bytes)), bytes);
    // Only 80..FF are escapes of ours; other backslash text stays.
    QCOMPARE(unescapeInvalidUtf8("C:\\x41\\xZZ\\x8"), "C:\\x41\\xZZ\\x8"s);
    QCOMPARE(unescapeInvalidUtf8("\\xe9"), "\xE9"s);
}

void TestSafeText::csvFieldsAreQuoted()
{
    QCOMPARE(csvField("models/resnet.pt"), "models/resnet.pt"s);
    QCOMPARE(csvField("a,b.pt"), "\"a,b.pt\""s);
    QCOMPARE(csvField("say \"hi\".pt"), "\"say \"\"hi\"\".pt\""s);
    QCOMPARE(csvField("two\nlines"), "\"two\nlines\""s);
    QCOMPARE(csvField("caf\xE9,x"), "\"caf\\xE9,x\""s);
}

LOADERLAB_GUILESS_TEST_MAIN(TestSafeText)
#include "test_safe_text.moc"
