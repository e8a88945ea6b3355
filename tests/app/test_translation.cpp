// The German translation is embedded, complete for the window's menus, and selectable;
// every class's strings are found under the context its tr() uses.

#include "app/window/autotune_manager.h"
#include "app/window/engine_manager.h"
#include "app/window/file_manager.h"
#include "app/window/help_dialog.h"
#include "app/window/language.h"
#include "app/window/lesson_manager.h"
#include "app/window/live_plot_area.h"
#include "app/window/main_window.h"
#include "app/window/run_follower.h"
#include "app/window/run_manager.h"
#include "core/config/marker_text.h"
#include "core/tools/default_dataset.h"
#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"
#include "widgets/common/background_task.h"
#include "widgets/common/marker_text.h"
#include "widgets/experiments/experiments_view.h"
#include "widgets/experiments/max_batch_panel.h"
#include "widgets/experiments/sweep_axes_editor.h"
#include "widgets/experiments/sweep_cell_detail.h"
#include "widgets/experiments/sweep_cells_model.h"
#include "widgets/experiments/sweep_heatmap.h"
#include "widgets/experiments/sweep_line_plots.h"
#include "widgets/experiments/sweep_worker.h"
#include "widgets/lessons/lesson_panel.h"
#include "widgets/limits/limits_dialog.h"
#include "widgets/plots/qcustomplot_include.h"
#include "widgets/plots/throughput_plot.h"
#include "widgets/plots/timeline_plottable.h"
#include "widgets/plots/wait_histogram_plot.h"
#include "widgets/plots/wait_pattern_plot.h"
#include "widgets/plots/wait_time_plot.h"
#include "widgets/plots/worker_timeline_plot.h"
#include "widgets/session/event_list_view.h"
#include "widgets/session/run_list.h"
#include "widgets/session/run_list_view.h"
#include "widgets/session/run_session.h"
#include "widgets/session/stats_panel.h"
#include "widgets/settings/control_panel.h"
#include "widgets/settings/engine_choice.h"
#include "widgets/settings/model_panel.h"
#include "widgets/what_if/what_if_machine.h"
#include "widgets/what_if/what_if_panel.h"
#include "widgets/what_if/what_if_plot.h"
#include "window_test_support.h"

#include <QCheckBox>
#include <QDir>
#include <QLabel>
#include <QScrollArea>
#include <QTranslator>
#include <QtTest>

#include <QMenuBar>
#include <QPushButton>
#include <QTabWidget>
#include <QXmlStreamReader>

#include <map>
#include <utility>
#include <vector>

using namespace loaderlab;

namespace {

// context -> (source, translation) of every finished, singular message of the .ts.
using TsMessages = std::map<QString, std::vector<std::pair<QString, QString>>>;

TsMessages readTs(const QString &path)
{
    TsMessages messages;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return messages;
    QXmlStreamReader xml(&file);
    QString context;
    QString source;
    while (!xml.atEnd()) {
        if (!xml.readNextStartElement())
            continue;
        if (xml.name() == QLatin1String("name")) {
            context = xml.readElementText();
            messages[context];
        } else if (xml.name() == QLatin1String("message")) {
            if (xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes"))
                xml.skipCurrentElement();
            source.clear();
        } else if (xml.name() == QLatin1String("source")) {
            source = xml.readElementText();
        } else if (xml.name() == QLatin1String("translation")) {
            const bool finished = xml.attributes().value(QLatin1String("type")).isEmpty();
            const QString translation = xml.readElementText();
            if (finished && !translation.isEmpty())
                messages[context].emplace_back(source, translation);
        }
    }
    return messages;
}

} // namespace

class TestTranslation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void germanTranslatesTheMenus();
    void englishHasOnlyItsPluralForms();
    void germanMarkersOnThePlots();
    void germanAutotuneStateIsWholeAt1280x800();
    void everyContextIsOneTheCodeUses();
};

