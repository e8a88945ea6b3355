// The What if panel on real runs: a recorded run opened in the window (a JPEG folder
// loaded by 4 workers, input-bound on this machine's cores) is calibrated from, the
// panel starts at the run's own setting, and the figures it shows are those the loader
// model gives for the setting of its sliders; the plot holds the model's curve over the
// worker counts and the run's own measurement; the run itself is predicted back. On a
// run whose costs are known (tests/support/known_cost_run.h), the figures more or fewer
// cores must give, and, recorded while other programs took a core of its 2, what the
// machine as it was and an idle one give, with the note that says how busy it was.
// Without a run, or with too few batches, it says so; the live run is calibrated once
// it has ended.

#include "core/config/config_fields.h"
#include "core/io/run_reader.h"
#include "core/io/trace_csv.h"
#include "core/predict/calibration.h"
#include "core/stats/straggler.h"
#include "widgets/session/run_session.h"
#include "widgets/what_if/what_if_panel.h"
#include "widgets/what_if/what_if_plot.h"

#include "tests/support/graph_points.h"
#include "tests/support/image_folder.h"
#include "tests/support/known_cost_run.h"
#include "tests/support/recorded_run.h"
#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QtTest>

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>

#include <algorithm>
#include <cmath>

using namespace loaderlab;

namespace {

// The model's samples/s for a setting, as the panel's figures should read: the run's
// config with the setting's workers, batch size and devices, over the samples the run
// delivered (at most 2,000 batches), on `cores` cores: of an idle machine, or (the
// panel's default) with the other programs that kept the run's machine busy, if any,
// taking what they took.
double modelSays(const Calibration &cal, int cores, int devices, int workers, int batch,
                 bool idle = false, int nodes = 1)
{
    RunConfig c = cal.config;
    c.loader.numWorkers = workers;
    c.loader.batchSize = batch;
    c.devices = devices;
    c.maxSeconds = 0.0;
    c.maxBatches = std::min<std::int64_t>(2000, (cal.measuredSamples + batch - 1) / batch);
    if (nodes > 1) // every rank 20 batches past its warm-up
        c.maxBatches = std::max<std::int64_t>(c.maxBatches,
                                              nodes * devices * (c.warmupBatches + 20));
    ModelSetting setting = settingFor(cal, c, cores);
    setting.nodes = nodes;
    if (!idle) {
        setting.outsideCores = cal.setting.outsideCores;
        setting.otherLoad = cal.setting.otherLoad;
    }
    return predictLoader(costsFor(cal, c), setting).samplesPerSecond;
}

// `known` written as a run's files `NAME.csv` and `NAME.json` in `dir` and opened, as
// File → Open run does: the panel reads the run's cores and load from its JSON.
OpenedRun openedKnownRun(const QTemporaryDir &dir, const QString &name, const KnownCostRun &known)
{
    const std::string csv = dir.filePath(name + QStringLiteral(".csv")).toStdString();
    const std::string json = dir.filePath(name + QStringLiteral(".json")).toStdString();
    saveTraceCsv(csv, known.records);
    saveRunReport(json, known.report);
    return openRun(csv, json);
}

QString text(double value, int decimals = 1)
{
    return QString::number(value, 'f', decimals);
}

} // namespace

class TestWhatIfPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void slidersPredictWhatTheModelSays();
    void coresShareTheLoadingOfARunWithKnownCosts();
    void aBusyMachineAsItWasOrIdle();
    void saysWhyWithoutARunOrWithTooFewBatches();
    void theLiveRunIsCalibratedOnceItHasEnded();
    void aReconfiguredRunSaysWhatItRanAt();

private:
    QTemporaryDir m_dir;
    std::string m_images;
};

void TestWhatIfPanel::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QStandardPaths::setTestModeEnabled(true);
    m_images =
        writeImageFolder(m_dir.filePath(QStringLiteral("images")), 4, 60, 256, 384).toStdString();
}

