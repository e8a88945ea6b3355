// The window, driven through its real controls while the engine runs.

#include "tests/support/thread_count.h"
#include "window_test_support.h"

#include "app/window/main_window.h"
#include "widgets/common/background_task.h"

#include "core/io/trace_csv.h"
#include "widgets/plots/live_plot.h"
#include "widgets/plots/timeline_plottable.h"
#include "widgets/plots/worker_timeline_plot.h"
#include "widgets/session/run_session.h"
#include "widgets/settings/control_panel.h"

#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QtTest>

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QSpinBox>

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

using namespace loaderlab;

class TestMainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void workersSliderReconfiguresTheRunningEngine();
    void invalidDatasetPathShowsErrorAndKeepsTheRun();
    void exportsParseBack();
    void failedExportKeepsTheOldFile();
    void rapidSliderChangesUnderLoad();
    void devicesSliderStartsADataParallelRun();

private:
    QTemporaryDir m_dir;
};

void TestMainWindow::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // Keep the test's settings away from the user's.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("LoaderLabTests"));
}

void TestMainWindow::workersSliderReconfiguresTheRunningEngine()
{
    MainWindow window;
    window.applyConfig(windowtest::fastConfig(2, 2048));
    window.show();
    QVERIFY(window.startRun());
    QTRY_VERIFY(window.session()->trace()->size() > 20);

    auto *slider = childNamed<QSlider>(window.controlPanel(), "workersSlider");
    QCOMPARE(slider->value(), 2);
    slider->setFocus();
    QTest::keyClick(slider, Qt::Key_Right); // 2 -> 3 workers
    QCOMPARE(childNamed<QSpinBox>(window.controlPanel(), "workersSpin")->value(), 3);

    // Debounced, then applied between two batches of the running engine.
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->config().loader.numWorkers, 3, 5000);
    const auto markers = window.session()->trace()->markers(); // epoch starts may be there too
    const auto change = std::find_if(markers.begin(), markers.end(), [](const TraceMarker &m) {
        return m.kind == MarkerKind::Reconfigure
               && m.changes == std::vector<FieldChange>{{"loader.num_workers", "2", "3"}};
    });
    QVERIFY(change != markers.end());
    // The timeline grows a lane for the new worker.
    auto *timeline = window.findChild<WorkerTimelinePlot *>(QStringLiteral("workerTimelinePlot"));
    QTRY_COMPARE(childNamed<TimelinePlottable>(timeline, "timelineLanes")->workerLanes(), 3);
    // Every time-based plot shows the marker (a line and its label).
    for (LivePlot *plot : window.plots()) {
        if (plot->objectName() == QLatin1String("waitHistogramPlot"))
            continue;
        QTRY_VERIFY(plot->itemCount() >= 2);
    }
    window.session()->stop();
}

void TestMainWindow::invalidDatasetPathShowsErrorAndKeepsTheRun()
{
    MainWindow window;
    window.applyConfig(windowtest::fastConfig(2, 2048));
    window.show();
    QVERIFY(window.startRun());
    QTRY_VERIFY(window.session()->trace()->size() > 5);
    const auto trace = window.session()->trace();

    auto *kind = childNamed<QComboBox>(window.controlPanel(), "datasetKindCombo");
    const int folderIndex = kind->findData(QStringLiteral("folder"));
    QVERIFY(folderIndex >= 0);
    kind->setCurrentIndex(folderIndex);
    auto *path = childNamed<QLineEdit>(window.controlPanel(), "datasetPathEdit");
    path->clear();
    QTest::keyClicks(path, QStringLiteral("/nonexistent/loaderlab-images"));
    QTest::keyClick(path, Qt::Key_Return);

    auto *error = childNamed<QLabel>(window.controlPanel(), "datasetErrorLabel");
    QTRY_VERIFY(error->isVisible());
    QVERIFY2(error->text().contains(QStringLiteral("/nonexistent/loaderlab-images")),
             qPrintable(error->text()));
    // The previous run goes on, with its trace.
    QCOMPARE(window.session()->trace(), trace);
    QVERIFY(window.session()->running());
    const std::size_t before = trace->size();
    QTRY_VERIFY(trace->size() > before);
    window.session()->stop();
}

void TestMainWindow::exportsParseBack()
{
    MainWindow window;
    RunConfig config = windowtest::fastConfig(2, 2048);
    window.applyConfig(config);
    window.show();
    QVERIFY(window.startRun());
    QTRY_VERIFY(window.session()->trace()->size() > 30);
    window.session()->stop();
    const std::size_t batches = window.session()->trace()->size();

    QString error;
    const QString csv = m_dir.filePath(QStringLiteral("trace.csv"));
    QVERIFY2(window.exportTraceCsv(csv, &error), qPrintable(error));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines =
        QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.first(), QString::fromStdString(traceCsvHeader()));
    QCOMPARE(std::size_t(lines.size() - 1), batches);

    const QString json = m_dir.filePath(QStringLiteral("summary.json"));
    QVERIFY2(window.exportSummaryJson(json, &error), qPrintable(error));
    std::ifstream in(json.toStdString());
    const auto summary = nlohmann::json::parse(in);
    QCOMPARE(summary["summary"]["batches"].get<std::size_t>(), batches);
    QCOMPARE(summary["config"]["loader"]["batch_size"].get<int>(), 16);

    for (const QString &format :
         {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")})
        QVERIFY2(window.exportPlots(m_dir.path(), format, &error), qPrintable(error));
    QImage png(m_dir.filePath(QStringLiteral("wait_time.png")));
    QVERIFY(!png.isNull());
    QFile pdf(m_dir.filePath(QStringLiteral("throughput.pdf")));
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(4) == "%PDF");
    QFile svg(m_dir.filePath(QStringLiteral("worker_timeline.svg")));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("<svg"));
}

