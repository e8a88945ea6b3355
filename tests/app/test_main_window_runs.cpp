// The window's runs: File -> Open run puts a run written by `loaderlab run --csv
// --json` on every plot and in the figures table, bad files change nothing, the run
// list's checkboxes decide what the plots draw, and the PyTorch engine runs from the
// window where Python has torch.

#include "app/window/main_window.h"

#include "core/engine/pytorch/pytorch_run.h"
#include "core/engine/run_service.h"
#include "core/io/run_reader.h"
#include "core/io/trace_csv.h"
#include "widgets/plots/live_plot.h"
#include "widgets/plots/throughput_plot.h"
#include "widgets/plots/timeline_plottable.h"
#include "widgets/plots/wait_histogram_plot.h"
#include "widgets/plots/wait_time_plot.h"
#include "widgets/plots/worker_timeline_plot.h"
#include "widgets/session/run_list.h"
#include "widgets/session/run_list_view.h"
#include "widgets/session/run_session.h"
#include "widgets/settings/control_panel.h"
#include "widgets/settings/engine_choice.h"

#include "tests/support/plot_of.h"
#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QtTest>

#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableWidget>

#include <algorithm>
#include <fstream>

using namespace loaderlab;

namespace {

RunConfig smallRun(int workers, int batches)
{
    RunConfig config;
    config.dataset.syntheticShape = {3, 32, 32};
    config.dataset.syntheticSamples = 16 * batches;
    config.loader.numWorkers = workers;
    config.loader.batchSize = 16;
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 1.0;
    return config;
}

// A run written as `loaderlab run --csv <base>.csv --json <base>.json` writes it.
RunReport writeRun(const RunConfig &config, const QString &base)
{
    RunService service;
    service.start(config, RunOutputs{(base + QStringLiteral(".csv")).toStdString(),
                                     (base + QStringLiteral(".json")).toStdString(),
                                     {}});
    service.wait();
    const RunReport report = service.report();
    service.writeOutputs(report);
    return report;
}

// Graphs and plottables drawn on every plot, hidden ones not counted.
int visiblePlottables(const std::vector<LivePlot *> &plots)
{
    int n = 0;
    for (LivePlot *plot : plots)
        for (int i = 0; i < plot->plottableCount(); ++i)
            n += plot->plottable(i)->visible() ? 1 : 0;
    return n;
}

} // namespace

class TestMainWindowRuns : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void openedRunIsDrawnWithItsFigures();
    void badFilesChangeNothing();
    void checkboxesDecideWhatIsPlotted();
    void pytorchEngineRunsInTheWindow();
    void runsDockShowsTheRunsAt1280x800();

private:
    QTemporaryDir m_dir;
    QString m_base; // a finished run's files, without the extension
    RunReport m_report;
};

void TestMainWindowRuns::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("LoaderLabTests"));
    m_base = m_dir.filePath(QStringLiteral("run-a"));
    m_report = writeRun(smallRun(3, 48), m_base);
    QCOMPARE(m_report.summary.batches, std::int64_t{48});
}

