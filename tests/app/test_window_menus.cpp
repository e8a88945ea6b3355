// The Run menu's keys drive a real run (F5 starts, F6 pauses and resumes, Ctrl+K
// keeps it, Shift+F5 stops); a setting changed meanwhile is event #1 of the Events
// dock; File → Export trace writes the shown run the user picks (a kept one, not
// only the live one), File → Export figures table the ticked runs' figures and File →
// Export report one HTML file whose plots a real SVG renderer draws in the runs'
// colours.

#include "app/window/main_window.h"
#include "window_test_support.h"

#include "core/io/trace_csv.h"
#include "widgets/session/event_list_view.h"
#include "widgets/session/run_list.h"
#include "widgets/session/run_session.h"
#include "widgets/settings/control_panel.h"

#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QImage>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenuBar>
#include <QPainter>
#include <QRegularExpression>
#include <QSlider>
#include <QSvgRenderer>
#include <QTimer>
#include <QtTest>

using namespace loaderlab;

namespace {

QAction *windowMenuAction(QMainWindow &window, const char *name)
{
    for (QAction *menu : window.menuBar()->actions()) {
        if (!menu->menu())
            continue;
        for (QAction *action : menu->menu()->actions()) {
            if (action->objectName() == QLatin1String(name))
                return action;
        }
    }
    qFatal("no menu action %s", name);
}

// Answers the next modal dialogs in turn: a QInputDialog with the item that starts
// with `item` (skipped when empty), then a file dialog with `path`. A dialog not
// seen within a few seconds is left, so the test fails instead of hanging.
void answerDialogs(const QString &item, const QString &path)
{
    auto *timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(
        timer, &QTimer::timeout, timer,
        [timer, item, path, itemDone = item.isEmpty(), tries = 0]() mutable {
            QWidget *modal = QApplication::activeModalWidget();
            if (auto *input = qobject_cast<QInputDialog *>(modal); input && !itemDone) {
                for (const QString &choice : input->comboBoxItems())
                    if (choice.startsWith(item))
                        input->setTextValue(choice);
                input->accept();
                itemDone = true;
                return;
            }
            auto *dialog = qobject_cast<QFileDialog *>(modal);
            auto *name = dialog ? dialog->findChild<QLineEdit *>(QStringLiteral("fileNameEdit"))
                                : nullptr;
            if (itemDone && name) {
                name->setText(path);
                static_cast<QDialog *>(dialog)->accept();
            } else if (++tries < 250) {
                return;
            }
            timer->deleteLater();
        });
    timer->start();
}

} // namespace

class TestWindowMenus : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void runMenuKeysDriveTheRun();

private:
    QTemporaryDir m_dir;
};

void TestWindowMenus::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("LoaderLabTests"));
}

