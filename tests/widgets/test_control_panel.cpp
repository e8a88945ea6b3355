// ControlPanel and StatsPanel driven through their real controls: keys on the sliders
// and check boxes, typing into the spin boxes and the path, clicks on the buttons.

#include "widgets/session/stats_panel.h"
#include "widgets/settings/control_panel.h"

#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

using namespace loaderlab;

namespace {

void selectKind(QComboBox *combo, DatasetKind kind)
{
    // Combo entries carry the config's choice names.
    const int index = combo->findData(QString::fromLatin1(datasetKindName(kind)));
    QVERIFY(index >= 0);
    combo->setCurrentIndex(index);
}

} // namespace

class TestControlPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void allControlsAreNamed();
    void workersSliderDrivesSpinAndConfig();
    void workersSpinKeepsValuesBeyondSlider();
    void typedBatchSizeSnapsSlider();
    void batchSliderStepsThroughPowersOfTwo();
    void setConfigRoundTripsWithoutSignals();
    void sleepSliderAndSpinsSetConsumer();
    void checkBoxesMapToLoaderFlags();
    void syntheticDisablesPath();
    void datasetComboListsEveryKind();
    void typedPathEmitsDatasetChange();
    void transformOnlyForImageFolders();
    void pinMemoryUnavailable();
    void runStateEnablesButtons();
    void pauseTogglesAndRenames();
    void buttonsEmitRequests();
    void datasetErrorShownAndCleared();
    void tuningStateSaysTheMachinesLoad();
    void statsPanelShowsFigures();
    void statsPanelBandColours();
};

void TestControlPanel::allControlsAreNamed()
{
    ControlPanel panel;
    for (const char *name :
         {"workersSlider",    "workersSpin",     "batchSizeSlider",  "batchSizeSpin",
          "prefetchSpin",     "sleepBatchSpin",  "sleepBatchSlider", "sleepSampleSpin",
          "datasetKindCombo", "datasetPathEdit", "browseButton",     "transformCombo",
          "strategyCombo",    "shuffleCheck",    "dropLastCheck",    "pinMemoryCheck",
          "persistentCheck",  "outOfOrderCheck", "startButton",      "pauseButton",
          "stopButton",       "resetButton",     "datasetErrorLabel"}) {
        auto *widget = panel.findChild<QWidget *>(QString::fromLatin1(name));
        QVERIFY2(widget, name);
        if (QString::fromLatin1(name) != QStringLiteral("datasetErrorLabel"))
            QVERIFY2(!widget->toolTip().isEmpty(), name);
    }
    // The defaults of the panel are the engine's defaults, run until stopped.
    const RunConfig config = panel.config();
    QCOMPARE(config.epochs, 0);
    QVERIFY(config.loader == LoaderConfig{});
    QVERIFY(config.consumer == ConsumerConfig{});
    QCOMPARE(config.dataset.kind, DatasetKind::Synthetic);
}

void TestControlPanel::workersSliderDrivesSpinAndConfig()
{
    ControlPanel panel;
    RunConfig start;
    start.loader.numWorkers = 1;
    panel.setConfig(start);
    auto *slider = childNamed<QSlider>(&panel, "workersSlider");
    auto *spin = childNamed<QSpinBox>(&panel, "workersSpin");
    QCOMPARE(slider->value(), 1);
    QSignalSpy spy(&panel, &ControlPanel::loaderSettingsChanged);

    QTest::keyClick(slider, Qt::Key_Right);
    QCOMPARE(slider->value(), 2);
    QCOMPARE(spin->value(), 2);
    QCOMPARE(panel.config().loader.numWorkers, 2);
    QCOMPARE(spy.count(), 1);

    QTest::keyClick(slider, Qt::Key_Home);
    QCOMPARE(spin->value(), 0);
    QCOMPARE(panel.config().loader.numWorkers, 0);
    QCOMPARE(spy.count(), 2);
}

void TestControlPanel::workersSpinKeepsValuesBeyondSlider()
{
    ControlPanel panel;
    auto *slider = childNamed<QSlider>(&panel, "workersSlider");
    auto *spin = childNamed<QSpinBox>(&panel, "workersSpin");
    QVERIFY(slider->maximum() < 100);
    QSignalSpy spy(&panel, &ControlPanel::loaderSettingsChanged);
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("100"));
    QCOMPARE(spin->value(), 100);
    QCOMPARE(slider->value(), slider->maximum());
    QCOMPARE(panel.config().loader.numWorkers, 100);
    QVERIFY(spy.count() >= 1);
}