void TestWhatIfPanel::slidersPredictWhatTheModelSays()
{
    // 4 workers decoding JPEGs for a 2 ms step: input-bound wherever it runs.
    RunConfig config;
    config.dataset.kind = DatasetKind::ImageFolder;
    config.dataset.path = m_images;
    config.loader.numWorkers = 4;
    config.loader.batchSize = 8;
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 2.0;
    const std::string csv = m_dir.filePath(QStringLiteral("jpeg.csv")).toStdString();
    const std::string json = m_dir.filePath(QStringLiteral("jpeg.json")).toStdString();
    writeRun(config, csv, json);
    const OpenedRun run = openRun(csv, json);
    const Calibration cal = calibrateFromRun(run.trace->records(), run.report);

    RunSession session;
    session.addOpenedRun(run);
    WhatIfPanel panel(&session);
    panel.resize(360, 1000);
    panel.show();
    auto *samples = childNamed<QLabel>(&panel, "whatIfSamplesPerSec");
    auto *cores = childNamed<QSpinBox>(&panel, "whatIfCores");
    auto *coresSlider = childNamed<QSlider>(&panel, "whatIfCoresSlider");
    auto *devicesSlider = childNamed<QSlider>(&panel, "whatIfDevicesSlider");
    // The opened run is chosen and calibrated from; the panel starts at its setting.
    QCOMPARE(childNamed<QComboBox>(&panel, "whatIfRun")->currentText(),
             RunList::nameFor(run.report.config));
    const int runCores = run.report.machine.logicalCores;
    QTRY_COMPARE_WITH_TIMEOUT(samples->text(), text(modelSays(cal, runCores, 1, 4, 8)), 20'000);
    QCOMPARE(cores->value(), runCores);
    QCOMPARE(childNamed<QSpinBox>(&panel, "whatIfWorkers")->value(), 4);
    QCOMPARE(childNamed<QSpinBox>(&panel, "whatIfBatchSize")->value(), 8);
    QCOMPARE(childNamed<QSpinBox>(&panel, "whatIfDevices")->value(), 1);

    // The run itself, measured and predicted back.
    const double measured = run.report.summary.samplesPerSecMean;
    const double back = predictLoader(cal.costs, cal.setting).samplesPerSecond;
    const QString self = childNamed<QLabel>(&panel, "whatIfSelfError")->text();
    QVERIFY2(self.contains(QStringLiteral("measured %1").arg(text(measured)))
                 && self.contains(QStringLiteral("predicted %1").arg(text(back))),
             qPrintable(self));
    QVERIFY(!childNamed<QLabel>(&panel, "whatIfAssumptions")->text().isEmpty());

    // Recorded while other programs kept this machine busy: the note, and from here on
    // an idle machine (a busy one is checked on a run of known costs below).
    auto *machine = childNamed<QComboBox>(&panel, "whatIfMachine");
    QCOMPARE(machine->isVisibleTo(&panel), cal.busyMachine.busy);
    QCOMPARE(childNamed<QLabel>(&panel, "whatIfBusyMachine")->isVisibleTo(&panel),
             cal.busyMachine.busy);
    if (cal.busyMachine.busy) {
        machine->setCurrentIndex(machine->findData(true));
        QTRY_COMPARE_WITH_TIMEOUT(samples->text(), text(modelSays(cal, runCores, 1, 4, 8, true)),
                                  20'000);
    }

    // 2 cores, then 4: the model's figure for each. (How much more 4 cores give depends
    // on what this machine measured; a run of known costs checks that below.)
    coresSlider->setValue(2);
    const double two = modelSays(cal, 2, 1, 4, 8, true);
    QTRY_COMPARE_WITH_TIMEOUT(samples->text(), text(two), 20'000);
    QCOMPARE(cores->value(), 2);
    coresSlider->setValue(4);
    const double four = modelSays(cal, 4, 1, 4, 8, true);
    QTRY_COMPARE_WITH_TIMEOUT(samples->text(), text(four), 20'000);
    std::printf("  4 workers: measured %.1f on %d cores; predicted %.1f on 2 cores, %.1f on 4\n",
                measured, runCores, two, four);

    // The curve: 0 to 8 workers at 4 cores, each the model's; the measured point beside it.
    auto *plot = childNamed<WhatIfPlot>(&panel, "whatIfPlot");
    const QCPGraph *curve = childNamed<QCPGraph>(plot, "whatIfPredictedGraph");
    QCOMPARE(keys(curve), (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
    for (const int w : {0, 2, 8})
        QCOMPARE(values(curve)[static_cast<std::size_t>(w)], modelSays(cal, 4, 1, w, 8, true));
    QCOMPARE(values(curve)[4], four);
    const QCPGraph *point = childNamed<QCPGraph>(plot, "whatIfMeasuredGraph");
    QCOMPARE(keys(point), std::vector<double>{4});
    QCOMPARE(values(point), std::vector<double>{measured});

    // One device: no slowest rank.
    auto *stragglers = childNamed<QLabel>(&panel, "whatIfStragglers");
    QCOMPARE(stragglers->text(), QStringLiteral("–"));
    // Two devices: each with its own 4 workers on the 4 cores; a step waits for the
    // slower of two ranks' data, from the run's own waits.
    devicesSlider->setValue(2);
    QTRY_COMPARE_WITH_TIMEOUT(samples->text(), text(modelSays(cal, 4, 2, 4, 8, true)), 20'000);
    const StragglerFigure slowest = stragglerAmplification(cal.stepWaitSeconds, {2}).front();
    QCOMPARE(stragglers->text(), QStringLiteral("%1 ms a step (%2x)")
                                     .arg(text(slowest.slowestWait * 1e3, 2))
                                     .arg(text(slowest.amplification, 2)));
    // Three such nodes, each with its own 4 cores: the model's figure, and the slowest
    // of all 6 ranks.
    childNamed<QSpinBox>(&panel, "whatIfNodes")->setValue(3);
    QTRY_COMPARE_WITH_TIMEOUT(samples->text(), text(modelSays(cal, 4, 2, 4, 8, true, 3)), 20'000);
    const StragglerFigure six = stragglerAmplification(cal.stepWaitSeconds, {6}).front();
    QCOMPARE(stragglers->text(), QStringLiteral("%1 ms a step (%2x)")
                                     .arg(text(six.slowestWait * 1e3, 2))
                                     .arg(text(six.amplification, 2)));
    // Back to the run's own setting, on its machine as it was.
    childNamed<QToolButton>(&panel, "whatIfReset")->click();
    QTRY_COMPARE_WITH_TIMEOUT(samples->text(), text(modelSays(cal, runCores, 1, 4, 8)), 20'000);
    QCOMPARE(cores->value(), runCores);
    QCOMPARE(childNamed<QSpinBox>(&panel, "whatIfNodes")->value(), 1);
}

void TestWhatIfPanel::coresShareTheLoadingOfARunWithKnownCosts()
{
    // 4 workers on 2 cores, batches of 4 each taking 20 ms of a core to load, no step,
    // a warm-up of one round: the 4 share the 2 cores, a round of 4 batches every
    // 40 ms, 400 samples/s. On 4 cores each loads on a core of its own: 800 samples/s;
    // on 1 core, 200.
    // Written as a run's files: the panel reads the run's cores from its JSON.
    const KnownCostRun known = knownCostRun(4, 2, 4, 200, 0.020, 4);
    RunSession session;
    session.addOpenedRun(openedKnownRun(m_dir, QStringLiteral("known"), known));
    WhatIfPanel panel(&session);
    panel.resize(360, 1000);
    panel.show();
    auto *samples = childNamed<QLabel>(&panel, "whatIfSamplesPerSec");
    auto *coresSlider = childNamed<QSlider>(&panel, "whatIfCoresSlider");
    QTRY_COMPARE_WITH_TIMEOUT(samples->text(), QStringLiteral("400.0"), 20'000);
    QCOMPARE(childNamed<QSpinBox>(&panel, "whatIfCores")->value(), 2);
    coresSlider->setValue(4);
    QTRY_COMPARE_WITH_TIMEOUT(samples->text(), QStringLiteral("800.0"), 20'000);
    coresSlider->setValue(1);
    QTRY_COMPARE_WITH_TIMEOUT(samples->text(), QStringLiteral("200.0"), 20'000);
}

void TestWhatIfPanel::aBusyMachineAsItWasOrIdle()
{
    // The run of known costs above, recorded while other programs (other sessions)
    // used 1 of its 2 cores: its 4 workers shared the 1 core left, so a batch costs
    // 40 ms / 4 = 10 ms of a core. As it was (the default): the run itself, 400
    // samples/s; an idle machine: the 4 share 2 cores, 800. At 4 cores as it was,
    // the 4 share the 3 cores left: 1200; idle, a core each: 1600. At 1 core as it
    // was, nothing is left.
    KnownCostRun known = knownCostRun(4, 2, 4, 200, 0.020, 4);
    known.report.machineLoad = {2, 8.0, 1.0, 1.0, 0.0, 0.0, 1.0};
    RunSession session;
    session.addOpenedRun(openedKnownRun(m_dir, QStringLiteral("busy"), known));
    WhatIfPanel panel(&session);
    panel.resize(360, 1000);
    panel.show();
    auto *samples = childNamed<QLabel>(&panel, "whatIfSamplesPerSec");
    auto *cores = childNamed<QSpinBox>(&panel, "whatIfCores");
    auto *machine = childNamed<QComboBox>(&panel, "whatIfMachine");
    auto *note = childNamed<QLabel>(&panel, "whatIfBusyMachine");
    QTRY_COMPARE_WITH_TIMEOUT(samples->text(), QStringLiteral("400.0"), 20'000);
    QVERIFY(note->isVisible());
    // "core(s)" where no English translation is loaded, "cores" where one is.
    QVERIFY2(note->text().startsWith(QStringLiteral("Other programs used 1.0 of the 2 core")),
             qPrintable(note->text()));
    QCOMPARE(machine->currentData().toBool(), false);
    QVERIFY2(childNamed<QLabel>(&panel, "whatIfSelfError")
                 ->text()
                 .contains(QStringLiteral("measured 400.0 samples/s, predicted 400.0")),
             qPrintable(childNamed<QLabel>(&panel, "whatIfSelfError")->text()));
    machine->setCurrentIndex(machine->findData(true));
    QTRY_COMPARE_WITH_TIMEOUT(samples->text(), QStringLiteral("800.0"), 20'000);
    cores->setValue(4);
    QTRY_COMPARE_WITH_TIMEOUT(samples->text(), QStringLiteral("1600.0"), 20'000);
    machine->setCurrentIndex(machine->findData(false));
    QTRY_COMPARE_WITH_TIMEOUT(samples->text(), QStringLiteral("1200.0"), 20'000);
    auto *status = childNamed<QLabel>(&panel, "whatIfStatus");
    cores->setValue(1);
    QTRY_VERIFY_WITH_TIMEOUT(
        status->text().startsWith(QStringLiteral("The model cannot predict this setting: other "
                                                 "programs held 1.0 cores")),
        20'000);
    // Back to the run's setting: its machine as it was, the run itself.
    childNamed<QToolButton>(&panel, "whatIfReset")->click();
    QTRY_COMPARE_WITH_TIMEOUT(samples->text(), QStringLiteral("400.0"), 20'000);
    QCOMPARE(machine->currentData().toBool(), false);
    QCOMPARE(cores->value(), 2);
}

void TestWhatIfPanel::saysWhyWithoutARunOrWithTooFewBatches()
{
    RunSession session;
    WhatIfPanel panel(&session);
    panel.show();
    auto *status = childNamed<QLabel>(&panel, "whatIfStatus");
    QVERIFY2(status->text().startsWith(QStringLiteral("No run to calibrate from")),
             qPrintable(status->text()));
    childNamed<QPushButton>(&panel, "whatIfCalibrate")->click();
    QVERIFY(status->text().startsWith(QStringLiteral("No run to calibrate from")));
    QCOMPARE(childNamed<QLabel>(&panel, "whatIfSamplesPerSec")->text(), QStringLiteral("–"));

    // 8 batches: the warm-up's 5 and 3 more.
    RunConfig config;
    config.dataset.syntheticShape = {3, 32, 32};
    config.dataset.syntheticSamples = 64;
    config.loader.numWorkers = 1;
    config.loader.batchSize = 8;
    const std::string csv = m_dir.filePath(QStringLiteral("short.csv")).toStdString();
    const std::string json = m_dir.filePath(QStringLiteral("short.json")).toStdString();
    writeRun(config, csv, json);
    session.addOpenedRun(openRun(csv, json));
    QTRY_VERIFY(status->text().startsWith(QStringLiteral("Too few batches")));
    QVERIFY2(status->text().contains(QStringLiteral("8 so far, 15 needed")),
             qPrintable(status->text()));
    QCOMPARE(childNamed<QLabel>(&panel, "whatIfSamplesPerSec")->text(), QStringLiteral("–"));
}

void TestWhatIfPanel::theLiveRunIsCalibratedOnceItHasEnded()
{
    RunConfig config;
    config.dataset.syntheticShape = {3, 32, 32};
    config.dataset.syntheticSamples = 640;
    config.loader.numWorkers = 2;
    config.loader.batchSize = 16;
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 2.0;
    RunSession session;
    WhatIfPanel panel(&session);
    panel.show();
    QString error;
    QVERIFY2(session.start(config, &error), qPrintable(error));
    QCOMPARE(childNamed<QComboBox>(&panel, "whatIfRun")->currentData().toInt(), RunList::kLiveId);
    QTRY_VERIFY_WITH_TIMEOUT(session.finished(), 30'000);
    // The calibration after the end sees all 40 batches.
    QTRY_VERIFY_WITH_TIMEOUT(childNamed<QLabel>(&panel, "whatIfStatus")
                                 ->text()
                                 .startsWith(QStringLiteral("Calibrated from 40 batch")),
                             20'000);
    const RunReport report = session.report();
    const Calibration cal = calibrateFromRun(session.trace()->records(), report);
    QTRY_COMPARE_WITH_TIMEOUT(childNamed<QLabel>(&panel, "whatIfSamplesPerSec")->text(),
                              text(modelSays(cal, report.machine.logicalCores, 1, 2, 16)), 20'000);
    QVERIFY(
        childNamed<QLabel>(&panel, "whatIfSelfError")
            ->text()
            .contains(QStringLiteral("measured %1").arg(text(report.summary.samplesPerSecMean))));
}

void TestWhatIfPanel::aReconfiguredRunSaysWhatItRanAt()
{
    // Batch size 4, then 8 from batch 100 on: the run is named from its first setting
    // to its last, and What if says its costs come from all its batches and that the
    // setting it predicts back is the first.
    KnownCostRun known = knownCostRun(4, 2, 4, 200, 0.020, 4);
    RunConfig later = known.report.config;
    later.loader.batchSize = 8;
    known.report.configVersions.push_back({1, 100, known.records[100].requestNs, later});
    for (std::size_t k = 100; k < known.records.size(); ++k)
        known.records[k].configVersion = 1;
    known.report.config = later;
    RunSession session;
    session.addOpenedRun(openedKnownRun(m_dir, QStringLiteral("changed"), known));
    WhatIfPanel panel(&session);
    panel.resize(360, 1000);
    panel.show();
    QCOMPARE(childNamed<QComboBox>(&panel, "whatIfRun")->currentText(),
             QStringLiteral("4 workers, batch 4 → 8"));
    auto *status = childNamed<QLabel>(&panel, "whatIfStatus");
    QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QStringLiteral("Calibrated from")), 20'000);
    QVERIFY2(status->text().contains(QStringLiteral("settings changed while it ran"))
                 && status->text().contains(QStringLiteral("its first (4 workers, batch 4)")),
             qPrintable(status->text()));
}

LOADERLAB_TEST_MAIN(TestWhatIfPanel)
#include "test_what_if_panel.moc"