void TestMainWindowRuns::openedRunIsDrawnWithItsFigures()
{
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    RunList *runs = window.session()->runs();
    QString error;
    // The CSV alone: the JSON beside it is found.
    QVERIFY2(window.openRun(m_base + QStringLiteral(".csv"), QString(), &error), qPrintable(error));
    QCOMPARE(runs->runs().size(), std::size_t(2));
    const RunEntry &opened = runs->runs()[1];
    QCOMPARE(opened.name, QStringLiteral("3 workers, batch 16"));
    QCOMPARE(opened.source, m_base + QStringLiteral(".csv"));
    QCOMPARE(opened.workers, 3);
    // The figures are the run's own.
    QCOMPARE(opened.summary.batches, m_report.summary.batches);
    QCOMPARE(opened.summary.samplesPerSecMean, m_report.summary.samplesPerSecMean);
    QCOMPARE(opened.summary.waitMeanMs, m_report.summary.waitMeanMs);
    QCOMPARE(opened.summary.inputBoundShare, m_report.summary.inputBoundShare);

    // On every plot, in its colour.
    auto *waits = plotOf<WaitTimePlot>(window);
    QCOMPARE(waits->overlayGraphs().size(), std::size_t(1));
    QCOMPARE(waits->overlayGraphs()[0]->dataCount(), 48);
    QCOMPARE(waits->overlayGraphs()[0]->pen().color(), opened.colour);
    QCOMPARE(plotOf<ThroughputPlot>(window)->overlayGraphs().size(), std::size_t(1));
    QCOMPARE(plotOf<WaitHistogramPlot>(window)->overlayGraphs().size(), std::size_t(1));
    auto *timeline = plotOf<WorkerTimelinePlot>(window);
    QCOMPARE(timeline->overlayTimelines().size(), std::size_t(1));
    QCOMPARE(timeline->overlayTimelines()[0]->workerLanes(), 3);
    QCOMPARE(timeline->overlayTimelines()[0]->syncedSpans(), std::size_t(48));

    // In the figures table, as the numbers the run wrote.
    QTableWidget *stats = childNamed<QTableWidget>(&window, "runStatsTable");
    QCOMPARE(stats->rowCount(), 1); // no live run yet
    QCOMPARE(stats->item(0, RunListView::SamplesPerSecColumn)->text(),
             QString::number(m_report.summary.samplesPerSecMean, 'f', 1));
    QCOMPARE(stats->item(0, RunListView::BatchesColumn)->text(), QStringLiteral("48"));

    // The JSON alone, and a second run: two overlays, two rows.
    const QString other = m_dir.filePath(QStringLiteral("run-b"));
    writeRun(smallRun(1, 24), other);
    QVERIFY2(window.openRun(other + QStringLiteral(".json"), QString(), &error), qPrintable(error));
    QCOMPARE(waits->overlayGraphs().size(), std::size_t(2));
    QCOMPARE(stats->rowCount(), 2);
    QCOMPARE(stats->item(1, RunListView::RunColumn)->text(), QStringLiteral("1 worker, batch 16"));
    QVERIFY(runs->runs()[1].colour != runs->runs()[2].colour);
}

