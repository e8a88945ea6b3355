// ModelPanel (and its place in ControlPanel) driven through its real controls: what a
// machine cannot run stays listed but greyed out with the reason, and every control
// lands in the ModelConfig the engine gets.

#include "widgets/settings/control_panel.h"
#include "widgets/settings/model_panel.h"

#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QToolButton>
#include <QtTest>

using namespace loaderlab;

namespace {

ModelCapabilities cpuOnly()
{
    ModelCapabilities c;
    c.builtinModels = {"resnet18", "resnet50", "mobilenet_v2"};
    c.cudaUnavailableReason = "this LibTorch build (1.13.0) has no CUDA support";
    return c;
}

ModelCapabilities twoGpus()
{
    ModelCapabilities c;
    c.builtinModels = {"resnet18", "resnet50"};
    c.cudaAvailable = true;
    c.cudaDevices = 2;
    return c;
}

bool itemEnabled(QComboBox *combo, int index)
{
    return combo->model()->flags(combo->model()->index(index, 0)).testFlag(Qt::ItemIsEnabled);
}

QString itemToolTip(QComboBox *combo, int index)
{
    return combo->itemData(index, Qt::ToolTipRole).toString();
}

} // namespace

class TestModelPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void withoutModelsThePanelSaysWhy();
    void unavailableCudaIsGreyedOutWithTheReason();
    void gpusAreListedAndAllowFp16();
    void controlsMapToTheModelConfig();
    void checkpointingAndOptimizerOnlyForTraining();
    void setModelConfigRoundTripsWithoutSignals();
    void torchScriptEntryTakesTheTypedFile();
    void unusableDeviceFallsBackToCpuWithANote();
    void errorsShowAndClear();
    void controlPanelSwitchesTheStepToTheModel();
};

void TestModelPanel::withoutModelsThePanelSaysWhy()
{
    ModelPanel panel;
    QVERIFY(!panel.isEnabled());
    QVERIFY(!panel.modelSelected());
    QVERIFY2(panel.toolTip().contains(QStringLiteral("LOADERLAB_WITH_TORCH=OFF")),
             qPrintable(panel.toolTip()));
    QVERIFY(panel.isCheckable());
    QVERIFY(!panel.isChecked());
    for (const char *name :
         {"modelCombo", "scriptPathEdit", "scriptBrowseButton", "modeCombo", "optimizerCombo",
          "deviceCombo", "precisionCombo", "layoutCombo", "threadsSpin", "checkpointCheck"}) {
        auto *widget = panel.findChild<QWidget *>(QString::fromLatin1(name));
        QVERIFY2(widget, name);
        QVERIFY2(!widget->toolTip().isEmpty(), name);
    }
}

void TestModelPanel::unavailableCudaIsGreyedOutWithTheReason()
{
    ModelPanel panel;
    panel.setCapabilities(cpuOnly());
    QVERIFY(panel.isEnabled());
    auto *device = childNamed<QComboBox>(&panel, "deviceCombo");
    QCOMPARE(device->count(), 2);
    QCOMPARE(device->itemData(0).toString(), QStringLiteral("cpu"));
    QVERIFY(itemEnabled(device, 0));
    QCOMPARE(device->itemData(1).toString(), QStringLiteral("cuda"));
    QVERIFY(!itemEnabled(device, 1));
    QVERIFY2(itemToolTip(device, 1).contains(QStringLiteral("has no CUDA support")),
             qPrintable(itemToolTip(device, 1)));
    auto *note = childNamed<QLabel>(&panel, "deviceNoteLabel");
    QVERIFY(!note->isHidden());
    QVERIFY(note->text().contains(QStringLiteral("has no CUDA support")));

    // The keyboard skips the greyed-out entry.
    panel.setChecked(true);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    device->setFocus();
    QTest::keyClick(device, Qt::Key_Down);
    QCOMPARE(device->currentData().toString(), QStringLiteral("cpu"));
    QCOMPARE(panel.modelConfig().device, std::string("cpu"));

    // fp16 autocast is CUDA-only: greyed out on the CPU, with the reason.
    auto *precision = childNamed<QComboBox>(&panel, "precisionCombo");
    const int fp16 = precision->findData(QVariant::fromValue(ModelPrecision::Float16));
    QVERIFY(fp16 >= 0);
    QVERIFY(!itemEnabled(precision, fp16));
    QVERIFY(itemToolTip(precision, fp16).contains(QStringLiteral("bf16")));
    QVERIFY(
        itemEnabled(precision, precision->findData(QVariant::fromValue(ModelPrecision::BFloat16))));
}

