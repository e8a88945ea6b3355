// The Experiments view's Predicted view on a real sweep stopped half-way: the heatmap
// shows for every measured cell the error that predictRecordedSweep
// (core/predict/sweep_prediction_error.h) gives it, and for a cell not measured its
// prediction alone; the table gains the predicted samples/s and the error; another
// calibration cell can be chosen; a cell that ends later is compared as it comes; off,
// the view is the measured one again.

#include "core/sweep/sweep_results.h"
#include "widgets/experiments/experiments_view.h"
#include "widgets/experiments/sweep_axes_editor.h"
#include "widgets/experiments/sweep_cells_model.h"
#include "widgets/experiments/sweep_heatmap.h"

#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QtTest>

#include <QComboBox>
#include <QLabel>
#include <QTableView>
#include <QToolButton>

#include <cmath>

using namespace loaderlab;
using nlohmann::json;

namespace {

RunConfig baseConfig()
{
    RunConfig config;
    config.dataset.kind = DatasetKind::Synthetic;
    config.dataset.syntheticShape = {3, 32, 32};
    config.dataset.syntheticSamples = 512;
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 5.0;
    return config;
}

int columnNamed(const SweepCellsModel *model, const QString &header)
{
    for (int c = 0; c < model->columnCount(); ++c) {
        if (model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString() == header)
            return c;
    }
    return -1;
}

int indexOf(const SweepAxis &axis, const json &value)
{
    return static_cast<int>(std::find(axis.values.begin(), axis.values.end(), value)
                            - axis.values.begin());
}

QStringList heatmapLabels(const SweepHeatmap *heatmap)
{
    QStringList labels;
    for (int i = 0; i < heatmap->itemCount(); ++i) {
        if (auto *text = qobject_cast<QCPItemText *>(heatmap->item(i)))
            labels << text->text();
    }
    return labels;
}

} // namespace

class TestExperimentsPredicted : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void heatmapAndTableShowTheErrorPerMeasuredCell();
    void aSkippedCellSaysSo();

private:
    // Compares the view with predictRecordedSweep on the folder as it is now.
    void compareWithCore(ExperimentsView &view, std::int64_t calibrationOrder);

    QTemporaryDir m_dir;
    QString m_sweep;
};

void TestExperimentsPredicted::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QStandardPaths::setTestModeEnabled(true);
    m_sweep = m_dir.filePath(QStringLiteral("sweep"));
}