void TestControlPanel::typedBatchSizeSnapsSlider()
{
    ControlPanel panel;
    auto *slider = childNamed<QSlider>(&panel, "batchSizeSlider");
    auto *spin = childNamed<QSpinBox>(&panel, "batchSizeSpin");
    QSignalSpy spy(&panel, &ControlPanel::loaderSettingsChanged);
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("12"));
    QCOMPARE(spin->value(), 12);
    QCOMPARE(panel.config().loader.batchSize, 12);
    QCOMPARE(slider->value(), 4); // 12 is nearest to 16 = 2^4 in log scale
    QVERIFY(spy.count() >= 1);

    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("5000"));
    QCOMPARE(panel.config().loader.batchSize, 5000);
    QCOMPARE(slider->value(), 12); // beyond the slider: clamped to 4096
}

void TestControlPanel::batchSliderStepsThroughPowersOfTwo()
{
    ControlPanel panel;
    RunConfig start;
    start.loader.batchSize = 32;
    panel.setConfig(start);
    auto *slider = childNamed<QSlider>(&panel, "batchSizeSlider");
    QCOMPARE(slider->value(), 5);
    QSignalSpy spy(&panel, &ControlPanel::loaderSettingsChanged);

    QTest::keyClick(slider, Qt::Key_Right);
    QCOMPARE(panel.config().loader.batchSize, 64);
    QCOMPARE(spy.count(), 1); // one change announced once, not by slider and spin both
    QTest::keyClick(slider, Qt::Key_PageUp);
    const int afterPage = panel.config().loader.batchSize;
    QVERIFY(afterPage > 64);
    QCOMPARE(afterPage & (afterPage - 1), 0); // a power of two
    QCOMPARE(afterPage, 1 << slider->value());
    QTest::keyClick(slider, Qt::Key_Left);
    QCOMPARE(panel.config().loader.batchSize, afterPage / 2);
    QTest::keyClick(slider, Qt::Key_Home);
    QCOMPARE(panel.config().loader.batchSize, 1);
    QTest::keyClick(slider, Qt::Key_End);
    QCOMPARE(panel.config().loader.batchSize, 4096);
}

void TestControlPanel::setConfigRoundTripsWithoutSignals()
{
    ControlPanel panel;
    RunConfig config;
    config.epochs = 0;
    config.maxBatches = 77;
    config.warmupBatches = 3;
    config.loader.batchSize = 48;
    config.loader.numWorkers = 3;
    config.loader.prefetchFactor = 7;
    config.loader.shuffle = true;
    config.loader.seed = 1234;
    config.loader.dropLast = true;
    config.loader.persistentWorkers = true;
    config.loader.pinMemory = true;
    config.loader.inOrder = false;
    config.loader.strategy = Strategy::SampleParallel;
    config.loader.badSamples = BadSamplePolicy::Fail;
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 12.5;
    config.consumer.sleepPerSampleMs = 0.25;
    config.dataset.kind = DatasetKind::ImageFolder;
    config.dataset.path = "/data/imagenette/train";
    config.dataset.transform = TransformKind::Train;
    config.dataset.cropSize = 160;

    QSignalSpy loaderSpy(&panel, &ControlPanel::loaderSettingsChanged);
    QSignalSpy datasetSpy(&panel, &ControlPanel::datasetSettingsChanged);
    panel.setConfig(config);
    QCOMPARE(loaderSpy.count(), 0);
    QCOMPARE(datasetSpy.count(), 0);

    const RunConfig back = panel.config();
    QVERIFY(back.loader == config.loader);
    QVERIFY(back.consumer == config.consumer);
    QCOMPARE(back.dataset.kind, DatasetKind::ImageFolder);
    QCOMPARE(back.dataset.path, config.dataset.path);
    QCOMPARE(back.dataset.transform, TransformKind::Train);
    QCOMPARE(back.dataset.cropSize, 160);
    QCOMPARE(back.maxBatches, std::int64_t{77});
    QCOMPARE(back.warmupBatches, 3);
    QCOMPARE(back.epochs, 0);
    // The controls show it too.
    QCOMPARE(childNamed<QSlider>(&panel, "batchSizeSlider")->value(), 6); // 48 -> 64
    QCOMPARE(childNamed<QSlider>(&panel, "sleepBatchSlider")->value(), 13);
    QVERIFY(childNamed<QCheckBox>(&panel, "outOfOrderCheck")->isChecked());
    QVERIFY(childNamed<QComboBox>(&panel, "transformCombo")->isEnabled());

    // A config asking for epochs still comes back as "until stopped".
    config.epochs = 3;
    panel.setConfig(config);
    QCOMPARE(panel.config().epochs, 0);
}

