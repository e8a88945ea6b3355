// The German translation is embedded, complete for the window's menus, and selectable.

#include "app/language.h"
#include "app/main_window.h"
#include "core/config/marker_text.h"
#include "widgets/marker_text.h"
#include "widgets/qcustomplot_include.h"
#include "widgets/wait_time_plot.h"

#include <QtTest>

#include <QMenuBar>
#include <QPushButton>
#include <QTabWidget>

class TestTranslation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void germanTranslatesTheMenus();
    void englishNeedsNoTranslator();
    void germanMarkersOnThePlots();
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
    for (const QString &english :
         {QStringLiteral("&File"), QStringLiteral("&Run"), QStringLiteral("&View"),
          QStringLiteral("&Language"), QStringLiteral("&Help")})
        QVERIFY2(!titles.contains(english), qPrintable(titles.join(QLatin1Char(' '))));
    QCOMPARE(QCoreApplication::translate("MainWindow", "&File").remove(QLatin1Char('&')),
             QStringLiteral("Datei"));
    QCOMPARE(QCoreApplication::translate("MainWindow", "&Help").remove(QLatin1Char('&')),
             QStringLiteral("Hilfe"));
    // The run list's menu entries and the engine choice.
    QCOMPARE(QCoreApplication::translate("MainWindow", "Open &run…").remove(QLatin1Char('&')),
             QStringLiteral("Lauf öffnen…"));
    QCOMPARE(QCoreApplication::translate("EngineChoice", "PyTorch DataLoader"),
             QStringLiteral("PyTorch-DataLoader"));
    // The two tabs: the live plots and the Experiments view.
    auto *tabs = window.findChild<QTabWidget *>(QStringLiteral("viewTabs"));
    QVERIFY(tabs);
    QCOMPARE(tabs->tabText(1), QStringLiteral("Experimente"));
    QCOMPARE(window.findChild<QPushButton *>(QStringLiteral("findMaxBatchButton"))->text(),
             QStringLiteral("Größten Batch finden"));
}

void TestTranslation::englishNeedsNoTranslator()
{
    const auto languages = Language::available();
    QCOMPARE(languages.front().first, QStringLiteral("en"));
    QVERIFY(std::any_of(languages.begin(), languages.end(), [](const auto &language) {
        return language.first == QLatin1String("de");
    }));
}

void TestTranslation::germanMarkersOnThePlots()
{
    // Markers are data; the window words them in its language. (The German
    // translator is installed by the first test.)
    using namespace loaderlab;
    const TraceMarker change{
        10,
        5'000'000,
        MarkerKind::Reconfigure,
        1,
        {{"loader.num_workers", "2", "4"}, {"loader.shuffle", "false", "true"}},
        {}};
    QCOMPARE(MarkerText::marker(change), QStringLiteral("Worker 2 → 4, Mischen aus → an"));
    QCOMPARE(MarkerText::marker({20, 9'000'000, MarkerKind::Epoch, 1, {}, "1"}),
             QStringLiteral("Epoche 1"));
    QCOMPARE(MarkerText::marker({21, 9'000'000, MarkerKind::Pause, 1, {}, {}}),
             QStringLiteral("pausiert"));
    // English stays for exports and the command line.
    QCOMPARE(markerText(change), std::string("workers 2 -> 4, shuffle off -> on"));

    // The label drawn on a plot is the German one.
    auto log = std::make_shared<TraceLog>();
    TraceRecord record;
    for (int i = 0; i < 20; ++i) {
        record.index = i;
        record.requestNs = record.deliveryNs = record.computeEndNs = i * 1'000'000;
        log->append(record);
    }
    log->addMarker(change);
    WaitTimePlot plot;
    plot.setTrace(log, 2);
    plot.refresh();
    QStringList labels;
    for (int i = 0; i < plot.itemCount(); ++i) {
        if (auto *text = qobject_cast<QCPItemText *>(plot.item(i)))
            labels << text->text();
    }
    QVERIFY2(labels.contains(QStringLiteral("Worker 2 → 4, Mischen aus → an")),
             qPrintable(labels.join(QLatin1Char('|'))));
}

QTEST_MAIN(TestTranslation)
#include "test_translation.moc"
