// Help → Guide to the window: the Help menu has the guide (F1) before About; the guide
// opens beside the window (not modal), once however often it is asked for, explains
// each plot, markers and events, every tab and dock, names every menu shortcut with
// its key, read from the menus, and links the docs, which exist where it points.

#include "app/window/main_window.h"

#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QUrl>
#include <QtTest>

using namespace loaderlab;

class TestHelpDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void helpMenuOpensTheGuide();
};

void TestHelpDialog::initTestCase()
{
    // Keep the test's settings away from the user's.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("LoaderLabTests"));
}

void TestHelpDialog::helpMenuOpensTheGuide()
{
    MainWindow window;
    window.show();
    QMenu *help = nullptr;
    for (QAction *action : window.menuBar()->actions()) {
        if (action->text() == QStringLiteral("&Help"))
            help = action->menu();
    }
    QVERIFY(help);
    auto *guide = childNamed<QAction>(&window, "guideAction");
    QCOMPARE(help->actions().size(), 2);
    QCOMPARE(help->actions().front(), guide);
    QCOMPARE(help->actions().back()->text(), QStringLiteral("&About LoaderLab"));
    QCOMPARE(guide->shortcut(), QKeySequence(QKeySequence::HelpContents));

    guide->trigger();
    auto *dialog = childNamed<QDialog>(&window, "guideDialog");
    QVERIFY(dialog->isVisible());
    QVERIFY(!dialog->isModal());
    guide->trigger(); // raises the open one
    QCOMPARE(window.findChildren<QDialog *>(QStringLiteral("guideDialog")).size(), 1);

    const QString text = childNamed<QTextBrowser>(dialog, "guideText")->toPlainText();
    for (const char *plot : {"Wait time per batch",
                             "Wait pattern",
                             "Worker timeline",
                             "Throughput",
                             "Wait histogram",
                             "every W batches",
                             "first batch",
                             "Input-bound or compute-bound",
                             "docs/gui.md",
                             "Events list",
                             "#4",
                             "e12",
                             "Settings",
                             "Lessons",
                             "What if",
                             "Experiments",
                             "Runs",
                             "Follow run",
                             ".csv.part",
                             "Export",
                             "figures table"})
        QVERIFY2(text.contains(QLatin1String(plot)), plot);
    // Every shortcut of the menus, each with its key beside the entry's name (a table
    // row: the plain text has a line per cell).
    const QStringList lines = text.split(QLatin1Char('\n'));
    const auto row = [&lines](const QString &key, const QString &entry) {
        for (qsizetype i = 0; i + 1 < lines.size(); ++i) {
            if (lines[i].trimmed() == key && lines[i + 1].trimmed().endsWith(entry))
                return true;
        }
        return false;
    };
    int shortcuts = 0;
    for (QAction *menu : window.menuBar()->actions()) {
        for (QAction *action : menu->menu()->actions()) {
            if (action->shortcut().isEmpty())
                continue;
            ++shortcuts;
            const QString key = action->shortcut().toString(QKeySequence::NativeText);
            QString entry = action->text();
            entry.remove(QLatin1Char('&'));
            QVERIFY2(row(key, entry), qPrintable(key + QStringLiteral(" ") + entry));
        }
    }
    QVERIFY(shortcuts >= 8); // open, save, Ctrl+1/2/L, F, A, F1 (Quit's key is the platform's)
    QVERIFY(row(QStringLiteral("F"), QStringLiteral("View → Follow newest data")));
    QVERIFY(row(QStringLiteral("A"), QStringLiteral("View → Fit all")));
    QVERIFY(row(QStringLiteral("F1"), QStringLiteral("Help → Guide to the window…")));
    QVERIFY(row(QStringLiteral("F5"), QStringLiteral("Run → Start")));
    QVERIFY(row(QStringLiteral("F6"), QStringLiteral("Run → Pause")));
    QVERIFY(row(QStringLiteral("Shift+F5"), QStringLiteral("Run → Stop")));
    QVERIFY(row(QStringLiteral("Ctrl+K"), QStringLiteral("Run → Keep run for comparison")));

    // The docs are links to files that exist (the source tree's here, installed beside
    // the binary in a package).
    const QString html = childNamed<QTextBrowser>(dialog, "guideText")->toHtml();
    static const QRegularExpression link(QStringLiteral("href=\"(file://[^\"]+)\""));
    int links = 0;
    for (const auto &match : link.globalMatch(html)) {
        const QString file = QUrl(match.captured(1)).toLocalFile();
        QVERIFY2(QFileInfo::exists(file), qPrintable(file));
        ++links;
    }
    QCOMPARE(links, 7);

    dialog->close();
    QTRY_VERIFY(window.findChildren<QDialog *>(QStringLiteral("guideDialog")).isEmpty());
}

LOADERLAB_TEST_MAIN(TestHelpDialog)
#include "test_help_dialog.moc"