void TestControlPanel::sleepSliderAndSpinsSetConsumer()
{
    ControlPanel panel;
    auto *slider = childNamed<QSlider>(&panel, "sleepBatchSlider");
    auto *spin = childNamed<QDoubleSpinBox>(&panel, "sleepBatchSpin");
    QSignalSpy spy(&panel, &ControlPanel::loaderSettingsChanged);
    QTest::keyClick(slider, Qt::Key_Right);
    QCOMPARE(spin->value(), 1.0);
    QCOMPARE(panel.config().consumer.sleepPerBatchMs, 1.0);
    QCOMPARE(panel.config().consumer.kind, ConsumerKind::Sleep);
    QCOMPARE(spy.count(), 1);

    auto *sample = childNamed<QDoubleSpinBox>(&panel, "sleepSampleSpin");
    sample->selectAll();
    QTest::keyClicks(sample, QStringLiteral("0.5"));
    QCOMPARE(panel.config().consumer.sleepPerSampleMs, 0.5);
    QVERIFY(spy.count() >= 2);
}

void TestControlPanel::checkBoxesMapToLoaderFlags()
{
    ControlPanel panel;
    QSignalSpy spy(&panel, &ControlPanel::loaderSettingsChanged);
    QTest::keyClick(childNamed<QCheckBox>(&panel, "shuffleCheck"), Qt::Key_Space);
    QTest::keyClick(childNamed<QCheckBox>(&panel, "dropLastCheck"), Qt::Key_Space);
    QTest::keyClick(childNamed<QCheckBox>(&panel, "persistentCheck"), Qt::Key_Space);
    QTest::keyClick(childNamed<QCheckBox>(&panel, "outOfOrderCheck"), Qt::Key_Space);
    QTest::keyClick(childNamed<QCheckBox>(&panel, "pinMemoryCheck"), Qt::Key_Space);
    auto *strategy = childNamed<QComboBox>(&panel, "strategyCombo");
    strategy->setCurrentIndex(strategy->findData(QStringLiteral("sample-parallel")));
    QTest::keyClick(childNamed<QSpinBox>(&panel, "prefetchSpin"), Qt::Key_Up);
    QCOMPARE(spy.count(), 7);

    const LoaderConfig loader = panel.config().loader;
    QVERIFY(loader.shuffle);
    QVERIFY(loader.dropLast);
    QVERIFY(loader.persistentWorkers);
    QVERIFY(!loader.inOrder);
    QVERIFY(loader.pinMemory);
    QCOMPARE(loader.strategy, Strategy::SampleParallel);
    QCOMPARE(loader.prefetchFactor, LoaderConfig{}.prefetchFactor + 1);
}

void TestControlPanel::syntheticDisablesPath()
{
    ControlPanel panel;
    auto *combo = childNamed<QComboBox>(&panel, "datasetKindCombo");
    auto *path = childNamed<QLineEdit>(&panel, "datasetPathEdit");
    selectKind(combo, DatasetKind::Idx);
    QVERIFY(path->isEnabled());
    QVERIFY(childNamed<QToolButton>(&panel, "browseButton")->isEnabled());
    QSignalSpy spy(&panel, &ControlPanel::datasetSettingsChanged);
    selectKind(combo, DatasetKind::Synthetic);
    QCOMPARE(spy.count(), 1);
    QVERIFY(!path->isEnabled());
    QVERIFY(!childNamed<QToolButton>(&panel, "browseButton")->isEnabled());
    QCOMPARE(panel.config().dataset.kind, DatasetKind::Synthetic);
}