void TestExperimentsPredicted::compareWithCore(ExperimentsView &view, std::int64_t calibrationOrder)
{
    SweepDefinition d;
    const auto records = readSweepRecords(m_sweep.toStdString(), &d);
    const SweepPrediction expected = predictRecordedSweep(m_sweep.toStdString(), d, records,
                                                          calibrationOrder);
    auto *model = childNamed<SweepCellsModel>(&view, "sweepCellsModel");
    auto *heatmap = childNamed<SweepHeatmap>(&view, "sweepHeatmap");
    QVERIFY(model->prediction());
    QCOMPARE(model->prediction()->calibrationOrder, expected.calibrationOrder);
    const int predictedColumn = columnNamed(model, QStringLiteral("Predicted samples/s"));
    const int errorColumn = columnNamed(model, QStringLiteral("Prediction error"));
    QVERIFY(predictedColumn >= 0 && errorColumn == predictedColumn + 1);
    // Right after the measured samples/s.
    QCOMPARE(model->headerData(predictedColumn - 1, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("Samples/s"));
    const QStringList labels = heatmapLabels(heatmap);
    for (const SweepCellPrediction &c : expected.cells) {
        const int row = static_cast<int>(c.grid);
        const int x = indexOf(d.axes[0], c.values[0]);
        const int y = indexOf(d.axes[1], c.values[1]);
        QCOMPARE(heatmap->gridAt(x, y), c.grid);
        QVERIFY(c.predicted);
        QCOMPARE(
            model->data(model->index(row, predictedColumn), SweepCellsModel::NumberRole).toDouble(),
            c.prediction.samplesPerSecond);
        const double error = c.error();
        if (c.measuredRuns > 0) {
            QVERIFY(!std::isnan(error));
            QCOMPARE(heatmap->value(x, y), error * 100.0);
            QCOMPARE(
                model->data(model->index(row, errorColumn), SweepCellsModel::NumberRole).toDouble(),
                error);
            QVERIFY(labels.contains(QString::asprintf("%+.1f %%", error * 100.0)));
        } else {
            // Not measured: the prediction alone, no error.
            QVERIFY(std::isnan(heatmap->value(x, y)));
            QVERIFY(!model->data(model->index(row, errorColumn), SweepCellsModel::NumberRole)
                         .isValid());
            QVERIFY2(
                labels.contains(QStringLiteral("pred. %1")
                                    .arg(QString::number(c.prediction.samplesPerSecond, 'f', 0))),
                qPrintable(labels.join(QLatin1Char('|'))));
        }
    }
}

void TestExperimentsPredicted::heatmapAndTableShowTheErrorPerMeasuredCell()
{
    ExperimentsView view;
    view.resize(1200, 800);
    view.show();
    view.setConfigSource([] { return baseConfig(); });
    auto *editor = childNamed<SweepAxesEditor>(&view, "sweepAxesEditor");
    editor->setDefinition({});
    QVERIFY(editor->setAxisValues("loader.num_workers", {1, 2}));
    QVERIFY(editor->setAxisValues("loader.batch_size", {16, 32}));
    editor->setBudget({SweepBudget::Kind::Samples, 1280});
    editor->setRepeats(1);
    view.setResultsFolder(m_sweep);
    QString error;
    QVERIFY2(view.start(&error), qPrintable(error));
    // Two cells measured, then stopped: the other two are not measured.
    auto *model = childNamed<SweepCellsModel>(&view, "sweepCellsModel");
    QTRY_VERIFY_WITH_TIMEOUT(model->records().size() >= 2, 60'000);
    view.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!view.running(), 10'000);
    QVERIFY2(model->records().size() < 4, "the sweep ended before it was stopped");
    const int measuredColumns = model->columnCount();
    const std::int64_t firstOrder = model->records().begin()->first;

    auto *table = childNamed<QTableView>(&view, "sweepTable");
    table->selectRow(1);
    auto *toggle = childNamed<QToolButton>(&view, "sweepPredictedToggle");
    toggle->click();
    QTRY_VERIFY_WITH_TIMEOUT(model->prediction() != nullptr, 30'000);
    QCOMPARE(model->columnCount(), measuredColumns + SweepCellsModel::kPredictedColumns);
    QCOMPARE(table->currentIndex().row(), 1); // the columns came, the selection stayed
    compareWithCore(view, -1);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(model->prediction()->calibrationOrder, firstOrder);
    QVERIFY(childNamed<QCPItemRect>(&view, "heatmapCalibrationMarker")->visible());
    QVERIFY(!childNamed<QCPItemRect>(&view, "heatmapBestMarker")->visible());
    const QString summary = childNamed<QLabel>(&view, "sweepPredictionSummary")->text();
    QVERIFY2(summary.startsWith(QStringLiteral("Median error of the predicted Throughput")),
             qPrintable(summary));

    // Calibrated from the other measured cell.
    auto *cells = childNamed<QComboBox>(&view, "predictionCalibrationCell");
    QCOMPARE(cells->count(), static_cast<int>(model->records().size()));
    cells->setCurrentIndex(1);
    const std::int64_t second = cells->currentData().toLongLong();
    QVERIFY(second != firstOrder);
    QTRY_COMPARE_WITH_TIMEOUT(model->prediction()->calibrationOrder, second, 30'000);
    compareWithCore(view, second);
    if (QTest::currentTestFailed())
        return;

    // Resumed to its end: the cells measured now get their error, same calibration.
    QVERIFY2(view.resume(m_sweep, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(!view.running(), 60'000);
    QCOMPARE(model->records().size(), std::size_t{4});
    QTRY_COMPARE_WITH_TIMEOUT(model->prediction() ? model->prediction()->measuredAndPredicted() : 0,
                              4, 30'000);
    compareWithCore(view, -1);
    if (QTest::currentTestFailed())
        return;

    // Off: the measured heatmap and table again.
    toggle->click();
    QVERIFY(!model->prediction());
    QCOMPARE(model->columnCount(), measuredColumns);
    auto *heatmap = childNamed<SweepHeatmap>(&view, "sweepHeatmap");
    QCOMPARE(heatmap->value(0, 0), model->stats(0)->throughputMean);
}

void TestExperimentsPredicted::aSkippedCellSaysSo()
{
    // A cell `sweep --predict-first` did not run: a record of state "skipped".
    SweepDefinition d;
    auto records = readSweepRecords(m_sweep.toStdString(), &d);
    QCOMPARE(records.size(), std::size_t{4});
    SweepRecord &skipped = records.at(3);
    skipped.state = "skipped";
    skipped.summary = nullptr;
    skipped.trace.clear();
    skipped.cellSeconds = 0.0;
    skipped.predicted = json{{"samples_per_sec_mean", 1234.5}};
    SweepCellsModel model;
    model.setSweep(d, records);
    QCOMPARE(model.skippedGrids(), std::vector<std::int64_t>{skipped.grid});
    const int state = model.axisCount();
    const int row = static_cast<int>(skipped.grid);
    QCOMPARE(model.data(model.index(row, state), Qt::DisplayRole).toString(),
             QStringLiteral("skipped"));
    QCOMPARE(model.data(model.index(0, state), Qt::DisplayRole).toString(), QStringLiteral("done"));
    SweepHeatmap heatmap;
    heatmap.plotSweep(d, model.analysis(), 0, 1, "samples_per_sec", model.skippedGrids());
    QCOMPARE(heatmapLabels(&heatmap).count(QStringLiteral("skipped")), 1);
    const int x = indexOf(d.axes[0], skipped.values[0]);
    const int y = indexOf(d.axes[1], skipped.values[1]);
    QVERIFY(std::isnan(heatmap.value(x, y)));
    // Predicted, not measured: the prediction alone on the map.
    const auto prediction = std::make_shared<const SweepPrediction>(
        predictRecordedSweep(m_sweep.toStdString(), d, records));
    model.setPrediction(prediction);
    heatmap.plotPrediction(d, *prediction, 0, 1, "samples_per_sec");
    QVERIFY(std::isnan(heatmap.value(x, y)));
    QVERIFY(heatmapLabels(&heatmap).contains(
        QStringLiteral("pred. %1")
            .arg(QString::number(prediction->cells[skipped.grid].prediction.samplesPerSecond, 'f',
                                 0))));
}

LOADERLAB_TEST_MAIN(TestExperimentsPredicted)
#include "test_experiments_predicted.moc"