void TestTranslation::germanTranslatesTheMenus()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(QFile::exists(QStringLiteral(":/i18n/loaderlab_de.qm")));
    language::install(*QCoreApplication::instance(), QStringLiteral("de"));
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
    QCOMPARE(MainWindow::tr("&File").remove(QLatin1Char('&')), QStringLiteral("Datei"));
    QCOMPARE(MainWindow::tr("&Help").remove(QLatin1Char('&')), QStringLiteral("Hilfe"));
    // The run list's menu entries and the engine choice.
    QCOMPARE(MainWindow::tr("Open &run…").remove(QLatin1Char('&')), QStringLiteral("Lauf öffnen…"));
    QCOMPARE(EngineChoice::tr("PyTorch DataLoader"), QStringLiteral("PyTorch-DataLoader"));
    // The two tabs: the live plots and the Experiments view.
    auto *tabs = window.findChild<QTabWidget *>(QStringLiteral("viewTabs"));
    QVERIFY(tabs);
    QCOMPARE(tabs->tabText(1), QStringLiteral("Experimente"));
    QCOMPARE(window.findChild<QPushButton *>(QStringLiteral("findMaxBatchButton"))->text(),
             QStringLiteral("Größten Batch finden"));
}

// English is the sources' language; its translator holds only the plural forms, so
// "%n batch(es)" reads "1 batch" and "8 batches" instead of "8 batch(es)".
void TestTranslation::englishHasOnlyItsPluralForms()
{
    const auto languages = language::available();
    QCOMPARE(languages.front().first, QStringLiteral("en"));
    QVERIFY(std::any_of(languages.begin(), languages.end(), [](const auto &language) {
        return language.first == QLatin1String("de");
    }));
    QTranslator english;
    QVERIFY(english.load(QStringLiteral(":/i18n/loaderlab_en")));
    const char *source = "wait, rolling mean of %n batch(es)";
    QCOMPARE(english.translate("loaderlab::WaitTimePlot", source, nullptr, 8),
             QStringLiteral("wait, rolling mean of %n batches"));
    QCOMPARE(english.translate("loaderlab::WaitTimePlot", source, nullptr, 1),
             QStringLiteral("wait, rolling mean of %n batch"));
    QCOMPARE(english.translate("loaderlab::ExperimentsView", "ran %n cell(s)", nullptr, 1),
             QStringLiteral("ran %n cell"));
    // Nothing else: the sources are the English.
    QVERIFY(english.translate("loaderlab::MainWindow", "&File").isEmpty());
}