void TestControlPanel::datasetComboListsEveryKind()
{
    // The combo is the table of kinds: every kind, in its order, with its label (no
    // translator here: English) and its name as the data the config reads; choosing
    // one enables the path and the image transform as the table says.
    ControlPanel panel;
    auto *combo = childNamed<QComboBox>(&panel, "datasetKindCombo");
    QCOMPARE(combo->count(), static_cast<int>(datasetKinds().size()));
    for (int i = 0; i < combo->count(); ++i) {
        const DatasetKindInfo &kind = datasetKinds()[static_cast<std::size_t>(i)];
        QCOMPARE(combo->itemText(i), QString::fromLatin1(kind.label.data()));
        QCOMPARE(combo->itemData(i).toString(), QString::fromLatin1(kind.name.data()));
    }
    for (const DatasetKindInfo &kind : datasetKinds()) {
        selectKind(combo, kind.kind);
        QCOMPARE(panel.config().dataset.kind, kind.kind);
        const bool path = kind.path != DatasetPathKind::None;
        QCOMPARE(childNamed<QLineEdit>(&panel, "datasetPathEdit")->isEnabled(), path);
        QCOMPARE(childNamed<QToolButton>(&panel, "browseButton")->isEnabled(), path);
        QCOMPARE(childNamed<QComboBox>(&panel, "transformCombo")->isEnabled(), kind.imageTransform);
        QCOMPARE(childNamed<QCheckBox>(&panel, "fastDecodeCheck")->isEnabled(),
                 kind.imageTransform);
    }
}

void TestControlPanel::typedPathEmitsDatasetChange()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("train.lltensor"));
    ControlPanel panel;
    selectKind(childNamed<QComboBox>(&panel, "datasetKindCombo"), DatasetKind::TensorFile);
    auto *path = childNamed<QLineEdit>(&panel, "datasetPathEdit");
    QVERIFY(path->isEnabled());
    QSignalSpy spy(&panel, &ControlPanel::datasetSettingsChanged);
    QTest::keyClicks(path, file);
    QCOMPARE(spy.count(), 0); // nothing until the path is complete
    QTest::keyClick(path, Qt::Key_Return);
    QCOMPARE(spy.count(), 1);
    const RunConfig config = panel.config();
    QCOMPARE(config.dataset.kind, DatasetKind::TensorFile);
    QCOMPARE(QString::fromStdString(config.dataset.path), file);
}

void TestControlPanel::transformOnlyForImageFolders()
{
    ControlPanel panel;
    auto *combo = childNamed<QComboBox>(&panel, "datasetKindCombo");
    auto *transform = childNamed<QComboBox>(&panel, "transformCombo");
    QVERIFY(!transform->isEnabled());
    selectKind(combo, DatasetKind::ImageFolder);
    QVERIFY(transform->isEnabled());
    QSignalSpy spy(&panel, &ControlPanel::datasetSettingsChanged);
    transform->setCurrentIndex(transform->findData(QStringLiteral("train")));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(panel.config().dataset.transform, TransformKind::Train);
    selectKind(combo, DatasetKind::Cifar10);
    QVERIFY(!transform->isEnabled());
}

void TestControlPanel::pinMemoryUnavailable()
{
    ControlPanel panel;
    auto *check = childNamed<QCheckBox>(&panel, "pinMemoryCheck");
    QTest::keyClick(check, Qt::Key_Space);
    QVERIFY(panel.config().loader.pinMemory);
    const QString reason = QStringLiteral("no CUDA device found");
    panel.setPinMemoryAvailable(false, reason);
    QVERIFY(!check->isEnabled());
    QVERIFY2(check->toolTip().contains(reason), qPrintable(check->toolTip()));
    QVERIFY(!panel.config().loader.pinMemory);

    panel.setPinMemoryAvailable(true, QString());
    QVERIFY(check->isEnabled());
    QVERIFY(!check->toolTip().contains(reason));
}