void TestMainWindow::failedExportKeepsTheOldFile()
{
    MainWindow window;
    window.applyConfig(windowtest::fastConfig(2, 2048));
    QVERIFY(window.startRun());
    QTRY_VERIFY(window.session()->trace()->size() > 3);
    window.session()->stop();
    QString error;
    QVERIFY(!window.exportTraceCsv(QStringLiteral("/nonexistent-dir/trace.csv"), &error));
    QVERIFY2(error.contains(QStringLiteral("/nonexistent-dir/trace.csv")), qPrintable(error));
}

void TestMainWindow::rapidSliderChangesUnderLoad()
{
    // Earlier windows' engine probes are let go, not waited for: they end first (and
    // the reaper that joins them is there before and after).
    BackgroundTask::joinAbandoned();
    const int threadsBefore = processThreadCount();
    {
        MainWindow window;
        window.applyConfig(windowtest::fastConfig(2, 2048));
        window.show();
        QVERIFY(window.startRun());
        QTRY_VERIFY(window.session()->trace()->size() > 5);
        auto *workers = childNamed<QSlider>(window.controlPanel(), "workersSlider");
        auto *batch = childNamed<QSlider>(window.controlPanel(), "batchSizeSlider");
        for (int i = 0; i < 200; ++i) {
            QSlider *slider = i % 2 ? workers : batch;
            slider->setFocus();
            QTest::keyClick(slider, (i / 2) % 4 < 2 ? Qt::Key_Right : Qt::Key_Left);
            if (i % 10 == 0)
                QTest::qWait(20); // let some reconfigurations reach the engine
        }
        QTest::qWait(400);
        QVERIFY(window.session()->running());
        const std::size_t before = window.session()->trace()->size();
        QTRY_VERIFY(window.session()->trace()->size() > before); // still delivering
        window.session()->stop();
        QCOMPARE(window.session()->engine().liveThreads(), 0);
    }
    BackgroundTask::joinAbandoned(); // this window's probe
    QCOMPARE(processThreadCount(), threadsBefore);
}

void TestMainWindow::devicesSliderStartsADataParallelRun()
{
    MainWindow window;
    window.applyConfig(windowtest::fastConfig(2, 2048));
    window.show();
    QVERIFY(window.startRun());
    QTRY_VERIFY(window.session()->trace()->size() > 5);
    const auto first = window.session()->trace();
    // Kept, the one-rank run is what the data-parallel run's scaling is figured against.
    QTRY_VERIFY(window.session()->trace()->size() > 40);
    QVERIFY(window.session()->keepRun() > 0);

    // The slider moves the spin box; a new run starts with 2 ranks.
    auto *slider = childNamed<QSlider>(window.controlPanel(), "devicesSlider");
    QCOMPARE(slider->value(), 1);
    slider->setValue(2);
    QCOMPARE(childNamed<QSpinBox>(window.controlPanel(), "devicesSpin")->value(), 2);
    QTRY_VERIFY(window.session()->trace() != first);
    QCOMPARE(window.session()->config().devices, 2);
    QTRY_VERIFY(window.session()->trace()->size() > 40);
    std::set<int> ranks;
    for (const TraceRecord &r : window.session()->trace()->records())
        ranks.insert(r.rank);
    QCOMPARE(ranks, (std::set<int>{0, 1}));

    // Timeline: a lane per worker of every rank, named by rank.
    auto *timeline = window.findChild<WorkerTimelinePlot *>(QStringLiteral("workerTimelinePlot"));
    QTRY_COMPARE(childNamed<TimelinePlottable>(timeline, "timelineLanes")->ranks(), 2);
    QCOMPARE(childNamed<TimelinePlottable>(timeline, "timelineLanes")->loaderLanes(),
             4); // 2 ranks x 2 workers
    QCOMPARE(childNamed<TimelinePlottable>(timeline, "timelineLanes")->laneOf(1, 1), 3);
    QCOMPARE(timeline->laneName(3.0), QStringLiteral("rank 1 worker 1"));

    // The stats show each rank.
    auto *perDevice = childNamed<QLabel>(&window, "ranksLabel");
    QTRY_VERIFY(perDevice->isVisible());
    QVERIFY2(perDevice->text().startsWith(QStringLiteral("0: ")), qPrintable(perDevice->text()));
    QVERIFY2(perDevice->text().contains(QStringLiteral("; 1: ")), qPrintable(perDevice->text()));
    // And where the ranks' time went.
    auto *split = childNamed<QLabel>(&window, "timeSplitLabel");
    QTRY_VERIFY(split->isVisible());
    QVERIFY2(split->text().startsWith(QStringLiteral("step "))
                 && split->text().contains(QStringLiteral("most exposed data loading: rank ")),
             qPrintable(split->text()));
    // And its scaling against the kept run of one rank, by name.
    auto *scaling = childNamed<QLabel>(&window, "scalingLabel");
    QTRY_VERIFY(scaling->isVisible());
    const QString keptName = window.session()->runs()->newestOneRankRun()->name;
    QVERIFY2(scaling->text().contains(
                 QStringLiteral("x with 2 ranks against \"%1\", efficiency ").arg(keptName))
                 && scaling->text().contains(QStringLiteral(" other ")),
             qPrintable(scaling->text()));
    window.session()->stop();
    QTRY_VERIFY(window.session()->finished());
    QTRY_COMPARE(window.session()->engine().liveThreads(), 0);
}

LOADERLAB_TEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
