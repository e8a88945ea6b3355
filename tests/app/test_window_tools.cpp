// The window's tools beside the run: the Perfetto export from the File menu, the
// Autotune toggle driving a live run, and the side panel's fit (the stats in view
// at common window sizes). Set LOADERLAB_SCREENSHOT_DIR to keep the screenshots.

#include "app/window/main_window.h"
#include "window_test_support.h"

#include "core/autotune/autotuner.h"
#include "core/tools/default_dataset.h"
#include "widgets/plots/live_plot.h"
#include "widgets/plots/timeline_plottable.h"
#include "widgets/plots/worker_timeline_plot.h"
#include "widgets/session/run_session.h"
#include "widgets/settings/control_panel.h"

#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QtTest>

#include <QAbstractScrollArea>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>

#include <nlohmann/json.hpp>

#include <fstream>

using namespace loaderlab;

namespace {

QAction *menuAction(QMainWindow &window, const char *name)
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

// Accepts the next file dialog with `path` (Qt's own dialog, as offscreen): the
// name typed into its file name field, accepted at once (the dialog would put its
// default name there when it has read its folder); rejected if that field is not
// found within a few seconds, so the test fails instead of hanging.
void answerFileDialog(const QString &path)
{
    auto *timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, path, tries = 0]() mutable {
        auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        auto *name = dialog->findChild<QLineEdit *>(QStringLiteral("fileNameEdit"));
        if (name) {
            name->setText(path);
            static_cast<QDialog *>(dialog)->accept(); // QFileDialog's accept() is protected
        } else if (++tries < 250) {
            return;
        } else {
            dialog->reject();
        }
        timer->deleteLater();
    });
    timer->start();
}

void saveScreenshot(QWidget &window, const QString &name)
{
    const QString dir = qEnvironmentVariable("LOADERLAB_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    // Lay out what changed since the last event loop pass (a label's new text), as
    // the window does before it paints.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    QVERIFY(window.grab().save(QDir(dir).filePath(name)));
}

} // namespace

class TestWindowTools : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void perfettoExportFromTheMenu();
    void perfettoExportErrorNamesTheFile();
    void autotuneDrivesTheRunAndTheSliders();
    void statsInViewAtCommonSizes_data();
    void statsInViewAtCommonSizes();

private:
    QTemporaryDir m_dir;
};

void TestWindowTools::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("LoaderLabTests"));
}

void TestWindowTools::perfettoExportFromTheMenu()
{
    MainWindow window;
    window.applyConfig(windowtest::fastConfig(1, 4096));
    window.show();
    QVERIFY(window.startRun());
    QTRY_VERIFY(window.session()->trace()->size() > 20);
    window.session()->stop();
    const std::size_t batches = window.session()->trace()->size();

    const QString path = m_dir.filePath(QStringLiteral("perfetto.json"));
    answerFileDialog(path);
    menuAction(window, "exportPerfettoAction")->trigger();

    std::ifstream in(path.toStdString());
    QVERIFY2(in, "the menu action wrote no file");
    const auto trace = nlohmann::json::parse(in);
    QVERIFY(trace.contains("traceEvents"));
    const auto &events = trace["traceEvents"];
    QVERIFY(events.is_array());
    // A model step slice (1 ms sleep) for every batch the run delivered.
    std::size_t steps = 0;
    for (const auto &e : events) {
        if (e.value("ph", "") == "X" && e.value("name", "") == "step")
            ++steps;
    }
    QCOMPARE(steps, batches);
    QVERIFY(!QFile::exists(path + QStringLiteral(".part")));
}