void TestControlPanel::runStateEnablesButtons()
{
    ControlPanel panel;
    auto *start = childNamed<QPushButton>(&panel, "startButton");
    auto *pause = childNamed<QPushButton>(&panel, "pauseButton");
    auto *stop = childNamed<QPushButton>(&panel, "stopButton");
    QVERIFY(start->isEnabled());
    QVERIFY(!stop->isEnabled());
    QVERIFY(!pause->isEnabled());

    panel.setRunState(RunState::Running);
    QVERIFY(!start->isEnabled());
    QVERIFY(stop->isEnabled());
    QVERIFY(pause->isEnabled());
    QVERIFY(!pause->isChecked());

    QSignalSpy spy(&panel, &ControlPanel::pauseToggled);
    panel.setRunState(RunState::Paused);
    QVERIFY(pause->isChecked());
    QVERIFY(stop->isEnabled());
    QCOMPARE(spy.count(), 0); // a state report is not a user request

    for (RunState state : {RunState::Finished, RunState::Stopped, RunState::Failed}) {
        panel.setRunState(state);
        QVERIFY(start->isEnabled());
        QVERIFY(!stop->isEnabled());
        QVERIFY(!pause->isChecked());
    }
}

void TestControlPanel::pauseTogglesAndRenames()
{
    ControlPanel panel;
    auto *pause = childNamed<QPushButton>(&panel, "pauseButton");
    const QString pauseText = pause->text();
    QSignalSpy spy(&panel, &ControlPanel::pauseToggled);
    QTest::mouseClick(pause, Qt::LeftButton); // disabled while idle
    QCOMPARE(spy.count(), 0);

    panel.setRunState(RunState::Running);
    QTest::mouseClick(pause, Qt::LeftButton);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toBool(), true);
    QVERIFY(pause->text() != pauseText);
    QCOMPARE(pause->text(), QStringLiteral("Resume"));
    QTest::mouseClick(pause, Qt::LeftButton);
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy.at(1).at(0).toBool(), false);
    QCOMPARE(pause->text(), pauseText);
}

void TestControlPanel::buttonsEmitRequests()
{
    ControlPanel panel;
    QSignalSpy start(&panel, &ControlPanel::startRequested);
    QSignalSpy stop(&panel, &ControlPanel::stopRequested);
    QSignalSpy reset(&panel, &ControlPanel::resetRequested);
    QTest::mouseClick(childNamed<QPushButton>(&panel, "startButton"), Qt::LeftButton);
    QCOMPARE(start.count(), 1);
    panel.setRunState(RunState::Running);
    QTest::mouseClick(childNamed<QPushButton>(&panel, "stopButton"), Qt::LeftButton);
    QCOMPARE(stop.count(), 1);
    QTest::mouseClick(childNamed<QPushButton>(&panel, "resetButton"), Qt::LeftButton);
    QCOMPARE(reset.count(), 1);
    QCOMPARE(start.count(), 1);
}

void TestControlPanel::datasetErrorShownAndCleared()
{
    ControlPanel panel;
    auto *label = childNamed<QLabel>(&panel, "datasetErrorLabel");
    QVERIFY(label->isHidden());
    const QString message = QStringLiteral("/data/missing: no such directory");
    panel.showDatasetError(message);
    QVERIFY(!label->isHidden());
    QCOMPARE(label->text(), message);
    QVERIFY(label->wordWrap());
    panel.clearDatasetError();
    QVERIFY(label->isHidden());
    QVERIFY(label->text().isEmpty());
}

void TestControlPanel::tuningStateSaysTheMachinesLoad()
{
    // Known answers: hidden until the autotuner runs; then what it does, and other
    // programs' demand in its last window, in the cores of the machine.
    ControlPanel panel;
    auto *label = childNamed<QLabel>(&panel, "autotuneState");
    QVERIFY(label->isHidden());
    panel.setTuning(true, false);
    QVERIFY(!label->isHidden());
    panel.showTuningState(0, false, std::nullopt, 2);
    QCOMPARE(label->text(), QStringLiteral("Measuring the run as it is."));
    panel.showTuningState(3, false, 0.04, 2);
    QCOMPARE(label->text(), QStringLiteral("Comparing settings, one window each. No other "
                                           "program was busy in the last window."));
    panel.showTuningState(9, true, 0.96, 2);
    QCOMPARE(label->text(),
             QStringLiteral("Holding: no other setting measured better. Other programs asked "
                            "for 1.0 of the 2 cores in the last window; settings are compared "
                            "only on windows with the same load."));
    QVERIFY(label->wordWrap());
    panel.setTuning(false, false);
    QVERIFY(label->isHidden());
    QVERIFY(label->text().isEmpty());
}

