// The Limits of this machine dialog (widgets/limits/limits_dialog.h): a measured report
// drawn as the roofline with the window's runs, its table and binding sentence, the
// plot exported; a real measurement of a JPEG folder to its end and one stopped; and
// the stats panel's row for a run that replays its kept batches.

#include "widgets/limits/limits_dialog.h"
#include "widgets/plots/plot_export.h"
#include "widgets/plots/qcustomplot_include.h"
#include "widgets/session/stats_panel.h"

#include "tests/support/image_folder.h"
#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace loaderlab;

namespace {

Ceiling ceilingOf(CeilingKind kind, double rate)
{
    Ceiling c;
    c.kind = kind;
    c.samplesPerSecond = rate;
    c.basis = "measured so";
    return c;
}

CeilingReport handMadeReport()
{
    CeilingReport report;
    report.cores = 4;
    report.freeCores = 2.0;
    report.dataset = "photos";
    report.ceilings = {ceilingOf(CeilingKind::Storage, 2000), ceilingOf(CeilingKind::Decode, 800),
                       ceilingOf(CeilingKind::Handover, 100000), ceilingOf(CeilingKind::Step, 2400),
                       ceilingOf(CeilingKind::Preprocessed, 0.0)};
    report.ceilings.back().basis = "no tensor file for this dataset";
    return report;
}

} // namespace

class TestLimitsDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void drawsAReportWithTheRuns();
    void exportsThePlotAndSaysWhyItCannot();
    void aStepFarBelowTheDecodeGetsALogAxis();
    void measuresAFolderAndStops();
    void statsPanelShowsTheReplay();

private:
    QTemporaryDir m_dir;
};

void TestLimitsDialog::drawsAReportWithTheRuns()
{
    LimitsDialog dialog([] { return RunConfig{}; },
                        [] {
                            return std::vector<RooflinePoint>{{"kept", 2, 700.0}};
                        });
    CeilingReport report = handMadeReport();
    report.predicted = {{LiftKind::AsSet, 2, 800.0, false},
                        {LiftKind::MoreWorkers, 3, 800.0, false},
                        {LiftKind::MoreCores, 3, 1200.0, false},
                        {LiftKind::FasterStep, 2, 2000.0, true}};
    dialog.showReport(report);
    // Without the application's translator the plural forms read "worker(s)".
    const QString predicted = childNamed<QLabel>(&dialog, "limitsPredictedLabel")->text();
    for (const QString &part :
         {QStringLiteral("The job, predicted by the loader model from these "
                         "ceilings, in samples/s: as set (2 worker"),
          QStringLiteral(") 800; 3 worker"), QStringLiteral(" 800; a core more, 3 worker"),
          QStringLiteral(" 1200; a step twice as fast 2000 (storage binds).")})
        QVERIFY2(predicted.contains(part), qPrintable(predicted));
    auto *table = childNamed<QTableWidget>(&dialog, "limitsTable");
    QCOMPARE(table->rowCount(), 5);
    QCOMPARE(table->item(1, 0)->text(), QStringLiteral("decode"));
    QCOMPARE(table->item(1, 1)->text(), QStringLiteral("800"));
    QVERIFY(table->item(1, 2)->text().contains(QStringLiteral("400 samples/s each")));
    QCOMPARE(table->item(4, 1)->text(), QStringLiteral("–")); // not measured: why, on hover
    QCOMPARE(table->item(4, 0)->toolTip(), QStringLiteral("no tensor file for this dataset"));
    QCOMPARE(childNamed<QLabel>(&dialog, "limitsBindingLabel")->text(),
             QStringLiteral("The decode binds the loader at 800 samples/s, with 2.0 of 4 cores "
                            "free to it. The step alone could take 2400."));
    auto *plot = childNamed<QCustomPlot>(&dialog, "rooflinePlot");
    // Four measured ceilings and the run.
    QCOMPARE(plot->graphCount(), 5);
    QCOMPARE(plot->graph(1)->name(), QStringLiteral("decode 400/core"));
    QCOMPARE(plot->graph(2)->name(), QStringLiteral("hand-over 100000 (above)"));
    QCOMPARE(plot->graph(4)->name(), QStringLiteral("kept"));
    QCOMPARE(plot->graph(4)->data()->at(0)->key, 2.0);
    QCOMPARE(plot->graph(4)->data()->at(0)->value, 700.0);
    // The decode rises to 400 a core at x 5 (one past the 4 cores); the axis stops
    // above the step, with the hand-over off the top.
    QCOMPARE(plot->graph(1)->data()->at(1)->value, 2000.0);
    QCOMPARE(plot->yAxis->range().upper, 2400.0 * 1.15);
    QVERIFY(childNamed<QPushButton>(&dialog, "limitsExportButton")->isEnabled());
}

