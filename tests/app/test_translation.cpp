// The German translation is embedded, complete for the window's menus, and selectable.

#include "app/language.h"
#include "app/main_window.h"

#include <QtTest>

#include <QMenuBar>

class TestTranslation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void germanTranslatesTheMenus();
    void englishNeedsNoTranslator();
};

void TestTranslation::germanTranslatesTheMenus()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(QFile::exists(QStringLiteral(":/i18n/loaderlab_de.qm")));
    Language::install(*QCoreApplication::instance(), QStringLiteral("de"));
    MainWindow window;
    QStringList titles;
    for (QAction *action : window.menuBar()->actions())
        titles << action->text();
    QCOMPARE(titles.size(), 5);
    // Every top-level menu is translated (no English title left).
    for (const QString &english : {QStringLiteral("&File"), QStringLiteral("&Run"), QStringLiteral("&View"),
                                   QStringLiteral("&Language"), QStringLiteral("&Help")})
        QVERIFY2(!titles.contains(english), qPrintable(titles.join(QLatin1Char(' '))));
    QCOMPARE(QCoreApplication::translate("MainWindow", "&File").remove(QLatin1Char('&')), QStringLiteral("Datei"));
    QCOMPARE(QCoreApplication::translate("MainWindow", "&Help").remove(QLatin1Char('&')), QStringLiteral("Hilfe"));
}

void TestTranslation::englishNeedsNoTranslator()
{
    const auto languages = Language::available();
    QCOMPARE(languages.front().first, QStringLiteral("en"));
    QVERIFY(std::any_of(languages.begin(), languages.end(),
                        [](const auto &language) { return language.first == QLatin1String("de"); }));
}

QTEST_MAIN(TestTranslation)
#include "test_translation.moc"
