#include "widgets/settings/model_panel.h"

#include "widgets/common/form_helpers.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QThread>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <vector>

namespace loaderlab {

using formhelpers::formFor;
using formhelpers::named;
using formhelpers::row;
using formhelpers::selectData;

namespace {

// The model combo's last entry: the user's own TorchScript file.
const QString kScriptEntry = QStringLiteral("torchscript");

// Greys one entry out (it stays listed, so the user sees it exists) and says why.
void setItemEnabled(QComboBox *combo, int index, bool enabled, const QString &toolTip)
{
    auto *model = qobject_cast<QStandardItemModel *>(combo->model());
    if (!model || index < 0)
        return;
    if (QStandardItem *item = model->item(index)) {
        item->setEnabled(enabled);
        item->setToolTip(toolTip);
    }
}

bool isCuda(const QString &device)
{
    return device.startsWith(QStringLiteral("cuda"));
}

} // namespace

ModelPanel::ModelPanel(QWidget *parent)
    : QGroupBox(tr("LibTorch model"), parent)
{
    setObjectName(QStringLiteral("modelPanel"));
    setCheckable(true);
    setChecked(false);
    buildControls();
    connectControls();
    setCapabilities({});
}

void ModelPanel::buildControls()
{
    // The controls sit in a body that is folded away while the group is unchecked
    // (the simulated step is used): the side panel keeps its stats in view.
    auto *layout = new QVBoxLayout(this);
    m_bodyMargins = layout->contentsMargins();
    m_body = new QWidget;
    m_body->setObjectName(QStringLiteral("modelPanelBody"));
    layout->addWidget(m_body);
    QFormLayout *form = formFor(m_body);
    form->setContentsMargins(0, 0, 0, 0);

    m_modelCombo = named(new QComboBox, "modelCombo",
                         tr("A built-in architecture with random weights (torchvision's "
                            "layers and parameter counts), or your own TorchScript file."));
    form->addRow(tr("Model"), m_modelCombo);

    m_scriptEdit = named(new QLineEdit, "scriptPathEdit",
                         tr("A module saved with torch.jit.save; it is fed the dataset's "
                            "batches as they are. Applied on Return."));
    m_scriptBrowse = named(new QToolButton, "scriptBrowseButton",
                           tr("Choose a TorchScript file on disk."));
    m_scriptBrowse->setText(tr("Browse…"));
    form->addRow(tr("File"), row(m_scriptEdit, m_scriptBrowse));

    m_modeCombo = named(new QComboBox, "modeCombo",
                        tr("Inference runs the forward pass without gradients; a training "
                           "step adds cross-entropy on the batch labels, backward and an "
                           "optimizer step."));
    m_modeCombo->addItem(tr("inference"), QVariant::fromValue(ModelMode::Inference));
    m_modeCombo->addItem(tr("training step"), QVariant::fromValue(ModelMode::Train));
    m_optimizerCombo = named(new QComboBox, "optimizerCombo",
                             tr("The optimizer of the training step."));
    m_optimizerCombo->addItem(tr("SGD"), QStringLiteral("sgd"));
    m_optimizerCombo->addItem(tr("Adam"), QStringLiteral("adam"));
    form->addRow(tr("Mode"), row(m_modeCombo, m_optimizerCombo));

    m_deviceCombo = named(new QComboBox, "deviceCombo",
                          tr("Where the model runs; batches are copied there."));
    form->addRow(tr("Device"), m_deviceCombo);
    m_deviceNote = new QLabel;
    m_deviceNote->setObjectName(QStringLiteral("deviceNoteLabel"));
    m_deviceNote->setWordWrap(true);
    m_deviceNote->setStyleSheet(QStringLiteral("color: gray;"));
    form->addRow(m_deviceNote);

    m_precisionCombo = named(new QComboBox, "precisionCombo",
                             tr("fp32, or mixed precision through autocast: bf16 on the CPU, "
                                "fp16 or bf16 on CUDA."));
    m_precisionCombo->addItem(tr("fp32"), QVariant::fromValue(ModelPrecision::Float32));
    m_precisionCombo->addItem(tr("bf16 (autocast)"), QVariant::fromValue(ModelPrecision::BFloat16));
    m_precisionCombo->addItem(tr("fp16 (autocast)"), QVariant::fromValue(ModelPrecision::Float16));
    form->addRow(tr("Precision"), m_precisionCombo);

    m_layoutCombo = named(new QComboBox, "layoutCombo",
                          tr("Memory format of the input and the weights; convolutions often "
                             "run faster channels-last."));
    m_layoutCombo->addItem(tr("NCHW (contiguous)"), false);
    m_layoutCombo->addItem(tr("channels-last (NHWC)"), true);
    form->addRow(tr("Layout"), m_layoutCombo);

    m_threadsSpin = named(new QSpinBox, "threadsSpin",
                          tr("Intra-op threads of the model's kernels (torch.set_num_threads); "
                             "the loader's workers compete for the same cores."));
    m_threadsSpin->setRange(0, 4 * std::max(1, QThread::idealThreadCount()));
    m_threadsSpin->setSpecialValueText(tr("all cores"));
    form->addRow(tr("Threads"), m_threadsSpin);

    m_checkpointCheck = named(new QCheckBox(tr("Activation checkpointing")), "checkpointCheck",
                              tr("Training step only: keep only each stage's input and "
                                 "recompute its activations in backward, trading time for "
                                 "memory."));
    form->addRow(m_checkpointCheck);

    m_errorLabel = new QLabel;
    m_errorLabel->setObjectName(QStringLiteral("modelErrorLabel"));
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_errorLabel->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_errorLabel->hide();
    form->addRow(m_errorLabel);
}

void ModelPanel::connectControls()
{
    const auto changedNow = [this] {
        updateEnabled();
        Q_EMIT changed();
    };
    connect(this, &QGroupBox::toggled, this, [this, changedNow](bool checked) {
        m_selectionRequested = checked;
        changedNow();
    });
    for (QComboBox *combo : {m_modelCombo, m_modeCombo, m_optimizerCombo, m_deviceCombo,
                             m_precisionCombo, m_layoutCombo})
        connect(combo, &QComboBox::currentIndexChanged, this, changedNow);
    connect(m_threadsSpin, &QSpinBox::valueChanged, this, changedNow);
    connect(m_checkpointCheck, &QCheckBox::toggled, this, changedNow);
    connect(m_scriptEdit, &QLineEdit::editingFinished, this, &ModelPanel::onScriptEditingFinished);
    connect(m_scriptBrowse, &QToolButton::clicked, this, &ModelPanel::browseForScript);
}

void ModelPanel::setCapabilities(const loaderlab::ModelCapabilities &capabilities)
{
    // Without models the controls could not hold the settings: take them as given.
    const loaderlab::ModelConfig current = m_capabilities.available() ? modelConfig() : m_config;
    m_capabilities = capabilities;
    {
        const QSignalBlocker blocker(m_modelCombo);
        m_modelCombo->clear();
        for (const std::string &name : capabilities.builtinModels)
            m_modelCombo->addItem(QString::fromStdString(name), QString::fromStdString(name));
        if (capabilities.available()) {
            m_modelCombo->insertSeparator(m_modelCombo->count());
            m_modelCombo->addItem(tr("TorchScript file…"), kScriptEntry);
        }
    }
    fillDevices();
    setEnabled(capabilities.available());
    setToolTip(capabilities.available()
                   ? tr("Run a real model on every batch instead of the simulated step.")
                   : tr("Not available: this build of LoaderLab has no LibTorch models "
                        "(it was configured with LOADERLAB_WITH_TORCH=OFF)."));
    setModelConfig(current, m_selectionRequested);
}

void ModelPanel::fillDevices()
{
    const QSignalBlocker blocker(m_deviceCombo);
    m_deviceCombo->clear();
    m_deviceCombo->addItem(tr("CPU"), QStringLiteral("cpu"));
    if (m_capabilities.cudaAvailable) {
        for (int i = 0; i < m_capabilities.cudaDevices; ++i)
            m_deviceCombo->addItem(tr("CUDA %1").arg(i), QStringLiteral("cuda:%1").arg(i));
        m_deviceNote->hide();
        return;
    }
    // Listed but greyed out, so the option is visible and the reason one hover away.
    m_deviceCombo->addItem(tr("CUDA (not available)"), QStringLiteral("cuda"));
    setItemEnabled(m_deviceCombo, 1, false, deviceUnavailableText());
    m_deviceNote->setText(deviceUnavailableText());
    m_deviceNote->setVisible(m_capabilities.available());
}

QString ModelPanel::deviceUnavailableText() const
{
    return tr("CUDA not available: %1.")
        .arg(QString::fromStdString(m_capabilities.cudaUnavailableReason.empty()
                                        ? std::string("no CUDA device")
                                        : m_capabilities.cudaUnavailableReason));
}

bool ModelPanel::modelSelected() const
{
    return isChecked() && m_capabilities.available();
}

bool ModelPanel::scriptSelected() const
{
    return m_modelCombo->currentData().toString() == kScriptEntry;
}

loaderlab::ModelConfig ModelPanel::modelConfig() const
{
    loaderlab::ModelConfig config = m_config;
    if (m_modelCombo->count() > 0) {
        if (scriptSelected()) {
            config.scriptPath = m_scriptEdit->text().toStdString();
        } else {
            config.name = m_modelCombo->currentData().toString().toStdString();
            config.scriptPath.clear();
        }
    }
    config.mode = m_modeCombo->currentData().value<ModelMode>();
    config.optimizer = m_optimizerCombo->currentData().toString().toStdString();
    config.device = m_deviceCombo->currentData().toString().toStdString();
    config.precision = m_precisionCombo->currentData().value<ModelPrecision>();
    config.channelsLast = m_layoutCombo->currentData().toBool();
    config.threads = m_threadsSpin->value();
    config.checkpointing = m_checkpointCheck->isChecked();
    return config;
}

void ModelPanel::setModelConfig(const loaderlab::ModelConfig &config, bool selected)
{
    m_config = config;
    m_selectionRequested = selected;
    const QList<QObject *> controls = {
        this,          m_modelCombo,     m_scriptEdit,  m_modeCombo,   m_optimizerCombo,
        m_deviceCombo, m_precisionCombo, m_layoutCombo, m_threadsSpin, m_checkpointCheck};
    std::vector<QSignalBlocker> blockers;
    blockers.reserve(static_cast<std::size_t>(controls.size()));
    for (QObject *control : controls)
        blockers.emplace_back(control);

    setChecked(selected && m_capabilities.available());
    selectData(m_modelCombo,
               config.scriptPath.empty() ? QString::fromStdString(config.name) : kScriptEntry);
    m_scriptEdit->setText(QString::fromStdString(config.scriptPath));
    m_emittedScript = m_scriptEdit->text();
    selectData(m_modeCombo, QVariant::fromValue(config.mode));
    selectData(m_optimizerCombo, QString::fromStdString(config.optimizer));
    selectData(m_layoutCombo, config.channelsLast);
    m_threadsSpin->setValue(config.threads);
    m_checkpointCheck->setChecked(config.checkpointing);

    const QString device = QString::fromStdString(config.device);
    const QString wanted = device == QStringLiteral("cuda") ? QStringLiteral("cuda:0") : device;
    const int deviceIndex = m_deviceCombo->findData(wanted);
    const bool usable =
        deviceIndex >= 0
        && (m_deviceCombo->model()->flags(m_deviceCombo->model()->index(deviceIndex, 0))
            & Qt::ItemIsEnabled);
    m_deviceCombo->setCurrentIndex(usable ? deviceIndex : 0);
    clearError();
    if (!usable && device != QStringLiteral("cpu"))
        showError(tr("The settings ask for device %1, which this machine cannot use; the "
                     "model runs on the CPU. %2")
                      .arg(device, deviceUnavailableText()));
    selectData(m_precisionCombo, QVariant::fromValue(config.precision));
    if (config.precision == ModelPrecision::Float16
        && !isCuda(m_deviceCombo->currentData().toString()))
        showError(tr("fp16 autocast needs a CUDA device; the model runs in fp32 on the CPU."));
    updateEnabled();
}

void ModelPanel::showError(const QString &message)
{
    m_errorLabel->setText(message);
    m_errorLabel->setVisible(!message.isEmpty());
}

void ModelPanel::clearError()
{
    showError(QString());
}

void ModelPanel::updateEnabled()
{
    // Folded: only the title's check box, no empty frame under it.
    const bool open = isChecked();
    m_body->setVisible(open);
    setFlat(!open);
    layout()->setContentsMargins(open ? m_bodyMargins : QMargins());
    setMaximumHeight(open ? QWIDGETSIZE_MAX : fontMetrics().height() + 4);
    const bool train = m_modeCombo->currentData().value<ModelMode>() == ModelMode::Train;
    m_optimizerCombo->setEnabled(train);
    m_checkpointCheck->setEnabled(train);
    m_checkpointCheck->setToolTip(
        train ? tr("Keep only each stage's input and recompute its activations in backward, "
                   "trading time for memory.")
              : tr("Only for the training step: inference keeps no activations for backward."));

    const bool script = scriptSelected();
    m_scriptEdit->setEnabled(script);
    m_scriptBrowse->setEnabled(script);

    // fp16 autocast exists on CUDA only; on the CPU it falls back to fp32 here rather
    // than failing the run.
    const bool cuda = isCuda(m_deviceCombo->currentData().toString());
    const int fp16 = m_precisionCombo->findData(QVariant::fromValue(ModelPrecision::Float16));
    setItemEnabled(m_precisionCombo, fp16, cuda,
                   cuda ? QString()
                        : tr("fp16 autocast needs a CUDA device; on the CPU use bf16."));
    if (!cuda && m_precisionCombo->currentIndex() == fp16) {
        const QSignalBlocker blocker(m_precisionCombo);
        selectData(m_precisionCombo, QVariant::fromValue(ModelPrecision::Float32));
    }
}

void ModelPanel::browseForScript()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Choose a TorchScript model"), m_scriptEdit->text(),
        tr("TorchScript models (*.pt *.pth *.ts *.torchscript);;All files (*)"));
    if (path.isEmpty())
        return; // cancelled
    m_scriptEdit->setText(path);
    m_emittedScript = path;
    Q_EMIT changed();
}

void ModelPanel::onScriptEditingFinished()
{
    if (formhelpers::takePathToApply(m_scriptEdit, m_emittedScript))
        Q_EMIT changed();
}

} // namespace loaderlab