void TestModelPanel::gpusAreListedAndAllowFp16()
{
    ModelPanel panel;
    panel.setCapabilities(twoGpus());
    panel.setChecked(true);
    auto *device = childNamed<QComboBox>(&panel, "deviceCombo");
    QCOMPARE(device->count(), 3);
    QCOMPARE(device->itemData(2).toString(), QStringLiteral("cuda:1"));
    for (int i = 0; i < device->count(); ++i)
        QVERIFY(itemEnabled(device, i));
    QVERIFY(childNamed<QLabel>(&panel, "deviceNoteLabel")->isHidden());

    auto *precision = childNamed<QComboBox>(&panel, "precisionCombo");
    const int fp16 = precision->findData(QVariant::fromValue(ModelPrecision::Float16));
    QVERIFY(!itemEnabled(precision, fp16)); // still on the CPU
    device->setCurrentIndex(2);
    QVERIFY(itemEnabled(precision, fp16));
    precision->setCurrentIndex(fp16);
    QCOMPARE(panel.modelConfig().device, std::string("cuda:1"));
    QCOMPARE(panel.modelConfig().precision, ModelPrecision::Float16);

    // Back to the CPU: fp16 cannot stay, fp32 takes its place.
    device->setCurrentIndex(0);
    QVERIFY(!itemEnabled(precision, fp16));
    QCOMPARE(panel.modelConfig().precision, ModelPrecision::Float32);
}

void TestModelPanel::controlsMapToTheModelConfig()
{
    ModelPanel panel;
    panel.setCapabilities(cpuOnly());
    QSignalSpy changed(&panel, &ModelPanel::changed);

    panel.setChecked(true);
    QCOMPARE(changed.count(), 1);
    QVERIFY(panel.modelSelected());

    auto *model = childNamed<QComboBox>(&panel, "modelCombo");
    model->setCurrentIndex(model->findData(QStringLiteral("resnet50")));
    childNamed<QComboBox>(&panel, "modeCombo")->setCurrentIndex(1);
    auto *optimizer = childNamed<QComboBox>(&panel, "optimizerCombo");
    optimizer->setCurrentIndex(optimizer->findData(QStringLiteral("adam")));
    auto *precision = childNamed<QComboBox>(&panel, "precisionCombo");
    precision->setCurrentIndex(precision->findData(QVariant::fromValue(ModelPrecision::BFloat16)));
    auto *layout = childNamed<QComboBox>(&panel, "layoutCombo");
    layout->setCurrentIndex(layout->findData(true));
    childNamed<QSpinBox>(&panel, "threadsSpin")->setValue(2);
    childNamed<QCheckBox>(&panel, "checkpointCheck")->setChecked(true);
    QCOMPARE(changed.count(), 8); // each control announced itself once

    const ModelConfig config = panel.modelConfig();
    QCOMPARE(config.name, std::string("resnet50"));
    QVERIFY(config.scriptPath.empty());
    QCOMPARE(config.mode, ModelMode::Train);
    QCOMPARE(config.optimizer, std::string("adam"));
    QCOMPARE(config.device, std::string("cpu"));
    QCOMPARE(config.precision, ModelPrecision::BFloat16);
    QVERIFY(config.channelsLast);
    QCOMPARE(config.threads, 2);
    QVERIFY(config.checkpointing);

    // 0 threads reads "all cores".
    auto *threads = childNamed<QSpinBox>(&panel, "threadsSpin");
    threads->setValue(0);
    QCOMPARE(threads->text(), QStringLiteral("all cores"));

    panel.setChecked(false);
    QVERIFY(!panel.modelSelected());
}