void TestLimitsDialog::aStepFarBelowTheDecodeGetsALogAxis()
{
    // Synthetic samples decode at 40,000 a core; the step takes 1,000: 80 times apart.
    CeilingReport report;
    report.cores = 2;
    report.freeCores = 2.0;
    report.ceilings = {ceilingOf(CeilingKind::Decode, 80000), ceilingOf(CeilingKind::Step, 1000)};
    LimitsDialog dialog([] { return RunConfig{}; },
                        [] {
                            return std::vector<RooflinePoint>{{"live", 2, 990.0}};
                        });
    dialog.showReport(report);
    auto *plot = childNamed<QCustomPlot>(&dialog, "rooflinePlot");
    QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLogarithmic);
    // From half the lowest line or run (the run, 990) to above the decode on 2 cores.
    QCOMPARE(plot->yAxis->range().lower, 495.0);
    QVERIFY(plot->yAxis->range().upper > 80000.0);
    // The decode enters the axis at 495 samples/s (495 / 40,000 of a core) and is
    // 40,000 a core all along, a curve on the logarithmic axis.
    const auto decode = plot->graph(0)->data();
    QCOMPARE(decode->at(0)->value, 495.0);
    QCOMPARE(decode->at(0)->key, 495.0 / 40000.0);
    QVERIFY(decode->size() > 10);
    for (int k = 0; k < decode->size(); ++k)
        QCOMPARE(decode->at(k)->value, 40000.0 * decode->at(k)->key);
    // Every core free: one marker.
    QCOMPARE(plot->itemCount(), 2); // its line and its label
    bool allFree = false;
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto *text = qobject_cast<QCPItemText *>(plot->item(i)))
            allFree = text->text() == QStringLiteral("2 cores, all free");
    QVERIFY(allFree);
    // Closer ceilings keep the linear axis.
    dialog.showReport(handMadeReport());
    QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLinear);
}

void TestLimitsDialog::exportsThePlotAndSaysWhyItCannot()
{
    LimitsDialog dialog([] { return RunConfig{}; }, {});
    dialog.resize(900, 680);
    dialog.show();
    dialog.showReport(handMadeReport());
    auto *plot = childNamed<QCustomPlot>(&dialog, "rooflinePlot");
    QString error;
    for (const char *name : {"roofline.png", "roofline.svg", "roofline.pdf"}) {
        const QString path = m_dir.filePath(QLatin1String(name));
        QVERIFY2(exportPlot(plot, path, 0, 0, &error), qPrintable(error));
        QVERIFY2(QFileInfo(path).size() > 1000, name);
    }
    const QString missing = m_dir.filePath(QStringLiteral("no such folder/roofline.png"));
    QVERIFY(!exportPlot(plot, missing, 0, 0, &error));
    QVERIFY2(error.contains(QStringLiteral("no such folder")), qPrintable(error));
    QVERIFY(!QFileInfo::exists(missing));
}

void TestLimitsDialog::measuresAFolderAndStops()
{
    const QString folder = writeImageFolder(m_dir.filePath(QStringLiteral("fotos ü")), 2, 8, 120,
                                            300);
    RunConfig config;
    config.dataset.kind = DatasetKind::ImageFolder;
    config.dataset.path = folder.toStdString();
    config.loader.numWorkers = 1;
    config.loader.batchSize = 4;
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 2.0;
    LimitsDialog dialog([config] { return config; }, {});
    QSignalSpy ended(&dialog, &LimitsDialog::measureEnded);
    childNamed<QDoubleSpinBox>(&dialog, "limitsSecondsSpin")->setValue(0.5);
    dialog.measure();
    QVERIFY(!childNamed<QPushButton>(&dialog, "limitsMeasureButton")->isEnabled());
    QVERIFY(ended.wait(120'000));
    auto *table = childNamed<QTableWidget>(&dialog, "limitsTable");
    QCOMPARE(table->rowCount(), 5);
    for (int row = 0; row < 4; ++row) // storage, decode, hand-over, step; the tensor sample too
        QVERIFY2(table->item(row, 1)->text() != QStringLiteral("–"),
                 qPrintable(table->item(row, 0)->text()));
    QVERIFY(childNamed<QLabel>(&dialog, "limitsStatusLabel")
                ->text()
                .startsWith(QStringLiteral("Measured on")));
    // The loader model's predictions from what was measured, starting with the run as set.
    QVERIFY(childNamed<QLabel>(&dialog, "limitsPredictedLabel")
                ->text()
                .contains(QStringLiteral("in samples/s: as set (1 worker")));
    QVERIFY(childNamed<QPushButton>(&dialog, "limitsMeasureButton")->isEnabled());

    // Stopped at once: the dialog says so and is ready again.
    ended.clear();
    dialog.measure();
    QVERIFY(childNamed<QPushButton>(&dialog, "limitsStopButton")->isEnabled());
    childNamed<QPushButton>(&dialog, "limitsStopButton")->click();
    QVERIFY(ended.wait(120'000));
    QCOMPARE(childNamed<QLabel>(&dialog, "limitsStatusLabel")->text(),
             QStringLiteral("Stopped: the ceilings measured so far."));
    QVERIFY(childNamed<QPushButton>(&dialog, "limitsMeasureButton")->isEnabled());
}

void TestLimitsDialog::statsPanelShowsTheReplay()
{
    StatsPanel panel;
    panel.show();
    auto *label = childNamed<QLabel>(&panel, "replayLabel");
    RunSummary summary;
    panel.showSummary(summary);
    QVERIFY(label->isHidden()); // no replay: no row
    summary.replay.firstBatch = 20;
    summary.replay.loadedSamplesPerSec = 480.8;
    summary.replay.replaySamplesPerSec = 1051.2;
    summary.replay.loadingShare = 1.0 - 480.8 / 1051.2;
    panel.showSummary(summary);
    QVERIFY(!label->isHidden());
    QCOMPARE(label->text(), QStringLiteral("1051.2/s from batch 20, against 480.8/s while "
                                           "loading: loading costs 54.3 % of the job's time"));
    panel.clear();
    QVERIFY(label->isHidden());
}

LOADERLAB_TEST_MAIN(TestLimitsDialog)
#include "test_limits_dialog.moc"
