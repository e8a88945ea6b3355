// The Experiments view running real sweeps (the sleep step on small synthetic samples):
// the table, the heatmap and the line plots hold the figures the results folder holds,
// the best cell is framed, a cell's batches come from its trace, Stop is prompt and
// leaves no thread, Resume runs only the missing cells, a folder of another sweep is
// refused with the reason, and exports are valid and never replace a good file with a
// broken one.

#include "tests/support/thread_count.h"

#include "core/io/trace_csv.h"
#include "core/sweep/sweep_analysis.h"
#include "core/sweep/sweep_results.h"
#include "widgets/experiments/experiments_view.h"
#include "widgets/experiments/max_batch_panel.h"
#include "widgets/experiments/sweep_axes_editor.h"
#include "widgets/experiments/sweep_cell_detail.h"
#include "widgets/experiments/sweep_cells_model.h"
#include "widgets/experiments/sweep_heatmap.h"
#include "widgets/experiments/sweep_line_plots.h"
#include "widgets/plots/timeline_plottable.h"
#include "widgets/plots/wait_time_plot.h"
#include "widgets/plots/worker_timeline_plot.h"

#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QtTest>

#include <QImage>
#include <QPushButton>
#include <QTableView>
#include <QTreeWidget>

#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <map>
#include <sstream>

#include <sys/resource.h>

using namespace loaderlab;
using nlohmann::json;

namespace {

// Synthetic 3x32x32 samples and a simulated step: each cell takes well under a second.
RunConfig viewConfig(double sleepPerBatchMs)
{
    RunConfig config;
    config.dataset.kind = DatasetKind::Synthetic;
    config.dataset.syntheticShape = {3, 32, 32};
    config.dataset.syntheticSamples = 512;
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = sleepPerBatchMs;
    return config;
}

// Workers {1, 2} x batch {16, 32} and nothing else checked.
void setUpGrid(ExperimentsView &view, double samples, double sleepPerBatchMs)
{
    view.setConfigSource([sleepPerBatchMs] { return viewConfig(sleepPerBatchMs); });
    SweepAxesEditor *editor = childNamed<SweepAxesEditor>(&view, "sweepAxesEditor");
    editor->setDefinition({});
    QVERIFY(editor->setAxisValues("loader.num_workers", {1, 2}));
    QVERIFY(editor->setAxisValues("loader.batch_size", {16, 32}));
    editor->setBudget({SweepBudget::Kind::Samples, samples});
    editor->setRepeats(1);
    QCOMPARE(editor->runCount(), std::int64_t{4});
}

SweepAnalysis analysisOf(const QString &dir, SweepDefinition *definition = nullptr)
{
    SweepDefinition d;
    const auto records = readSweepRecords(dir.toStdString(), &d);
    if (definition)
        *definition = d;
    return analyzeSweep(d, records);
}

int viewIndexOf(const SweepAxis &axis, const json &value)
{
    return static_cast<int>(std::find(axis.values.begin(), axis.values.end(), value)
                            - axis.values.begin());
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b));
}

QByteArray contents(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestExperimentsView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void heatmapAndTableHoldTheResultsFigures();
    void aCellShowsItsBatches();
    void stopIsPromptAndResumeRunsOnlyTheMissingCells();
    void failedCellsAreEmptyAndSayWhy();
    void anotherSweepInTheFolderIsRefused();
    void exportsAreValidAndAFailedOneKeepsTheOldFile();
    void axesEditorChecksValues();
    void cellTraceReadsBackFromCsv();
    void maxBatchWithoutLibTorchSaysWhy();
    void devicesSweepPlotsSpeedupAndEfficiency();

private:
    // The folder of the finished 2 x 2 sweep the tests share.
    QString finishedSweep();

    QTemporaryDir m_dir;
    QString m_finished;
};

void TestExperimentsView::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QStandardPaths::setTestModeEnabled(true);
}