void TestModelPanel::checkpointingAndOptimizerOnlyForTraining()
{
    ModelPanel panel;
    panel.setCapabilities(cpuOnly());
    panel.setChecked(true);
    auto *mode = childNamed<QComboBox>(&panel, "modeCombo");
    auto *checkpoint = childNamed<QCheckBox>(&panel, "checkpointCheck");
    auto *optimizer = childNamed<QComboBox>(&panel, "optimizerCombo");
    QCOMPARE(mode->currentData().value<ModelMode>(), ModelMode::Inference);
    QVERIFY(!checkpoint->isEnabled());
    QVERIFY(!optimizer->isEnabled());
    QVERIFY(checkpoint->toolTip().contains(QStringLiteral("Only for the training step")));
    mode->setCurrentIndex(mode->findData(QVariant::fromValue(ModelMode::Train)));
    QVERIFY(checkpoint->isEnabled());
    QVERIFY(optimizer->isEnabled());

    // Unchecking the group greys everything; checking it again keeps the rule.
    mode->setCurrentIndex(mode->findData(QVariant::fromValue(ModelMode::Inference)));
    panel.setChecked(false);
    QVERIFY(!mode->isEnabled());
    panel.setChecked(true);
    QVERIFY(mode->isEnabled());
    QVERIFY(!checkpoint->isEnabled());
}

void TestModelPanel::setModelConfigRoundTripsWithoutSignals()
{
    ModelPanel panel;
    panel.setCapabilities(twoGpus());
    QSignalSpy changed(&panel, &ModelPanel::changed);
    ModelConfig config;
    config.name = "resnet50";
    config.mode = ModelMode::Train;
    config.optimizer = "adam";
    config.device = "cuda:1";
    config.precision = ModelPrecision::Float16;
    config.channelsLast = true;
    config.threads = 3;
    config.checkpointing = true;
    config.learningRate = 0.5; // no control: kept
    config.numClasses = 10;
    panel.setModelConfig(config, true);
    QCOMPARE(changed.count(), 0);
    QVERIFY(panel.modelSelected());
    QVERIFY(panel.modelConfig() == config);
    QVERIFY(childNamed<QLabel>(&panel, "modelErrorLabel")->isHidden());

    panel.setModelConfig(config, false);
    QVERIFY(!panel.modelSelected());
    QVERIFY(panel.modelConfig() == config); // settings kept while unused
}

void TestModelPanel::torchScriptEntryTakesTheTypedFile()
{
    ModelPanel panel;
    panel.setCapabilities(cpuOnly());
    panel.setChecked(true);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto *path = childNamed<QLineEdit>(&panel, "scriptPathEdit");
    QVERIFY(!path->isEnabled()); // a built-in model is selected
    auto *model = childNamed<QComboBox>(&panel, "modelCombo");
    const int script = model->count() - 1;
    QVERIFY(model->itemText(script).contains(QStringLiteral("TorchScript")));
    model->setCurrentIndex(script);
    QVERIFY(path->isEnabled());
    QVERIFY(childNamed<QToolButton>(&panel, "scriptBrowseButton")->isEnabled());

    QSignalSpy changed(&panel, &ModelPanel::changed);
    path->setFocus();
    QTest::keyClicks(path, QStringLiteral("/models/net.pt"));
    QCOMPARE(changed.count(), 0); // typing alone applies nothing
    QTest::keyClick(path, Qt::Key_Return);
    QCOMPARE(changed.count(), 1);
    const ModelConfig config = panel.modelConfig();
    QCOMPARE(config.scriptPath, std::string("/models/net.pt"));
    QCOMPARE(config.name, std::string("resnet18")); // the built-in choice stays

    // Back to a built-in model: the file no longer applies.
    model->setCurrentIndex(model->findData(QStringLiteral("mobilenet_v2")));
    QVERIFY(panel.modelConfig().scriptPath.empty());
    QVERIFY(!path->isEnabled());
}

