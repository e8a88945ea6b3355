// The window's command-line options (app/window/window_options.h) without a window:
// the defaults, every option read into its field, each bad value refused with a
// message naming the option (the message `loaderlab` prints after "loaderlab: ",
// exit 2), a stray word refused with every command of the CLI's table, and an
// unknown option or a missing value refused with Qt's parser text.

#include "app/cli/cli.h"
#include "app/window/window_options.h"

#include "core/trace/trace_log.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <stdexcept>

using loaderlab::parseWindowOptions;
using loaderlab::WindowOptions;

namespace {

QStringList args(std::initializer_list<const char *> words)
{
    QStringList list{QStringLiteral("loaderlab")};
    for (const char *word : words)
        list << QString::fromUtf8(word);
    return list;
}

// The message parseWindowOptions refuses `arguments` with; empty when it accepts them.
QString refusal(const QStringList &arguments)
{
    try {
        parseWindowOptions(arguments);
    } catch (const std::invalid_argument &e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class TestWindowOptions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaults();
    void everyOptionIsRead();
    void secondsIsAtLeastOne_data();
    void secondsIsAtLeastOne();
    void keepBatchesBounds();
    void badValuesAreRefusedNamingTheOption_data();
    void badValuesAreRefusedNamingTheOption();
    void strayWordNamesEveryCommand();
};

void TestWindowOptions::defaults()
{
    const WindowOptions o = parseWindowOptions(args({}));
    QVERIFY(!o.configFile);
    QVERIFY(!o.language);
    QVERIFY(!o.screenshot);
    QVERIFY(!o.json);
    QVERIFY(!o.sweepDir);
    QCOMPARE(o.seconds, 3);
    QCOMPARE(o.width, 1400);
    QCOMPARE(o.height, 900);
    QVERIFY(!o.experiments);
    QCOMPARE(o.keepBatches, loaderlab::kDefaultKeepBatches);
    QVERIFY(!o.automatic());
}

void TestWindowOptions::everyOptionIsRead()
{
    const WindowOptions o = parseWindowOptions(
        args({"--config", "c.json", "--lang", "de", "--screenshot", "shot.png", "--seconds", "7",
              "--json", "summary.json", "--size", "640x480", "--view", "experiments", "--sweep",
              "results", "--keep-batches", "0"}));
    QCOMPARE(o.configFile.value_or(QString()), QStringLiteral("c.json"));
    QCOMPARE(o.language.value_or(QString()), QStringLiteral("de"));
    QCOMPARE(o.screenshot.value_or(QString()), QStringLiteral("shot.png"));
    QCOMPARE(o.json.value_or(QString()), QStringLiteral("summary.json"));
    QCOMPARE(o.sweepDir.value_or(QString()), QStringLiteral("results"));
    QCOMPARE(o.seconds, 7);
    QCOMPARE(o.width, 640);
    QCOMPARE(o.height, 480);
    QVERIFY(o.experiments);
    QCOMPARE(o.keepBatches, std::size_t{0});
    QVERIFY(o.automatic());

    // Given but empty is given: --screenshot "" asks for a screenshot (whose write
    // then fails), never for the window left open.
    const WindowOptions empty = parseWindowOptions(args({"--screenshot=", "--lang=en"}));
    QCOMPARE(empty.screenshot.value_or(QStringLiteral("unset")), QString());
    QCOMPARE(empty.language.value_or(QString()), QStringLiteral("en"));
    QVERIFY(empty.automatic());
    QVERIFY(parseWindowOptions(args({"--json", "s.json"})).automatic());
    QVERIFY(!parseWindowOptions(args({"--view", "live"})).experiments);
}

void TestWindowOptions::secondsIsAtLeastOne_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<int>("seconds");
    QTest::newRow("1") << QStringLiteral("1") << 1;
    QTest::newRow("120") << QStringLiteral("120") << 120;
    QTest::newRow("0") << QStringLiteral("0") << 1;
    QTest::newRow("negative") << QStringLiteral("-5") << 1;
    // Read leniently, as it always was: not a number runs for the shortest time.
    QTest::newRow("not a number") << QStringLiteral("abc") << 1;
}

void TestWindowOptions::secondsIsAtLeastOne()
{
    QFETCH(QString, value);
    QFETCH(int, seconds);
    QCOMPARE(parseWindowOptions({QStringLiteral("loaderlab"), QStringLiteral("--seconds"), value})
                 .seconds,
             seconds);
}

void TestWindowOptions::keepBatchesBounds()
{
    const auto keep = [](std::size_t n) {
        return parseWindowOptions({QStringLiteral("loaderlab"), QStringLiteral("--keep-batches"),
                                   QString::number(n)})
            .keepBatches;
    };
    QCOMPARE(keep(loaderlab::kMinKeepBatches), loaderlab::kMinKeepBatches);
    QCOMPARE(keep(50'000'000), std::size_t{50'000'000});
    QVERIFY(!refusal({QStringLiteral("loaderlab"), QStringLiteral("--keep-batches"),
                      QString::number(loaderlab::kMinKeepBatches - 1)})
                 .isEmpty());
}

void TestWindowOptions::badValuesAreRefusedNamingTheOption_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    const QString size = QStringLiteral("--size %1: expected WIDTHxHEIGHT, 200 to 10000 each");
    QTest::newRow("lang") << args({"--lang", "xx"})
                          << QStringLiteral("--lang xx: unknown language (available: en, de)");
    QTest::newRow("lang empty") << args({"--lang="})
                                << QStringLiteral("--lang : unknown language (available: en, de)");
    QTest::newRow("view") << args({"--view", "plots"})
                          << QStringLiteral("--view plots: expected live, experiments or limits");
    QTest::newRow("size small") << args({"--size", "10x10"}) << size.arg(QStringLiteral("10x10"));
    QTest::newRow("size width") << args({"--size", "199x800"})
                                << size.arg(QStringLiteral("199x800"));
    QTest::newRow("size large") << args({"--size", "800x10001"})
                                << size.arg(QStringLiteral("800x10001"));
    QTest::newRow("size no x") << args({"--size", "1280"}) << size.arg(QStringLiteral("1280"));
    QTest::newRow("size three") << args({"--size", "300x300x3"})
                                << size.arg(QStringLiteral("300x300x3"));
    QTest::newRow("size text") << args({"--size", "abc"}) << size.arg(QStringLiteral("abc"));
    QTest::newRow("keep below minimum")
        << args({"--keep-batches", "5"})
        << QStringLiteral("--keep-batches: expected 0 or an integer >= 100000, got '5'");
    QTest::newRow("keep negative")
        << args({"--keep-batches", "-1"})
        << QStringLiteral("--keep-batches: expected an integer >= 0, got '-1'");
    QTest::newRow("keep text") << args({"--keep-batches", "x"})
                               << QStringLiteral(
                                      "--keep-batches: expected an integer >= 0, got 'x'");
    // A control character is escaped before it reaches the terminal.
    QTest::newRow("keep escaped")
        << args({"--keep-batches", "1\x1b[31m"})
        << QStringLiteral("--keep-batches: expected an integer >= 0, got '1\\x1B[31m'");
    QTest::newRow("sweep without experiments")
        << args({"--sweep", "results"}) << QStringLiteral("--sweep DIR needs --view experiments");
    QTest::newRow("sweep with live") << args({"--view", "live", "--sweep", "results"})
                                     << QStringLiteral("--sweep DIR needs --view experiments");
    // The first bad option is named, in the order the window has always checked them.
    QTest::newRow("first of two") << args({"--view", "plots", "--lang", "xx"})
                                  << QStringLiteral(
                                         "--lang xx: unknown language (available: en, de)");
    // What Qt's parser refuses (runGui lets QCommandLineParser::process print these).
    QTest::newRow("unknown option")
        << args({"--bogus"}) << QStringLiteral("Unknown option 'bogus'.");
    QTest::newRow("missing value")
        << args({"--size"}) << QStringLiteral("Missing value after '--size'.");
}

void TestWindowOptions::badValuesAreRefusedNamingTheOption()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    QCOMPARE(refusal(arguments), message);
}

void TestWindowOptions::strayWordNamesEveryCommand()
{
    // `loaderlab rnu` (a misspelt command) or `loaderlab workers=4` never opens the
    // window as if nothing had been asked; the message lists the CLI's commands.
    const QString message = refusal(args({"--size", "800x600", "rnu", "workers=4"}));
    QVERIFY2(message.startsWith(QStringLiteral("'rnu' is not a command (run, sweep, ")),
             qPrintable(message));
    QVERIFY2(message.endsWith(QStringLiteral(") nor a window option; see loaderlab --help")),
             qPrintable(message));
    QStringList names;
    for (const loaderlab::cli::Command &command : loaderlab::cli::kCommands)
        names << QString::fromUtf8(command.name);
    QCOMPARE(names.size(), 12);
    QVERIFY2(
        message.contains(QLatin1Char('(') + names.join(QStringLiteral(", ")) + QLatin1Char(')')),
        qPrintable(message));
}

LOADERLAB_GUILESS_TEST_MAIN(TestWindowOptions)
#include "test_window_options.moc"