void TestWindowTools::perfettoExportErrorNamesTheFile()
{
    MainWindow window;
    QString error;
    QVERIFY(!window.exportChromeTrace(m_dir.filePath(QStringLiteral("none.json")), &error));
    QVERIFY(!error.isEmpty()); // no run yet
    window.applyConfig(windowtest::fastConfig(1, 4096));
    QVERIFY(window.startRun());
    QTRY_VERIFY(window.session()->trace()->size() > 3);
    window.session()->stop();
    const QString bad = QStringLiteral("/nonexistent-dir/perfetto.json");
    QVERIFY(!window.exportChromeTrace(bad, &error));
    QVERIFY2(error.contains(bad), qPrintable(error));
}

void TestWindowTools::autotuneDrivesTheRunAndTheSliders()
{
    MainWindow window;
    // One worker decoding JPEGs for a 1 ms step: loading is the limit. The hill climb
    // measures a neighbouring setting after its first window whatever the machine's
    // load; the loader model's proposals depend on it (beside a busy program a second
    // worker may gain nothing) and are checked in tests/autotune and tests/cli.
    RunConfig config = windowtest::fastConfig(1, 4096);
    config.dataset.kind = DatasetKind::ImageFolder;
    config.dataset.path = ensureDefaultImageFolder();
    window.applyConfig(config);
    window.show();
    auto *controls = window.controlPanel();
    auto *autotune = childNamed<QCheckBox>(controls, "autotuneCheck");
    auto *workersSlider = childNamed<QSlider>(controls, "workersSlider");
    auto *workersSpin = childNamed<QSpinBox>(controls, "workersSpin");
    auto *prefetchSpin = childNamed<QSpinBox>(controls, "prefetchSpin");
    auto *batchSpin = childNamed<QSpinBox>(controls, "batchSizeSpin");
    auto *search = childNamed<QComboBox>(controls, "autotuneSearchCombo");
    QVERIFY(workersSlider->isEnabled());
    // The loader model proposes by default; the search is chosen with the box on.
    QVERIFY(!search->isEnabled());
    QVERIFY(controls->autotuneModelSearch());

    QVERIFY(window.startRun());
    QVERIFY(!window.autotuner());
    autotune->click();
    QVERIFY(search->isEnabled());
    QVERIFY(window.autotuner());
    search->setCurrentIndex(search->findData(false));
    QVERIFY(!controls->autotuneModelSearch());
    QVERIFY(window.autotuner());
    // The tuned controls follow the autotuner and cannot be moved meanwhile.
    QVERIFY(!workersSlider->isEnabled());
    QVERIFY(!prefetchSpin->isEnabled());
    QVERIFY(batchSpin->isEnabled()); // the batch size only with "and the batch size"

    // The first trial comes after a settled window of the starting setting.
    const auto trace = window.session()->trace();
    const auto autotuneMarkers = [&] {
        std::vector<TraceMarker> found;
        for (const TraceMarker &m : trace->markers()) {
            if (m.kind == MarkerKind::Autotune)
                found.push_back(m);
        }
        return found;
    };
    QTRY_VERIFY_WITH_TIMEOUT(!autotuneMarkers().empty(), 20'000);
    const TraceMarker first = autotuneMarkers().front();
    QVERIFY(!first.changes.empty());
    QCOMPARE(window.autotuner()->calibrations(), 0); // the hill climb, not the model
    // What the run uses is what the controls show (after the next refresh).
    const auto shown = [&] {
        const RunConfig run = window.session()->config();
        return workersSpin->value() == run.loader.numWorkers
               && workersSlider->value()
                      == std::min(run.loader.numWorkers, workersSlider->maximum())
               && prefetchSpin->value() == run.loader.prefetchFactor
               && batchSpin->value() == run.loader.batchSize;
    };
    QTRY_VERIFY(shown());
    // Under the Autotune box: what the tuner does, and the machine's load once it has
    // measured a window (on a machine without /proc/stat it cannot say).
    auto *state = childNamed<QLabel>(controls, "autotuneState");
    QVERIFY(!state->isHidden());
    QTRY_VERIFY(!state->text().isEmpty() && !state->text().startsWith(QStringLiteral("Measuring")));
    if (QFile::exists(QStringLiteral("/proc/stat")))
        QVERIFY2(state->text().contains(QStringLiteral("the last window")),
                 qPrintable(state->text()));
    // The marker is drawn on the time-based plots with its reason.
    const auto markerDrawn = [&] {
        for (LivePlot *plot : window.plots()) {
            for (int i = 0; i < plot->itemCount(); ++i) {
                if (auto *text = qobject_cast<QCPItemText *>(plot->item(i));
                    text && text->text().startsWith(QStringLiteral("autotune: ")))
                    return true;
            }
        }
        return false;
    };
    QTRY_VERIFY(markerDrawn());
    // The timeline has a lane for every worker the tuner ran (not only the
    // controls' count at the start).
    auto *timeline = window.findChild<WorkerTimelinePlot *>(QStringLiteral("workerTimelinePlot"));
    const auto mostWorkers = [&] {
        int most = 0;
        for (const int w : trace->workersByVersion())
            most = std::max(most, w);
        return most;
    };
    QTRY_VERIFY(childNamed<TimelinePlottable>(timeline, "timelineLanes")->workerLanes()
                >= mostWorkers());
    saveScreenshot(window, QStringLiteral("autotune.png"));
    // The settings unscrolled, the Autotune box and its state among them.
    if (auto *settings = controls->findChild<QScrollArea *>())
        saveScreenshot(*settings->widget(), QStringLiteral("autotune-settings.png"));

    // Off: the tuner stops, the controls are the user's again and apply as before.
    autotune->click();
    QVERIFY(!window.autotuner());
    QVERIFY(workersSlider->isEnabled());
    QVERIFY(state->isHidden());
    // The tuner's thread is joined; a change it asked for just before applies at the
    // next batch boundary, so once two more batches have been delivered every
    // marker it will ever leave is in the trace. None comes over the next 100
    // batches (more than a window and a trial's settling).
    const std::size_t stoppedAt = trace->size();
    QTRY_VERIFY_WITH_TIMEOUT(trace->size() >= stoppedAt + 2, 20'000);
    const std::size_t markers = autotuneMarkers().size();
    const std::size_t checkedFrom = trace->size();
    QTRY_VERIFY_WITH_TIMEOUT(trace->size() >= checkedFrom + 100, 20'000);
    QCOMPARE(autotuneMarkers().size(), markers);
    // Stopping the run stops a tuner that was on.
    autotune->click();
    QVERIFY(window.autotuner());
    window.session()->stop();
    QVERIFY(!window.autotuner());
}

void TestWindowTools::statsInViewAtCommonSizes_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("1400x900") << QSize(1400, 900);
    QTest::newRow("1280x800") << QSize(1280, 800);
}

void TestWindowTools::statsInViewAtCommonSizes()
{
    QFETCH(QSize, size);
    MainWindow window;
    window.resize(size);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTest::qWait(50);
    saveScreenshot(window, QStringLiteral("window-%1x%2.png").arg(size.width()).arg(size.height()));
    for (const char *name : {"samplesPerSecLabel", "inputBoundLabel"}) {
        auto *label = childNamed<QLabel>(&window, name);
        QVERIFY2(label->isVisible(), name);
        const QRect inWindow(label->mapTo(&window, QPoint(0, 0)), label->size());
        QVERIFY2(window.rect().contains(inWindow), name);
        // Not cut off by a scroll area it sits in.
        for (QWidget *w = label->parentWidget(); w; w = w->parentWidget()) {
            if (auto *scroll = qobject_cast<QAbstractScrollArea *>(w)) {
                const QRect inViewport(label->mapTo(scroll->viewport(), QPoint(0, 0)),
                                       label->size());
                QVERIFY2(scroll->viewport()->rect().contains(inViewport), name);
            }
        }
        QCOMPARE(label->visibleRegion().boundingRect(), label->rect());
    }
}

LOADERLAB_TEST_MAIN(TestWindowTools)
#include "test_window_tools.moc"