void TestModelPanel::unusableDeviceFallsBackToCpuWithANote()
{
    ModelPanel panel;
    panel.setCapabilities(cpuOnly());
    ModelConfig config;
    config.device = "cuda";
    config.precision = ModelPrecision::BFloat16;
    panel.setModelConfig(config, true);
    QCOMPARE(panel.modelConfig().device, std::string("cpu"));
    QCOMPARE(panel.modelConfig().precision, ModelPrecision::BFloat16);
    auto *error = childNamed<QLabel>(&panel, "modelErrorLabel");
    QVERIFY(!error->isHidden());
    QVERIFY2(error->text().contains(QStringLiteral("cuda"))
                 && error->text().contains(QStringLiteral("has no CUDA support")),
             qPrintable(error->text()));

    config.device = "cpu";
    config.precision = ModelPrecision::Float16;
    panel.setModelConfig(config, true);
    QCOMPARE(panel.modelConfig().precision, ModelPrecision::Float32);
    QVERIFY2(error->text().contains(QStringLiteral("fp16")), qPrintable(error->text()));
}

void TestModelPanel::errorsShowAndClear()
{
    ModelPanel panel;
    panel.setCapabilities(cpuOnly());
    auto *error = childNamed<QLabel>(&panel, "modelErrorLabel");
    QVERIFY(error->isHidden());
    panel.showError(QStringLiteral("/models/broken.pt: not a TorchScript module"));
    QVERIFY(!error->isHidden());
    QVERIFY(error->text().contains(QStringLiteral("broken.pt")));
    panel.clearError();
    QVERIFY(error->isHidden());
}

void TestModelPanel::controlPanelSwitchesTheStepToTheModel()
{
    ControlPanel controls;
    auto *panel = controls.modelPanel();
    QVERIFY(!panel->isEnabled()); // no capabilities yet: no models in this build
    RunConfig config = controls.config();
    config.consumer.kind = ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 20.0;
    config.consumer.model.name = "resnet50";
    controls.setConfig(config);
    controls.setModelCapabilities(cpuOnly());
    QVERIFY(panel->isEnabled());
    QCOMPARE(controls.config().consumer.kind, ConsumerKind::Sleep);
    QCOMPARE(controls.config().consumer.model.name, std::string("resnet50"));

    auto *sleepGroup = childNamed<QWidget>(&controls, "sleepSampleSpin")->parentWidget();
    QVERIFY(sleepGroup->isEnabled());
    QSignalSpy changed(&controls, &ControlPanel::loaderSettingsChanged);
    panel->setChecked(true);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(controls.config().consumer.kind, ConsumerKind::Model);
    QCOMPARE(controls.config().consumer.model.name, std::string("resnet50"));
    QCOMPARE(controls.config().consumer.sleepPerBatchMs, 20.0); // kept, unused
    QVERIFY(!sleepGroup->isEnabled());
    QVERIFY(sleepGroup->toolTip().contains(QStringLiteral("LibTorch model")));

    panel->setChecked(false);
    QCOMPARE(controls.config().consumer.kind, ConsumerKind::Sleep);
    QVERIFY(sleepGroup->isEnabled());

    // A saved run with a model step comes back as one.
    config.consumer.kind = ConsumerKind::Model;
    controls.setConfig(config);
    QVERIFY(panel->isChecked());
    QCOMPARE(controls.config().consumer.kind, ConsumerKind::Model);
}

LOADERLAB_TEST_MAIN(TestModelPanel)
#include "test_model_panel.moc"