void TestWindowMenus::runMenuKeysDriveTheRun()
{
    MainWindow window;
    RunConfig config = windowtest::fastConfig(1, 1 << 20);
    window.applyConfig(config);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    for (const auto &[name, key] : {std::pair{"startAction", QKeySequence(Qt::Key_F5)},
                                    std::pair{"pauseAction", QKeySequence(Qt::Key_F6)},
                                    std::pair{"stopAction", QKeySequence(Qt::SHIFT | Qt::Key_F5)},
                                    std::pair{"keepRunAction", QKeySequence(Qt::CTRL | Qt::Key_K)},
                                    std::pair{"fitAllAction", QKeySequence(Qt::Key_A)}})
        QCOMPARE(windowMenuAction(window, name)->shortcut(), key);
    QVERIFY(!windowMenuAction(window, "pauseAction")->isEnabled());

    QTest::keyClick(&window, Qt::Key_F5);
    QTRY_COMPARE(window.session()->state(), RunState::Running);
    QTRY_VERIFY(window.session()->trace()->size() > 20);
    QVERIFY(windowMenuAction(window, "pauseAction")->isEnabled());
    QTest::keyClick(&window, Qt::Key_F6);
    QTRY_COMPARE(window.session()->state(), RunState::Paused);
    QCOMPARE(windowMenuAction(window, "pauseAction")->text(), QStringLiteral("Res&ume"));
    QVERIFY(childNamed<QPushButton>(window.controlPanel(), "pauseButton")->isChecked());
    QTest::keyClick(&window, Qt::Key_F6);
    QTRY_COMPARE(window.session()->state(), RunState::Running);

    // A setting changed while it runs: the Events dock's next number after the pause
    // and the resume; epochs are not numbered.
    childNamed<QSlider>(window.controlPanel(), "workersSlider")->setValue(2);
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->config().loader.numWorkers, 2, 5000);
    auto *events = childNamed<EventListView>(&window, "eventList");
    // Hidden at first (the Runs dock keeps its height); Ctrl+E shows it.
    auto *eventsDock = childNamed<QDockWidget>(&window, "eventsDock");
    QVERIFY(!eventsDock->isVisible());
    QTest::keyClick(&window, Qt::Key_E, Qt::ControlModifier);
    QTRY_VERIFY(eventsDock->isVisible());
    QTRY_VERIFY(events->topLevelItemCount() == 1 && events->topLevelItem(0)->childCount() > 0);
    QTreeWidgetItem *change = nullptr;
    int numberedBefore = 0; // the pause and resume, where the run had batches by then
    QTRY_VERIFY([&] {
        QTreeWidgetItem *live = events->topLevelItem(0);
        change = nullptr; // QTRY_VERIFY calls it once more after it held
        numberedBefore = 0;
        for (int i = 0; i < live->childCount() && !change; ++i) {
            if (live->child(i)->text(EventListView::EventColumn).contains(QStringLiteral("1 → 2")))
                change = live->child(i);
            else if (!live->child(i)->text(EventListView::NumberColumn).isEmpty())
                ++numberedBefore;
        }
        return change != nullptr;
    }());
    QCOMPARE(change->text(EventListView::NumberColumn), QString::number(numberedBefore + 1));

    // Shift+F5 stops; Ctrl+K keeps the stopped run beside the live one.
    QTest::keyClick(&window, Qt::Key_F5, Qt::ShiftModifier);
    QTRY_VERIFY(!window.session()->running());
    const std::size_t keptBatches = window.session()->trace()->size();
    QTest::keyClick(&window, Qt::Key_K, Qt::ControlModifier);
    QTRY_COMPARE(window.session()->runs()->runs().size(), std::size_t{2});
    const RunEntry &kept = window.session()->runs()->runs().back();
    QCOMPARE(kept.trace->size(), keptBatches);
    QCOMPARE(events->topLevelItemCount(), 2);

    // A new run (another batch size) so the live one differs from the kept one.
    config.loader.batchSize = 8;
    config.loader.numWorkers = 1;
    window.applyConfig(config);
    QTest::keyClick(&window, Qt::Key_F5);
    // Enough batches for its own line on every plot (a few draw one point of throughput).
    QTRY_VERIFY(window.session()->running() && window.session()->trace()->size() > 60);
    QTest::keyClick(&window, Qt::Key_F5, Qt::ShiftModifier);
    QTRY_VERIFY(!window.session()->running());

    // File → Export trace as CSV: the kept run, picked by its number in the list.
    const QString csv = m_dir.filePath(QStringLiteral("kept trace.csv"));
    answerDialogs(QStringLiteral("2. "), csv);
    windowMenuAction(window, "exportTraceAction")->trigger();
    QVERIFY2(QFile::exists(csv), "the export wrote no file");
    const auto records = loadTraceCsv(csv.toStdString());
    QCOMPARE(records.size(), keptBatches);
    QCOMPARE(records.front().samples, 16); // the kept run's batch size, not the live one's
    QCOMPARE(records.front().requestNs, kept.trace->records().front().requestNs);

    // File → Export figures table: a header and one row a ticked run.
    const QString figures = m_dir.filePath(QStringLiteral("figures.csv"));
    answerDialogs(QString(), figures);
    windowMenuAction(window, "exportFiguresAction")->trigger();
    QFile file(figures);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 3);
    QVERIFY(lines[0].startsWith(QStringLiteral("run,samples_per_s,wait_mean_ms")));
    // The name is quoted ("2 workers, batch 16"): the figures are the last six fields.
    const QStringList keptRow = lines[2].split(QLatin1Char(','));
    QVERIFY(lines[2].startsWith(QLatin1Char('"') + kept.name + QLatin1Char('"')));
    QCOMPARE(keptRow.back().toLongLong(), kept.summary.batches);
    QCOMPARE(keptRow[keptRow.size() - 6].toDouble(), kept.summary.samplesPerSecMean);

    // File → Export report: both runs, their events, three plots drawn in their colours.
    const QString report = m_dir.filePath(QStringLiteral("report.html"));
    answerDialogs(QString(), report);
    windowMenuAction(window, "exportReportAction")->trigger();
    QFile reportFile(report);
    QVERIFY2(reportFile.open(QIODevice::ReadOnly), "the report was not written");
    const QString html = QString::fromUtf8(reportFile.readAll());
    QVERIFY(html.contains(kept.name.toHtmlEscaped()));
    QVERIFY(html.contains(window.session()->runs()->live().name.toHtmlEscaped()));
    QVERIFY(html.contains(QStringLiteral("workers 1 -&gt; 2"))); // the kept run's event
    static const QRegularExpression svgs(QStringLiteral("<svg .*?</svg>"),
                                         QRegularExpression::DotMatchesEverythingOption);
    int plots = 0;
    for (const auto &match : svgs.globalMatch(html)) {
        ++plots;
        QSvgRenderer renderer(match.captured(0).toUtf8());
        QVERIFY(renderer.isValid());
        QImage image(renderer.defaultSize(), QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        renderer.render(&painter);
        painter.end();
        // Mostly white: nothing (a clip rectangle Qt does not clip with) is filled black.
        int dark = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                dark += image.pixelColor(x, y).lightness() < 60;
        QVERIFY2(dark * 20 < image.width() * image.height(),
                 qPrintable(QStringLiteral("plot %1: %2 dark px").arg(plots).arg(dark)));
        // Below the title and the legend's row (their swatches carry the colours too),
        // each run's colour drawn: runs drawn later may cover most of an earlier one
        // (two runs' waits near 0 ms lie on one line), so any pixel counts.
        for (const RunEntry &run : window.session()->runs()->runs()) {
            int pixels = 0;
            for (int y = 60; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x) {
                    const QColor c = image.pixelColor(x, y);
                    pixels += std::abs(c.red() - run.colour.red()) < 40
                              && std::abs(c.green() - run.colour.green()) < 40
                              && std::abs(c.blue() - run.colour.blue()) < 40;
                }
            QVERIFY2(pixels > 0, qPrintable(QStringLiteral("%1: %2 px of %3 in plot %4")
                                                .arg(run.name)
                                                .arg(pixels)
                                                .arg(run.colour.name())
                                                .arg(plots)));
        }
    }
    QCOMPARE(plots, 3);

    // The same report as a PDF: titled, its three plots as images, the runs named.
    const QString pdf = m_dir.filePath(QStringLiteral("report.pdf"));
    answerDialogs(QString(), pdf);
    windowMenuAction(window, "exportReportAction")->trigger();
    QFile pdfFile(pdf);
    QVERIFY2(pdfFile.open(QIODevice::ReadOnly), "the PDF was not written");
    const QByteArray bytes = pdfFile.readAll();
    QVERIFY(bytes.startsWith("%PDF-"));
    QByteArray title("/Title (\xfe\xff");
    for (const QChar c : QStringLiteral("LoaderLab report"))
        title += QByteArray(1, static_cast<char>(c.unicode() >> 8))
                 + static_cast<char>(c.unicode() & 0xff);
    QVERIFY(bytes.contains(title));
    QCOMPARE(bytes.count("/Subtype /Image"), 3);
}

LOADERLAB_TEST_MAIN(TestWindowMenus)
#include "test_window_menus.moc"