void TestMainWindowRuns::badFilesChangeNothing()
{
    MainWindow window;
    QString error;
    QVERIFY2(
        window.openRun(m_base + QStringLiteral(".csv"), m_base + QStringLiteral(".json"), &error),
        qPrintable(error));
    const auto before = window.session()->runs()->runs().size();
    const int graphsBefore = plotOf<WaitTimePlot>(window)->graphCount();

    const auto refused = [&](const QString &first, const QString &second, const QString &file,
                             const QString &reason) {
        QString why;
        QVERIFY(!window.openRun(first, second, &why));
        QVERIFY2(why.contains(file) && why.contains(reason), qPrintable(why));
        QCOMPARE(window.session()->runs()->runs().size(), before);
        QCOMPARE(plotOf<WaitTimePlot>(window)->graphCount(), graphsBefore);
    };
    const QString missing = m_dir.filePath(QStringLiteral("gone.csv"));
    refused(missing, m_base + QStringLiteral(".json"), missing, QStringLiteral("cannot"));
    // A CSV with no JSON beside it.
    const QString lonely = m_dir.filePath(QStringLiteral("lonely.csv"));
    QVERIFY(QFile::copy(m_base + QStringLiteral(".csv"), lonely));
    refused(lonely, QString(), lonely, QStringLiteral("no summary JSON"));
    // A corrupt CSV: its line is named.
    const QString corrupt = m_dir.filePath(QStringLiteral("corrupt.csv"));
    {
        QFile in(m_base + QStringLiteral(".csv"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray text = in.readAll();
        text.replace(text.indexOf('\n', text.indexOf('\n') + 1) + 1, 3, "x,y");
        QFile out(corrupt);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text);
    }
    refused(corrupt, m_base + QStringLiteral(".json"), corrupt, QStringLiteral("line 3"));
    // A JSON that is not a run summary.
    const QString config = m_dir.filePath(QStringLiteral("config.json"));
    {
        QFile out(config);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write("{\"loader\": {}}");
    }
    refused(m_base + QStringLiteral(".csv"), config, config,
            QStringLiteral("not a LoaderLab run summary"));
}

void TestMainWindowRuns::checkboxesDecideWhatIsPlotted()
{
    MainWindow window;
    window.show();
    QString error;
    QVERIFY2(window.openRun(m_base + QStringLiteral(".csv"), QString(), &error), qPrintable(error));
    RunList *runs = window.session()->runs();
    const int opened = runs->runs()[1].id;
    const int withOverlay = visiblePlottables(window.plots());
    QTableWidget *table = childNamed<QTableWidget>(&window, "runsTable");

    // Unticking the opened run takes one graph off each of the five plots.
    table->item(1, 0)->setCheckState(Qt::Unchecked);
    QTRY_VERIFY(!runs->find(opened)->visible);
    QCOMPARE(visiblePlottables(window.plots()), withOverlay - 5);
    QCOMPARE(childNamed<QTableWidget>(&window, "runStatsTable")->rowCount(), 0);
    table->item(1, 0)->setCheckState(Qt::Checked);
    QTRY_VERIFY(runs->find(opened)->visible);
    QCOMPARE(visiblePlottables(window.plots()), withOverlay);

    // The live run's box hides its own series and leaves the opened run's.
    table->item(0, 0)->setCheckState(Qt::Unchecked);
    QTRY_VERIFY(!runs->live().visible);
    QVERIFY(visiblePlottables(window.plots()) < withOverlay);
    for (LivePlot *plot : window.plots())
        QVERIFY(!plot->liveVisible());
    QVERIFY(plotOf<WaitTimePlot>(window)->overlayGraphs()[0]->visible());
    table->item(0, 0)->setCheckState(Qt::Checked);
    QTRY_COMPARE(visiblePlottables(window.plots()), withOverlay);

    // A live run kept for comparison becomes one more run on every plot.
    RunConfig config = smallRun(2, 1000);
    config.epochs = 0;
    window.applyConfig(config);
    QVERIFY(window.startRun());
    QTRY_VERIFY(window.session()->trace()->size() > 20);
    // The window's runs keep the last --keep-batches batches, as headless runs do.
    QVERIFY(window.session()->trace()->retains());
    window.session()->stop();
    QVERIFY(window.session()->keepRun() > 0);
    QCOMPARE(runs->runs().size(), std::size_t(3));
    QCOMPARE(plotOf<WaitTimePlot>(window)->overlayGraphs().size(), std::size_t(2));
    QCOMPARE(visiblePlottables(window.plots()), withOverlay + 5);
    runs->remove(opened);
    QCOMPARE(plotOf<WaitTimePlot>(window)->overlayGraphs().size(), std::size_t(1));
    QCOMPARE(visiblePlottables(window.plots()), withOverlay);
}

// At 1280x800 the Runs dock grows as runs are added until four show whole in both
// tables, and stops there (a third of the window at most).
void TestMainWindowRuns::runsDockShowsTheRunsAt1280x800()
{
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *runs = window.session()->runs();
    auto *table = childNamed<QTableWidget>(&window, "runsTable");
    auto *stats = childNamed<QTableWidget>(&window, "runStatsTable");
    const auto log = std::make_shared<TraceLog>();
    for (int i = 0; i < 5; ++i) {
        RunEntry entry;
        entry.trace = log;
        entry.name = QStringLiteral("opened %1").arg(i);
        runs->add(entry);
        QApplication::processEvents();
        const int shown = std::min(i + 2, 4); // the live run and those added, up to 4
        for (QTableWidget *t : {table, stats})
            QTRY_VERIFY2(t->rowViewportPosition(shown - 1) + t->rowHeight(shown - 1)
                             <= t->viewport()->height(),
                         qPrintable(QStringLiteral("%1: row %2 cut at viewport height %3")
                                        .arg(t->objectName())
                                        .arg(shown)
                                        .arg(t->viewport()->height())));
    }
    QVERIFY(childNamed<QDockWidget>(&window, "runsDock")->height() <= window.height() / 3);
}

void TestMainWindowRuns::pytorchEngineRunsInTheWindow()
{
    MainWindow window;
    EngineChoice *engine = window.engineChoice();
    if (!engine->probed()) {
        QSignalSpy done(engine, &EngineChoice::probeDone);
        QVERIFY(done.wait(60'000));
    }
    if (!engine->pytorchAvailable())
        QSKIP(qPrintable(QStringLiteral("no PyTorch engine here: ") + engine->pytorchProblem()));
    // A config's engine chooses it.
    RunConfig config = smallRun(2, 40);
    config.engine = EngineKind::PyTorch;
    config.loader.strategy = Strategy::SampleParallel;
    window.applyConfig(config);
    QVERIFY(engine->pytorchChosen());
    // What PyTorch's DataLoader cannot do is greyed out, with the reason as tooltip,
    // and refused at Start, with the reason.
    auto *strategies = qobject_cast<QStandardItemModel *>(
        window.controlPanel()->findChild<QComboBox *>(QStringLiteral("strategyCombo"))->model());
    QVERIFY(!strategies->item(1)->isEnabled());
    QVERIFY2(strategies->item(1)->toolTip().contains(QStringLiteral("one worker")),
             qPrintable(strategies->item(1)->toolTip()));
    QVERIFY(!window.startRun());
    auto *datasetError = window.controlPanel()->findChild<QLabel *>(
        QStringLiteral("datasetErrorLabel"));
    QVERIFY2(datasetError->text().contains(QStringLiteral("sample-parallel")),
             qPrintable(datasetError->text()));
    // ... and under the Start button, which is always in view.
    auto *runError = childNamed<QLabel>(window.controlPanel(), "runErrorLabel");
    QVERIFY(!runError->isHidden());
    QVERIFY2(runError->text().startsWith(QStringLiteral("Cannot start: "))
                 && runError->text().contains(QStringLiteral("sample-parallel")),
             qPrintable(runError->text()));
    QVERIFY(!window.session()->trace());

    config.loader.strategy = Strategy::PerWorkerBatch;
    config.maxBatches = 40; // the window's runs have no epoch limit
    window.applyConfig(config);
    QVERIFY(window.startRun());
    QVERIFY(runError->isHidden()); // a start that works clears it
    QCOMPARE(window.session()->runEngine(), EngineKind::PyTorch);
    // Python starts, imports torch and builds the DataLoader: seconds.
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->finished(), 120'000);
    QTRY_COMPARE(window.session()->state(), RunState::Finished);
    const auto trace = window.session()->trace();
    QCOMPARE(trace->size(), std::size_t(40));
    // Drawn like a LoaderLab run: its waits on the plot, its workers' boxes.
    auto *waits = plotOf<WaitTimePlot>(window);
    QTRY_COMPARE(childNamed<QCPGraph>(waits, "waitGraph")->dataCount(), 40);
    auto *timeline = plotOf<WorkerTimelinePlot>(window);
    QTRY_COMPARE(childNamed<TimelinePlottable>(timeline, "timelineLanes")->syncedSpans(),
                 trace->spanCount());
    QVERIFY(trace->spanCount() >= 40);
    const RunReport report = window.session()->report();
    QCOMPARE(report.machine.versions.at("engine"), std::string("pytorch"));
    QCOMPARE(report.summary.batches, std::int64_t{40});
    // Kept, it is named for its engine.
    QVERIFY(window.session()->keepRun() > 0);
    QVERIFY2(window.session()->runs()->runs().back().name.contains(QStringLiteral("PyTorch")),
             qPrintable(window.session()->runs()->runs().back().name));

    // Until stopped: Pause holds PyTorch's DataLoader at a batch boundary and Resume
    // goes on, both markers; a slider change rebuilds it (a marker with before and
    // after); Stop ends it, worker processes and all.
    config.maxBatches = 0;
    window.applyConfig(config);
    QVERIFY(window.startRun());
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->trace()->size() > 5, 60'000);
    auto *pause = window.controlPanel()->findChild<QPushButton *>(QStringLiteral("pauseButton"));
    QVERIFY(pause && pause->isEnabled());
    pause->click();
    QVERIFY(pause->isChecked());
    QCOMPARE(window.session()->state(), RunState::Paused);
    const auto hasMarker = [&](MarkerKind kind) {
        const auto markers = window.session()->trace()->markers();
        return std::any_of(markers.begin(), markers.end(),
                           [kind](const TraceMarker &m) { return m.kind == kind; });
    };
    QTRY_VERIFY_WITH_TIMEOUT(hasMarker(MarkerKind::Pause), 10'000);
    pause->click();
    QTRY_VERIFY_WITH_TIMEOUT(hasMarker(MarkerKind::Resume), 10'000);
    const std::size_t before = window.session()->trace()->size();
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->trace()->size() > before, 30'000);
    auto *workers = window.controlPanel()->findChild<QSpinBox *>(QStringLiteral("workersSpin"));
    QVERIFY(workers);
    workers->setValue(1);
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->config().loader.numWorkers == 1, 30'000);
    QVERIFY(hasMarker(MarkerKind::Reconfigure));
    window.session()->stop();
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->finished(), 5'000);
    QTRY_VERIFY(!window.session()->running());

    // Back on LoaderLab's engine, the next Start runs it.
    config.engine = EngineKind::LoaderLab;
    config.maxBatches = 0;
    window.applyConfig(config);
    QVERIFY(window.startRun());
    QCOMPARE(window.session()->runEngine(), EngineKind::LoaderLab);
    QTRY_VERIFY(window.session()->trace()->size() > 5);
    window.session()->stop();
}

LOADERLAB_TEST_MAIN(TestMainWindowRuns)
#include "test_main_window_runs.moc"