QString TestExperimentsView::finishedSweep()
{
    if (!m_finished.isEmpty())
        return m_finished;
    ExperimentsView view;
    setUpGrid(view, 640, 2.0);
    const QString dir = m_dir.filePath(QStringLiteral("finished"));
    view.setResultsFolder(dir);
    QString error;
    if (!view.start(&error))
        qFatal("cannot start: %s", qPrintable(error));
    if (!QTest::qWaitFor([&] { return !view.running(); }, 120'000))
        qFatal("the sweep did not end");
    m_finished = dir;
    return dir;
}

void TestExperimentsView::heatmapAndTableHoldTheResultsFigures()
{
    ExperimentsView view;
    view.resize(1200, 800);
    view.show();
    setUpGrid(view, 640, 2.0);
    const QString dir = m_dir.filePath(QStringLiteral("figures"));
    view.setResultsFolder(dir);
    QString error;
    QVERIFY2(view.start(&error), qPrintable(error));
    QVERIFY(view.running());
    QTRY_VERIFY_WITH_TIMEOUT(!view.running(), 120'000);
    QVERIFY2(view.errorText().isEmpty(), qPrintable(view.errorText()));
    m_finished = dir; // later tests reuse it

    // One row per cell, every one done.
    SweepCellsModel *model = childNamed<SweepCellsModel>(&view, "sweepCellsModel");
    QCOMPARE(model->rowCount(), 4);
    for (int row = 0; row < 4; ++row)
        QCOMPARE(model->data(model->index(row, 2), Qt::DisplayRole).toString(),
                 QStringLiteral("done"));

    // The figures read back from cells.jsonl, independently of the view.
    SweepDefinition d;
    const SweepAnalysis analysis = analysisOf(dir, &d);
    QCOMPARE(analysis.cells.size(), std::size_t{4});
    const int workers = 0; // axis order as checked: workers, then batch size
    const int batch = 1;
    QCOMPARE(d.axes[workers].key, std::string("loader.num_workers"));

    SweepHeatmap *heatmap = childNamed<SweepHeatmap>(&view, "sweepHeatmap");
    for (const std::string figure : {"samples_per_sec", "end_to_end_s", "wait_p95_ms"}) {
        view.setHeatmap(figure, workers, batch);
        QCPColorMapData *data = childNamed<QCPColorMap>(heatmap, "heatmapColorMap")->data();
        QCOMPARE(data->keySize(), 2);
        QCOMPARE(data->valueSize(), 2);
        const SweepCellStats *best = nullptr;
        for (const SweepCellStats &c : analysis.cells) {
            const int x = viewIndexOf(d.axes[workers], c.values[workers]);
            const int y = viewIndexOf(d.axes[batch], c.values[batch]);
            QVERIFY2(close(data->cell(x, y), c.figure(figure)),
                     qPrintable(QStringLiteral("%1 at (%2, %3): %4 vs %5")
                                    .arg(QString::fromStdString(figure))
                                    .arg(x)
                                    .arg(y)
                                    .arg(data->cell(x, y))
                                    .arg(c.figure(figure))));
            // More samples/s is better; less time or wait is better.
            const bool better = figure == "samples_per_sec"
                                    ? !best || c.figure(figure) > best->figure(figure)
                                    : !best || c.figure(figure) < best->figure(figure);
            if (better)
                best = &c;
        }
        // The frame sits on the best cell.
        const int bx = viewIndexOf(d.axes[workers], best->values[workers]);
        const int by = viewIndexOf(d.axes[batch], best->values[batch]);
        QCOMPARE(heatmap->bestCell(), std::make_optional(std::make_pair(bx, by)));
        QVERIFY(childNamed<QCPItemRect>(heatmap, "heatmapBestMarker")->visible());
        const QPointF topLeft =
            childNamed<QCPItemRect>(heatmap, "heatmapBestMarker")->topLeft->coords();
        const QPointF bottomRight =
            childNamed<QCPItemRect>(heatmap, "heatmapBestMarker")->bottomRight->coords();
        QVERIFY(topLeft.x() < bx && bx < bottomRight.x());
        QVERIFY(bottomRight.y() < by && by < topLeft.y());
        QCOMPARE(heatmap->gridAt(bx, by), best->grid);
    }

    // The table shows the same throughput (rounded to 0.1).
    for (const SweepCellStats &c : analysis.cells) {
        const QString shown = model
                                  ->data(model->index(static_cast<int>(c.grid),
                                                      2 + 1 + SweepCellsModel::Throughput),
                                         Qt::DisplayRole)
                                  .toString();
        QCOMPARE(shown, QString::number(c.throughputMean, 'f', 1));
    }

    // The recommendation is analyzeSweep's, pointing to the window's Repeats field
    // where the command line's names --repeats.
    const QString sentence = QString::fromStdString(analysis.recommendations.front().sentence)
                                 .replace(QStringLiteral("use --repeats"),
                                          QStringLiteral("set Repeats to 2 or more"));
    QVERIFY2(childNamed<QLabel>(&view, "sweepRecommendation")->text().contains(sentence),
             qPrintable(childNamed<QLabel>(&view, "sweepRecommendation")->text()));

    // End-to-end time against workers: one line per batch size, the cells' figures.
    QCustomPlot *lines = childNamed<QCustomPlot>(&view, "sweepEndToEndPlot");
    QCOMPARE(lines->graphCount(), 2);
    for (int g = 0; g < 2; ++g) {
        QCOMPARE(lines->graph(g)->dataCount(), 2);
        for (int i = 0; i < 2; ++i) {
            const double w = lines->graph(g)->data()->at(i)->key;
            const auto cell = std::find_if(
                analysis.cells.begin(), analysis.cells.end(), [&](const SweepCellStats &c) {
                    return c.values[workers].get<double>() == w
                           && lines->graph(g)->name().endsWith(
                               QString::number(c.values[batch].get<int>()));
                });
            QVERIFY(cell != analysis.cells.end());
            QCOMPARE(lines->graph(g)->data()->at(i)->value, cell->endToEndMean);
        }
    }
}

void TestExperimentsView::aCellShowsItsBatches()
{
    const QString dir = finishedSweep();
    ExperimentsView view;
    view.resize(1200, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QString error;
    QVERIFY2(view.resume(dir, &error), qPrintable(error)); // nothing left to run
    QTRY_VERIFY_WITH_TIMEOUT(!view.running(), 30'000);
    QVERIFY(childNamed<QLabel>(&view, "sweepProgress")
                ->text()
                .contains(QStringLiteral("4 found done")));

    // A table row: its per-batch waits from its CSV, one lane per worker.
    SweepDefinition d;
    const auto records = readSweepRecords(dir.toStdString(), &d);
    for (const auto &[order, record] : records) {
        childNamed<QTableView>(&view, "sweepTable")->selectRow(static_cast<int>(record.grid));
        const auto batches = loadTraceCsv(
            QDir(dir).filePath(QString::fromStdString(record.trace)).toStdString());
        QCOMPARE(
            static_cast<std::size_t>(
                childNamed<QCPGraph>(
                    childNamed<SweepCellDetail>(&view, "sweepCellDetail")->waitPlot(), "waitGraph")
                    ->dataCount()),
            batches.size());
        QCOMPARE(childNamed<TimelinePlottable>(
                     childNamed<SweepCellDetail>(&view, "sweepCellDetail")->timelinePlot(),
                     "timelineLanes")
                     ->workerLanes(),
                 record.values[0].get<int>());
        QCOMPARE(childNamed<QCPGraph>(
                     childNamed<SweepCellDetail>(&view, "sweepCellDetail")->waitPlot(), "waitGraph")
                     ->data()
                     ->at(3)
                     ->value,
                 static_cast<double>(batches[3].waitNs()) / 1e6);
    }

    // A click on a heatmap cell shows that cell.
    SweepHeatmap *heatmap = childNamed<SweepHeatmap>(&view, "sweepHeatmap");
    view.setHeatmap("samples_per_sec", 0, 1);
    heatmap->replot();
    childNamed<QTableView>(&view, "sweepTable")->selectRow(0);
    const QPoint pixel(static_cast<int>(heatmap->xAxis->coordToPixel(1)),
                       static_cast<int>(heatmap->yAxis->coordToPixel(1)));
    QTest::mouseClick(heatmap, Qt::LeftButton, {}, pixel);
    QCOMPARE(heatmap->gridAt(1, 1), std::int64_t{3}); // 2 workers, batch 32
    QTRY_COMPARE(childNamed<QTableView>(&view, "sweepTable")->currentIndex().row(), 3);
    QVERIFY2(childNamed<SweepCellDetail>(&view, "sweepCellDetail")
                 ->title()
                 .startsWith(QStringLiteral("2 workers, batch 32")),
             qPrintable(childNamed<SweepCellDetail>(&view, "sweepCellDetail")->title()));
}

void TestExperimentsView::stopIsPromptAndResumeRunsOnlyTheMissingCells()
{
    const int threadsBefore = processThreadCount();
    const QString dir = m_dir.filePath(QStringLiteral("stopped"));
    std::map<std::int64_t, SweepRecord> before;
    {
        ExperimentsView view;
        // 40 and 20 batches of 25 ms: about a second and half a second per cell.
        setUpGrid(view, 640, 25.0);
        view.setResultsFolder(dir);
        QString error;
        QVERIFY2(view.start(&error), qPrintable(error));
        // Stop in the middle of the second cell.
        QTRY_VERIFY_WITH_TIMEOUT(
            childNamed<SweepCellsModel>(&view, "sweepCellsModel")->records().size() == 1, 30'000);
        // The first cell is in the heatmap; the others are empty (NaN) until they end.
        view.setHeatmap("samples_per_sec", 0, 1);
        QVERIFY(!std::isnan(childNamed<QCPColorMap>(&view, "heatmapColorMap")->data()->cell(0, 0)));
        QVERIFY(std::isnan(childNamed<QCPColorMap>(&view, "heatmapColorMap")->data()->cell(1, 0)));
        QVERIFY(std::isnan(childNamed<QCPColorMap>(&view, "heatmapColorMap")->data()->cell(1, 1)));
        QCOMPARE(childNamed<SweepHeatmap>(&view, "sweepHeatmap")->bestCell(),
                 std::make_optional(std::make_pair(0, 0)));
        QTest::qWait(300);
        QVERIFY(view.running());
        const auto stopAt = std::chrono::steady_clock::now();
        view.stop();
        QTRY_VERIFY_WITH_TIMEOUT(!view.running(), 5'000);
        const auto took = std::chrono::steady_clock::now() - stopAt;
        QVERIFY2(took < std::chrono::seconds(2), "a stop waits for the running cell to end");
        QVERIFY(childNamed<QLabel>(&view, "sweepProgress")
                    ->text()
                    .startsWith(QStringLiteral("Stopped")));
        before = readSweepRecords(dir.toStdString());
        QCOMPARE(before.size(), std::size_t{1}); // the stopped cell is not recorded
    }
    QTRY_COMPARE(processThreadCount(), threadsBefore);

    // Another view (another session) resumes: only the 3 missing cells run.
    ExperimentsView view;
    SweepOutcome outcome;
    connect(&view, &ExperimentsView::finished, this,
            [&outcome](const SweepOutcome &o) { outcome = o; });
    QString error;
    QVERIFY2(view.resume(dir, &error), qPrintable(error));
    QCOMPARE(childNamed<SweepAxesEditor>(&view, "sweepAxesEditor")->runCount(),
             std::int64_t{4}); // the folder's sweep is shown
    QTRY_VERIFY_WITH_TIMEOUT(!view.running(), 60'000);
    QCOMPARE(outcome.skipped, 1);
    QCOMPARE(outcome.ran, 3);
    QVERIFY(!outcome.stopped);
    const auto after = readSweepRecords(dir.toStdString());
    QCOMPARE(after.size(), std::size_t{4});
    for (const auto &[order, record] : before)
        QCOMPARE(toJson(after.at(order)), toJson(record)); // kept, not run again
    QCOMPARE(childNamed<SweepCellsModel>(&view, "sweepCellsModel")->rowCount(), 4);
    QVERIFY(childNamed<SweepCellsModel>(&view, "sweepCellsModel")->stats(3) != nullptr);
}

void TestExperimentsView::failedCellsAreEmptyAndSayWhy()
{
    // An IDX dataset without a path cannot be opened: those cells fail, the others run.
    ExperimentsView view;
    view.setConfigSource([] { return viewConfig(1.0); });
    SweepAxesEditor *editor = childNamed<SweepAxesEditor>(&view, "sweepAxesEditor");
    editor->setDefinition({});
    QVERIFY(editor->setAxisValues("loader.num_workers", {1, 2}));
    QVERIFY(editor->setAxisValues("dataset.kind", {"synthetic", "idx"}));
    editor->setBudget({SweepBudget::Kind::Samples, 160});
    view.setResultsFolder(m_dir.filePath(QStringLiteral("failing")));
    QString error;
    QVERIFY2(view.start(&error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(!view.running(), 60'000);

    SweepCellsModel *model = childNamed<SweepCellsModel>(&view, "sweepCellsModel");
    const int state = model->axisCount();
    const int errorColumn = state + 1 + SweepCellsModel::Error;
    view.setHeatmap("samples_per_sec", 0, 1);
    SweepHeatmap *heatmap = childNamed<SweepHeatmap>(&view, "sweepHeatmap");
    QStringList labels;
    for (int i = 0; i < heatmap->itemCount(); ++i) {
        if (auto *text = qobject_cast<QCPItemText *>(heatmap->item(i)))
            labels << text->text();
    }
    QCOMPARE(labels.count(QStringLiteral("failed")), 2);
    for (int row = 0; row < model->rowCount(); ++row) {
        const bool idx = model->values(row)[1] == json("idx");
        const int x = viewIndexOf(model->definition().axes[0], model->values(row)[0]);
        const int y = viewIndexOf(model->definition().axes[1], model->values(row)[1]);
        QCOMPARE(
            std::isnan(childNamed<QCPColorMap>(heatmap, "heatmapColorMap")->data()->cell(x, y)),
            idx);
        QCOMPARE(model->data(model->index(row, state), Qt::DisplayRole).toString(),
                 idx ? QStringLiteral("failed") : QStringLiteral("done"));
        const QString why = model->data(model->index(row, errorColumn), Qt::DisplayRole).toString();
        QCOMPARE(why.isEmpty(), !idx);
        if (idx) {
            QVERIFY2(why == QString::fromStdString(model->stats(row)->error), qPrintable(why));
            QString reason;
            QVERIFY(!view.showCell(row, &reason)); // no trace: the reason instead
            QVERIFY2(childNamed<SweepCellDetail>(&view, "sweepCellDetail")->title().contains(why),
                     qPrintable(childNamed<SweepCellDetail>(&view, "sweepCellDetail")->title()));
        }
    }
    // The best cell is one that ran.
    QVERIFY(heatmap->bestCell().has_value());
    QCOMPARE(heatmap->bestCell()->second, 0);
}

void TestExperimentsView::anotherSweepInTheFolderIsRefused()
{
    const QString dir = finishedSweep();
    ExperimentsView view;
    setUpGrid(view, 640, 2.0);
    QVERIFY(childNamed<SweepAxesEditor>(&view, "sweepAxesEditor")
                ->setAxisValues("loader.batch_size", {16, 64}));
    view.setResultsFolder(dir);
    SweepDefinition other;
    other.base = viewConfig(2.0);
    other.axes = childNamed<SweepAxesEditor>(&view, "sweepAxesEditor")->axes();
    other.budget = childNamed<SweepAxesEditor>(&view, "sweepAxesEditor")->budget();
    QString expected;
    try {
        SweepResults results(dir.toStdString(), other);
        QFAIL("the folder of another sweep was accepted");
    } catch (const std::invalid_argument &e) {
        expected = QString::fromStdString(e.what());
    }
    QString error;
    QVERIFY(!view.start(&error));
    QCOMPARE(error, expected);
    QVERIFY2(error.contains(QStringLiteral("loader.batch_size")), qPrintable(error));
    QCOMPARE(view.errorText(), expected); // shown to the user
    QVERIFY(!view.running());
    QCOMPARE(readSweepRecords(dir.toStdString()).size(), std::size_t{4});

    // Not a results folder at all.
    QVERIFY(!view.resume(m_dir.filePath(QStringLiteral("nothing-here")), &error));
    QVERIFY2(error.contains(QStringLiteral("sweep.json")), qPrintable(error));
}

void TestExperimentsView::exportsAreValidAndAFailedOneKeepsTheOldFile()
{
    const QString dir = finishedSweep();
    ExperimentsView view;
    view.resize(1200, 800);
    view.show();
    QString error;
    QVERIFY2(view.resume(dir, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(!view.running(), 30'000);

    const QString out = m_dir.filePath(QStringLiteral("exports"));
    QVERIFY(QDir().mkpath(out));
    QVERIFY2(view.exportPlots(out, QStringLiteral("png"), &error), qPrintable(error));
    for (const char *name : {"sweep_heatmap", "sweep_end_to_end", "sweep_step_per_sample",
                             "sweep_scaling", "cell_wait_time", "cell_worker_timeline"}) {
        const QImage image(QDir(out).filePath(QLatin1String(name) + QStringLiteral(".png")));
        QVERIFY2(!image.isNull() && image.width() >= 200 && image.height() >= 150, name);
    }
    QVERIFY2(view.exportPlots(out, QStringLiteral("svg"), &error), qPrintable(error));
    QVERIFY(contents(QDir(out).filePath(QStringLiteral("sweep_heatmap.svg"))).contains("<svg"));

    // The table as CSV: a header, one row per cell, the unrounded figures.
    const QString csv = QDir(out).filePath(QStringLiteral("cells.csv"));
    QVERIFY2(view.exportTableCsv(csv, &error), qPrintable(error));
    const QList<QByteArray> lines = contents(csv).trimmed().split('\n');
    QCOMPARE(lines.size(), 5);
    QVERIFY(lines[0].startsWith("loader.num_workers,loader.batch_size,state,runs,failures,"
                                "end_to_end_s,"));
    SweepDefinition d;
    const SweepAnalysis analysis = analysisOf(dir, &d);
    for (const SweepCellStats &c : analysis.cells) {
        const QList<QByteArray> fields = lines[static_cast<int>(c.grid) + 1].split(',');
        QCOMPARE(fields[0].toInt(), c.values[0].get<int>());
        QCOMPARE(fields[1].toInt(), c.values[1].get<int>());
        QCOMPARE(fields[2], QByteArray("done"));
        QVERIFY(std::abs(fields[8].toDouble() / c.throughputMean - 1) < 1e-5); // %.6g
    }

    // A path that cannot be written: an error naming it.
    const QString nowhere = QStringLiteral("/nonexistent-dir/cells.csv");
    QVERIFY(!view.exportTableCsv(nowhere, &error));
    QVERIFY2(error.contains(nowhere), qPrintable(error));

    // A write that fails half way (the file size limit stands in for a full disk): the
    // files there before stay as they were. (Their content differs from what the export
    // writes, so a replaced file shows.)
    const QString png = QDir(out).filePath(QStringLiteral("sweep_heatmap.png"));
    const QByteArray goodCsv = "an earlier table\n";
    const QByteArray goodPng = "an earlier heatmap";
    for (const auto &[path, bytes] : {std::pair(csv, goodCsv), std::pair(png, goodPng)}) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(bytes);
    }
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit old{};
    QCOMPARE(getrlimit(RLIMIT_FSIZE, &old), 0);
    rlimit small = old;
    small.rlim_cur = 100;
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
    QString csvError;
    QString pngError;
    const bool csvWritten = view.exportTableCsv(csv, &csvError);
    const bool pngWritten = view.exportPlots(out, QStringLiteral("png"), &pngError);
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &old), 0);
    QVERIFY(!csvWritten);
    QVERIFY2(csvError.contains(csv), qPrintable(csvError));
    QVERIFY(!pngWritten);
    QVERIFY2(pngError.contains(QStringLiteral("sweep_heatmap.png")), qPrintable(pngError));
    QCOMPARE(contents(csv), goodCsv);
    QCOMPARE(contents(png), goodPng);
    const QStringList leftovers = QDir(out).entryList(
        {QStringLiteral("*.part"), QStringLiteral("*.png.*")}, QDir::Files);
    QVERIFY2(leftovers.isEmpty(), qPrintable(leftovers.join(QLatin1Char(' '))));
}

void TestExperimentsView::axesEditorChecksValues()
{
    SweepAxesEditor editor;
    // The dataset axis offers every kind of the table of kinds, in its order.
    auto *tree = editor.findChild<QTreeWidget *>(QStringLiteral("sweepAxes"));
    QVERIFY(tree);
    QStringList offered;
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *axis = tree->topLevelItem(i);
        if (!axis->text(0).endsWith(QStringLiteral("(dataset.kind)")))
            continue;
        for (int v = 0; v < axis->childCount(); ++v)
            offered << axis->child(v)->text(0);
    }
    QStringList kinds;
    for (const DatasetKindInfo &kind : datasetKinds())
        kinds << QString::fromLatin1(kind.name.data());
    QCOMPARE(offered, kinds);
    editor.setDefinition({});
    QCOMPARE(editor.runCount(), std::int64_t{0});
    QVERIFY(editor.setAxisValues("loader.num_workers", {1, 2}));
    QString error;
    QVERIFY2(editor.addValue("loader.num_workers", QStringLiteral("12"), &error),
             qPrintable(error));
    QVERIFY(!editor.addValue("loader.num_workers", QStringLiteral("many"), &error));
    QVERIFY2(error.contains(QStringLiteral("loader.num_workers")), qPrintable(error));
    QVERIFY(!editor.addValue("loader.num_workers", QStringLiteral("5000"), &error));
    QVERIFY2(error.contains(QStringLiteral("loader.num_workers")), qPrintable(error));
    QVERIFY(editor.addValue("dataset.kind", QStringLiteral("idx"), &error));
    editor.setRepeats(3);
    const auto axes = editor.axes();
    QCOMPARE(axes.size(), std::size_t{2});
    QCOMPARE(axes[0].values, (std::vector<json>{1, 2, 12}));
    QCOMPARE(axes[1].values, (std::vector<json>{"idx"}));
    QCOMPARE(editor.runCount(), std::int64_t{9});
    auto *count = editor.findChild<QLabel *>(QStringLiteral("runCount"));
    QVERIFY2(count->text().contains(QStringLiteral("3 × 1"))
                 && count->text().contains(QStringLiteral("9")),
             qPrintable(count->text()));
}

void TestExperimentsView::cellTraceReadsBackFromCsv()
{
    std::vector<TraceRecord> records(3);
    for (int i = 0; i < 3; ++i) {
        TraceRecord &r = records[static_cast<std::size_t>(i)];
        r.index = i;
        r.worker = i == 2 ? kAllWorkers : i;
        r.samples = 16;
        r.loadStartNs = 1000 * i + 10;
        r.loadEndNs = 1000 * i + 500;
        r.requestNs = 1000 * i + 400;
        r.deliveryNs = 1000 * i + 600;
        r.computeStartNs = 1000 * i + 610;
        r.computeEndNs = 1000 * i + 900;
        r.readNs = 123456789012LL;
    }
    const std::string path = m_dir.filePath(QStringLiteral("trace.csv")).toStdString();
    saveTraceCsv(path, records);
    const auto log = SweepCellDetail::traceFromCsv(path, 2);
    QCOMPARE(log->size(), std::size_t{3});
    for (std::size_t i = 0; i < 3; ++i) {
        QCOMPARE((*log)[i].readNs, records[i].readNs);
        QCOMPARE((*log)[i].waitNs(), records[i].waitNs());
        QCOMPARE((*log)[i].computeNs(), records[i].computeNs());
        QCOMPARE((*log)[i].worker, records[i].worker);
    }
    // A span per batch on its worker's lane; the sample-parallel batch on every lane.
    QCOMPARE(log->spanCount(), std::size_t{4});
    QCOMPARE(log->span(1).worker, 1);
    QCOMPARE(log->span(2).worker, 0);
    QCOMPARE(log->span(3).worker, 1);
    QCOMPARE(log->span(3).startNs, records[2].loadStartNs);

    // A broken row names the file and the line.
    std::ofstream(path, std::ios::app) << "3,0,1,16,0,0,1,2\n";
    try {
        SweepCellDetail::traceFromCsv(path, 2);
        QFAIL("a broken row was read");
    } catch (const std::runtime_error &e) {
        const QString what = QString::fromUtf8(e.what());
        QVERIFY2(what.contains(QString::fromStdString(path))
                     && what.contains(QStringLiteral("line 5")),
                 qPrintable(what));
    }
}

void TestExperimentsView::maxBatchWithoutLibTorchSaysWhy()
{
    // This test links no LibTorch and registers no finder, as the window without it.
    ExperimentsView view;
    MaxBatchPanel *panel = childNamed<MaxBatchPanel>(&view, "maxBatchPanel");
    auto *find = panel->findChild<QPushButton *>(QStringLiteral("findMaxBatchButton"));
    QVERIFY(!find->isEnabled());
    QVERIFY2(find->toolTip().contains(QStringLiteral("LibTorch")), qPrintable(find->toolTip()));
    QString error;
    QVERIFY(!panel->start(&error));
    QCOMPARE(error, find->toolTip());
}

void TestExperimentsView::devicesSweepPlotsSpeedupAndEfficiency()
{
    // 1 and 2 simulated devices, one worker each: the scaling plot is along the
    // devices, speedup = samples/s over that of 1 device, efficiency = speedup / N.
    ExperimentsView view;
    view.setConfigSource([] {
        RunConfig c = viewConfig(5.0);
        c.loader.numWorkers = 1;
        c.loader.batchSize = 16;
        return c;
    });
    SweepAxesEditor *editor = childNamed<SweepAxesEditor>(&view, "sweepAxesEditor");
    editor->setDefinition({});
    QVERIFY(editor->setAxisValues("devices", {1, 2}));
    editor->setBudget({SweepBudget::Kind::Samples, 640});
    editor->setRepeats(1);
    const QString dir = m_dir.filePath(QStringLiteral("devices"));
    view.setResultsFolder(dir);
    QString error;
    QVERIFY2(view.start(&error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(!view.running(), 120'000);
    QVERIFY2(view.errorText().isEmpty(), qPrintable(view.errorText()));

    const SweepAnalysis analysis = analysisOf(dir);
    QCOMPARE(analysis.cells.size(), std::size_t{2});
    std::map<int, double> throughput;
    for (const SweepCellStats &c : analysis.cells)
        throughput[c.values[0].get<int>()] = c.throughputMean;
    QCustomPlot *plot = childNamed<QCustomPlot>(&view, "sweepScalingPlot");
    QCOMPARE(plot->xAxis->label().contains(QStringLiteral("devices"), Qt::CaseInsensitive), true);
    QCOMPARE(plot->graphCount(), 2); // speedup (left axis) and efficiency (right)
    QCPGraph *speedup = plot->graph(0);
    QCPGraph *efficiency = plot->graph(1);
    QCOMPARE(speedup->dataCount(), 2);
    QCOMPARE(speedup->data()->at(0)->key, 1.0);
    QCOMPARE(speedup->data()->at(1)->key, 2.0);
    QVERIFY(close(speedup->data()->at(1)->value, throughput[2] / throughput[1]));
    QVERIFY(close(efficiency->data()->at(1)->value, 100.0 * throughput[2] / throughput[1] / 2));
    QVERIFY(plot->yAxis2->visible());
}

LOADERLAB_TEST_MAIN(TestExperimentsView)
#include "test_experiments_view.moc"