void TestControlPanel::statsPanelShowsFigures()
{
    StatsPanel panel;
    RunSummary summary;
    summary.batches = 321;
    summary.samples = 10272;
    summary.skippedSamples = 4;
    summary.samplesPerSecMean = 1234.5;
    summary.samplesPerSecMedian = 1100.4;
    summary.firstBatchLatencyMs = 87.5;
    summary.waitP50Ms = 1.5;
    summary.waitP95Ms = 12.25;
    summary.waitP99Ms = 30.75;
    summary.waitMaxMs = 41.0;
    summary.waitMeanMs = 34.5;
    summary.computeMeanMs = 20.0;
    summary.inputBoundShare = 0.63;
    summary.band = InputBoundBand::Highly;
    panel.showSummary(summary);

    const auto text = [&](const char *name) { return childNamed<QLabel>(&panel, name)->text(); };
    QVERIFY2(text("samplesPerSecLabel").contains(QStringLiteral("1234.5")),
             qPrintable(text("samplesPerSecLabel")));
    QVERIFY(text("samplesPerSecLabel").contains(QStringLiteral("1100.4"))); // median
    QVERIFY(text("firstBatchLabel").contains(QStringLiteral("87.5")));
    for (const QString &wait : {QStringLiteral("1.50"), QStringLiteral("12.25"),
                                QStringLiteral("30.75"), QStringLiteral("41.00")})
        QVERIFY2(text("waitPercentilesLabel").contains(wait), qPrintable(wait));
    QVERIFY(text("inputBoundLabel").contains(QStringLiteral("63.0 %")));
    // Step and wait side by side; no copy and no peak memory without a model.
    QVERIFY2(text("computeLabel").contains(QStringLiteral("20.00"))
                 && text("computeLabel").contains(QStringLiteral("34.50")),
             qPrintable(text("computeLabel")));
    QVERIFY(!text("computeLabel").contains(QStringLiteral("copy")));
    QCOMPARE(text("peakMemoryLabel"), QStringLiteral("–"));
    summary.copyMeanMs = 1.25;
    summary.peakMemoryBytes = 3 * 1048576 / 2;
    panel.showSummary(summary);
    QVERIFY2(text("computeLabel").contains(QStringLiteral("copy to device 1.25 ms")),
             qPrintable(text("computeLabel")));
    QCOMPARE(text("peakMemoryLabel"), QStringLiteral("1.5 MiB"));
    QCOMPARE(text("adviceLabel"), QString::fromStdString(adviceFor(summary)));
    QVERIFY(text("adviceLabel").contains(QStringLiteral("63 %")));
    QVERIFY(text("skippedLabel").contains(QStringLiteral("4")));
    const QString counts = childNamed<QLabel>(&panel, "countsLabel")->text();
    QVERIFY(counts.contains(QStringLiteral("321")) && counts.contains(QStringLiteral("10272")));

    panel.clear();
    QVERIFY(!text("samplesPerSecLabel").contains(QStringLiteral("1234.5")));
    QVERIFY(text("adviceLabel").isEmpty());
}

void TestControlPanel::statsPanelBandColours()
{
    StatsPanel panel;
    auto *label = childNamed<QLabel>(&panel, "inputBoundLabel");
    const auto colourFor = [&](double share) {
        RunSummary summary;
        summary.inputBoundShare = share;
        summary.band = bandForShare(share);
        panel.showSummary(summary);
        const QString style = label->styleSheet();
        const qsizetype at = style.indexOf(QLatin1Char('#'));
        return at < 0 ? QColor() : QColor(style.mid(at, 7));
    };
    const QColor red = colourFor(0.63);
    QVERIFY(red.isValid());
    QVERIFY(red.red() > 150 && red.green() < 100 && red.blue() < 100);
    const QColor green = colourFor(0.02);
    QVERIFY(green.green() > green.red() && green.green() > green.blue());
    const QColor amber = colourFor(0.10);
    QVERIFY(amber.red() > 150 && amber.green() > 80 && amber.blue() < 60);
    QVERIFY(amber != red && amber != green);
    QCOMPARE(colourFor(0.20), red); // 20 % is already highly input-bound
    QCOMPARE(colourFor(0.05), amber);
}

LOADERLAB_TEST_MAIN(TestControlPanel)
#include "test_control_panel.moc"