void TestTranslation::germanMarkersOnThePlots()
{
    // Markers are data; the window words them in its language. (The German
    // translator is installed by the first test.)
    const TraceMarker change{
        10,
        5'000'000,
        MarkerKind::Reconfigure,
        1,
        {{"loader.num_workers", "2", "4"}, {"loader.shuffle", "false", "true"}},
        {}};
    QCOMPARE(markertext::marker(change), QStringLiteral("Worker 2 → 4, Mischen aus → an"));
    QCOMPARE(markertext::marker({20, 9'000'000, MarkerKind::Epoch, 1, {}, "1"}),
             QStringLiteral("Epoche 1"));
    QCOMPARE(markertext::marker({21, 9'000'000, MarkerKind::Pause, 1, {}, {}}),
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

void TestTranslation::germanAutotuneStateIsWholeAt1280x800()
{
    // The line under the Autotune box says, in German, what the tuner does and, once
    // it has measured a window, how busy the machine was; on a 1280x800 laptop screen
    // it wraps inside the settings column, cut nowhere. (The German translator is
    // installed by the first test.) LOADERLAB_SCREENSHOT_DIR keeps a screenshot.
    if (!QFile::exists(QStringLiteral("/proc/stat")))
        QSKIP("no /proc/stat here: the tuner cannot say how busy the machine was");
    MainWindow window;
    RunConfig config = windowtest::fastConfig(1, 4096);
    config.dataset.kind = DatasetKind::ImageFolder;
    config.dataset.path = ensureDefaultImageFolder();
    window.applyConfig(config);
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *controls = window.controlPanel();
    auto *autotune = childNamed<QCheckBox>(controls, "autotuneCheck");
    auto *state = childNamed<QLabel>(controls, "autotuneState");
    QVERIFY(window.startRun());
    autotune->click();
    QVERIFY(window.autotuner());
    QTRY_VERIFY_WITH_TIMEOUT(state->text().contains(QStringLiteral("letzten Messfenster")), 20'000);
    QVERIFY2(!state->text().contains(QStringLiteral("window")), qPrintable(state->text()));
    // Whole: wrapped to its width, as tall as its text needs, inside the window.
    QVERIFY(state->wordWrap());
    QTRY_VERIFY2(state->height() >= state->heightForWidth(state->width()),
                 qPrintable(QStringLiteral("%1 px for %2")
                                .arg(state->height())
                                .arg(state->heightForWidth(state->width()))));
    const QRect inWindow(state->mapTo(&window, QPoint(0, 0)), state->size());
    QVERIFY2(window.rect().contains(inWindow), qPrintable(QStringLiteral("%1,%2 %3x%4")
                                                              .arg(inWindow.x())
                                                              .arg(inWindow.y())
                                                              .arg(inWindow.width())
                                                              .arg(inWindow.height())));
    // The settings column unscrolled, the Autotune box and its line among them.
    const QString dir = qEnvironmentVariable("LOADERLAB_SCREENSHOT_DIR");
    auto *settings = controls->findChild<QScrollArea *>();
    QVERIFY(settings && settings->widget()->isAncestorOf(state));
    if (!dir.isEmpty())
        QVERIFY(settings->widget()->grab().save(
            QDir(dir).filePath(QStringLiteral("autotune-settings-de.png"))));
    autotune->click();
    window.session()->stop();
}

void TestTranslation::everyContextIsOneTheCodeUses()
{
    // tr() looks a class's strings up under its qualified name (loaderlab::MainWindow),
    // the context lupdate writes for it; the others are named in the code
    // (QCoreApplication::translate, QT_TRANSLATE_NOOP). A context the code does not
    // use would be strings the window never shows in German. (The German translator
    // is installed by the first test.)
    const QMetaObject *classes[] = {
        &AutotuneManager::staticMetaObject,    &BackgroundTask::staticMetaObject,
        &ControlPanel::staticMetaObject,       &EngineChoice::staticMetaObject,
        &EngineManager::staticMetaObject,      &ExperimentsView::staticMetaObject,
        &FileManager::staticMetaObject,        &HelpDialog::staticMetaObject,
        &LessonManager::staticMetaObject,      &LessonPanel::staticMetaObject,
        &LivePlot::staticMetaObject,           &LivePlotArea::staticMetaObject,
        &MainWindow::staticMetaObject,         &MaxBatchPanel::staticMetaObject,
        &ModelPanel::staticMetaObject,         &RunList::staticMetaObject,
        &RunFollower::staticMetaObject,        &RunListView::staticMetaObject,
        &RunManager::staticMetaObject,         &StatsPanel::staticMetaObject,
        &SweepAxesEditor::staticMetaObject,    &SweepCellDetail::staticMetaObject,
        &SweepCellsModel::staticMetaObject,    &SweepHeatmap::staticMetaObject,
        &SweepLinePlots::staticMetaObject,     &SweepWorker::staticMetaObject,
        &ThroughputPlot::staticMetaObject,     &TimelinePlottable::staticMetaObject,
        &WaitHistogramPlot::staticMetaObject,  &WaitPatternPlot::staticMetaObject,
        &WaitTimePlot::staticMetaObject,       &WhatIfMachineChoice::staticMetaObject,
        &WhatIfPanel::staticMetaObject,        &WhatIfPlot::staticMetaObject,
        &WorkerTimelinePlot::staticMetaObject, &EventListView::staticMetaObject,
        &LimitsDialog::staticMetaObject,
    };
    QStringList used = {
        QStringLiteral("ConfigField"), QStringLiteral("DatasetKind"), QStringLiteral("EngineText"),
        QStringLiteral("Gui"),         QStringLiteral("Lesson"),      QStringLiteral("MarkerText"),
        QStringLiteral("MaxBatch"),    QStringLiteral("PlotExport"),  QStringLiteral("PlotTitle"),
        QStringLiteral("SweepText"),   QStringLiteral("ReportPdf")};
    for (const QMetaObject *meta : classes)
        used << QString::fromLatin1(meta->className());
    QCOMPARE(QString::fromLatin1(MainWindow::staticMetaObject.className()),
             QStringLiteral("loaderlab::MainWindow"));

    const TsMessages messages = readTs(qEnvironmentVariable("LOADERLAB_SOURCE_DIR")
                                       + QStringLiteral("/translations/loaderlab_de.ts"));
    QVERIFY(messages.size() >= std::size(classes));
    for (const auto &[context, translated] : messages) {
        QVERIFY2(used.contains(context), qPrintable(context));
        QVERIFY2(!translated.empty(), qPrintable(context));
        // Each message is embedded under its context.
        const QByteArray name = context.toUtf8();
        for (const auto &[source, german] : translated)
            QCOMPARE(QCoreApplication::translate(name.constData(), source.toUtf8().constData()),
                     german);
    }
    for (const QString &context : used)
        QVERIFY2(messages.count(context) == 1, qPrintable(context));
}

LOADERLAB_TEST_MAIN(TestTranslation)
#include "test_translation.moc"
