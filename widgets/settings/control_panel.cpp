#include "widgets/settings/control_panel.h"

#include "widgets/common/form_helpers.h"
#include "widgets/common/marker_text.h"
#include "widgets/common/wheel_guard.h"
#include "widgets/settings/model_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QThread>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <vector>

namespace loaderlab {

using formhelpers::formFor;
using formhelpers::named;
using formhelpers::row;

namespace {

constexpr int kMaxBatchLog2 = 12;        // the batch slider spans 1..4096
constexpr int kSleepBatchSliderMs = 500; // the slider covers the useful range only

// Slider position of the power of two nearest (in log scale) to `batchSize`.
int batchSliderPosition(int batchSize)
{
    const double log2 = std::log2(static_cast<double>(std::max(batchSize, 1)));
    return std::clamp(static_cast<int>(std::lround(log2)), 0, kMaxBatchLog2);
}

// A form row's label: the config field's translated label.
QString label(std::string_view key)
{
    return markertext::fieldLabel(ConfigBinding::field(key));
}

// Combo entries carry the field's choice names as data (what ConfigBinding reads).
void addChoice(QComboBox *combo, const QString &text, const char *choice)
{
    combo->addItem(text, QString::fromLatin1(choice));
}

} // namespace

ControlPanel::ControlPanel(QWidget *parent)
    : QWidget(parent)
{
    m_config.epochs = 0;
    // The settings scroll when the window is short; the Run buttons stay below them,
    // always in view (as does whatever the window puts under the panel).
    auto *settings = new QWidget;
    auto *settingsLayout = new QVBoxLayout(settings);
    settingsLayout->setContentsMargins(0, 0, 0, 0);
    settingsLayout->addWidget(buildLoaderGroup());
    settingsLayout->addWidget(buildModelGroup());
    m_modelPanel = new ModelPanel;
    settingsLayout->addWidget(m_modelPanel);
    settingsLayout->addWidget(buildDatasetGroup());
    settingsLayout->addStretch(1);
    auto *scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("settingsScroll"));
    scroll->setWidget(settings);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // As wide as the settings need (German labels are longer), scroll bar included.
    scroll->setMinimumWidth(settings->minimumSizeHint().width()
                            + scroll->verticalScrollBar()->sizeHint().width());
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll, 1);
    layout->addWidget(buildRunGroup());
    connectLoaderControls();
    connectDatasetControls();
    setConfig(m_config);
    WheelGuard::install(this); // the wheel scrolls the settings, never retunes a live run
}

QWidget *ControlPanel::buildLoaderGroup()
{
    auto *box = new QGroupBox(tr("Loader"));
    auto *form = formFor(box);

    // Each spin box is bound to its config field (range and tooltip from the config
    // table); its slider is a shortcut over the useful part of the range.
    m_workersSpin = m_binding.bind("loader.num_workers", named(new QSpinBox, "workersSpin", {}));
    m_workersSlider = named(new QSlider(Qt::Horizontal), "workersSlider", m_workersSpin->toolTip());
    m_workersSlider->setRange(0, 2 * std::max(1, QThread::idealThreadCount()));
    form->addRow(label("loader.num_workers"), row(m_workersSlider, m_workersSpin));

    m_batchSpin = m_binding.bind("loader.batch_size", named(new QSpinBox, "batchSizeSpin", {}));
    m_batchSlider = named(new QSlider(Qt::Horizontal), "batchSizeSlider",
                          tr("Samples per batch; the slider steps through powers of two, "
                             "any size can be typed."));
    m_batchSlider->setRange(0, kMaxBatchLog2);
    m_batchSlider->setPageStep(2);
    form->addRow(label("loader.batch_size"), row(m_batchSlider, m_batchSpin));

    m_prefetchSpin = m_binding.bind("loader.prefetch_factor",
                                    named(new QSpinBox, "prefetchSpin", {}));
    form->addRow(label("loader.prefetch_factor"), m_prefetchSpin);

    // Data-parallel ranks, each with its own loader and device (docs/data-parallel.md).
    m_devicesSpin = m_binding.bind("devices", named(new QSpinBox, "devicesSpin", {}));
    m_devicesSlider = named(new QSlider(Qt::Horizontal), "devicesSlider", m_devicesSpin->toolTip());
    m_devicesSlider->setRange(1, 8);
    m_devicesToolTip = m_devicesSpin->toolTip();
    form->addRow(label("devices"), row(m_devicesSlider, m_devicesSpin));

    m_strategyCombo = named(new QComboBox, "strategyCombo", {});
    addChoice(m_strategyCombo, tr("per-worker (PyTorch)"), "per-worker");
    addChoice(m_strategyCombo, tr("sample-parallel"), "sample-parallel");
    form->addRow(label("loader.strategy"), m_binding.bind("loader.strategy", m_strategyCombo));

    const auto check = [this](const char *key, const char *name) {
        return m_binding.bind(key, named(new QCheckBox(label(key)), name, {}));
    };
    m_shuffleCheck = check("loader.shuffle", "shuffleCheck");
    m_dropLastCheck = check("loader.drop_last", "dropLastCheck");
    m_pinMemoryCheck = check("loader.pin_memory", "pinMemoryCheck");
    m_pinToolTip = m_pinMemoryCheck->toolTip();
    m_persistentCheck = check("loader.persistent_workers", "persistentCheck");
    m_outOfOrderCheck = m_binding.bind(
        "loader.in_order", named(new QCheckBox(tr("Deliver out of order")), "outOfOrderCheck", {}),
        true);
    auto *checks = new QWidget;
    auto *grid = new QGridLayout(checks);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_shuffleCheck, 0, 0);
    grid->addWidget(m_dropLastCheck, 0, 1);
    grid->addWidget(m_pinMemoryCheck, 1, 0);
    grid->addWidget(m_persistentCheck, 1, 1);
    grid->addWidget(m_outOfOrderCheck, 2, 0, 1, 2);
    form->addRow(checks);

    form->addRow(buildAutotuneRows());
    return box;
}

QWidget *ControlPanel::buildModelGroup()
{
    auto *box = new QGroupBox(tr("Model step (simulated)"));
    m_sleepGroup = box;
    auto *form = formFor(box);

    m_sleepBatchSpin = m_binding.bind("consumer.sleep_per_batch_ms",
                                      named(new QDoubleSpinBox, "sleepBatchSpin", {}));
    m_sleepBatchSpin->setDecimals(1);
    m_sleepBatchSpin->setSuffix(tr(" ms"));
    m_sleepBatchSlider = named(new QSlider(Qt::Horizontal), "sleepBatchSlider",
                               m_sleepBatchSpin->toolTip());
    m_sleepBatchSlider->setRange(0, kSleepBatchSliderMs);
    m_sleepBatchSlider->setSingleStep(1);
    m_sleepBatchSlider->setPageStep(10);
    form->addRow(label("consumer.sleep_per_batch_ms"), row(m_sleepBatchSlider, m_sleepBatchSpin));

    m_sleepSampleSpin = m_binding.bind("consumer.sleep_per_sample_ms",
                                       named(new QDoubleSpinBox, "sleepSampleSpin", {}));
    m_sleepSampleSpin->setDecimals(3);
    m_sleepSampleSpin->setSingleStep(0.1);
    m_sleepSampleSpin->setSuffix(tr(" ms"));
    form->addRow(label("consumer.sleep_per_sample_ms"), m_sleepSampleSpin);
    return box;
}

QWidget *ControlPanel::buildDatasetGroup()
{
    auto *box = new QGroupBox(tr("Dataset"));
    auto *form = formFor(box);

    m_datasetKindCombo = named(new QComboBox, "datasetKindCombo", {});
    for (const loaderlab::DatasetKindInfo &kind : loaderlab::datasetKinds()) {
        m_datasetKindCombo->addItem(QCoreApplication::translate("DatasetKind", kind.label.data()),
                                    QString::fromLatin1(kind.name.data()));
    }
    form->addRow(label("dataset.kind"), m_binding.bind("dataset.kind", m_datasetKindCombo));

    m_datasetPathEdit = m_binding.bindPath("dataset.path",
                                           named(new QLineEdit, "datasetPathEdit", {}));
    m_datasetPathEdit->setToolTip(m_datasetPathEdit->toolTip() + QLatin1Char(' ')
                                  + tr("Applied on Return."));
    m_browseButton = named(new QToolButton, "browseButton", tr("Choose the dataset on disk."));
    m_browseButton->setText(tr("Browse…"));
    form->addRow(label("dataset.path"), row(m_datasetPathEdit, m_browseButton));

    // A pipeline file's arguments: shown for that kind only.
    m_argsTable = named(new QTableWidget(0, 2), "datasetArgsTable", {});
    m_argsTable->setHorizontalHeaderLabels({tr("Name"), tr("Value")});
    m_argsTable->horizontalHeader()->setStretchLastSection(true);
    m_argsTable->verticalHeader()->hide();
    m_argsTable->setMaximumHeight(m_argsTable->fontMetrics().height() * 7);
    m_binding.bindEntries("dataset.args", m_argsTable);
    m_argsLabel = new QLabel(label("dataset.args"));
    form->addRow(m_argsLabel, m_argsTable);

    m_transformCombo = named(new QComboBox, "transformCombo", {});
    addChoice(m_transformCombo, tr("eval"), "eval");
    addChoice(m_transformCombo, tr("train"), "train");
    form->addRow(label("dataset.transform"), m_binding.bind("dataset.transform", m_transformCombo));
    m_fastDecodeCheck = m_binding.bindChoice(
        "dataset.decode", named(new QCheckBox(tr("Fast JPEG decode")), "fastDecodeCheck", {}),
        "fast", "exact");
    form->addRow(m_fastDecodeCheck);

    m_datasetErrorLabel = new QLabel;
    m_datasetErrorLabel->setObjectName(QStringLiteral("datasetErrorLabel"));
    m_datasetErrorLabel->setWordWrap(true);
    m_datasetErrorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_datasetErrorLabel->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_datasetErrorLabel->hide();
    form->addRow(m_datasetErrorLabel);
    return box;
}

QWidget *ControlPanel::buildRunGroup()
{
    auto *box = new QGroupBox(tr("Run"));
    auto *layout = new QGridLayout(box);
    m_startButton = named(new QPushButton(tr("Start")), "startButton",
                          tr("Open the dataset and start loading until stopped."));
    m_pauseButton = named(new QPushButton(tr("Pause")), "pauseButton",
                          tr("Hold the model loop; workers stop once their prefetch is full."));
    m_pauseButton->setCheckable(true);
    m_stopButton = named(new QPushButton(tr("Stop")), "stopButton",
                         tr("End the run and keep its figures."));
    m_resetButton = named(new QPushButton(tr("Reset")), "resetButton",
                          tr("Stop and clear the current run and its plots."));
    layout->addWidget(m_startButton, 0, 0);
    layout->addWidget(m_pauseButton, 0, 1);
    layout->addWidget(m_stopButton, 1, 0);
    layout->addWidget(m_resetButton, 1, 1);
    m_runErrorLabel = named(new QLabel, "runErrorLabel", {});
    m_runErrorLabel->setWordWrap(true);
    m_runErrorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_runErrorLabel->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_runErrorLabel->hide();
    layout->addWidget(m_runErrorLabel, 2, 0, 1, 2);

    connect(m_startButton, &QPushButton::clicked, this, &ControlPanel::startRequested);
    connect(m_stopButton, &QPushButton::clicked, this, &ControlPanel::stopRequested);
    connect(m_resetButton, &QPushButton::clicked, this, &ControlPanel::resetRequested);
    connect(m_pauseButton, &QPushButton::toggled, this, [this](bool paused) {
        updatePauseText();
        Q_EMIT pauseToggled(paused);
    });
    setRunState(RunState::Idle);
    return box;
}

void ControlPanel::connectLoaderControls()
{
    // Each slider drives its spin box, which alone announces the change; the spin box
    // moves its slider back with signals blocked, so one edit emits once.
    connect(m_workersSlider, &QSlider::valueChanged, m_workersSpin, &QSpinBox::setValue);
    connect(m_workersSpin, &QSpinBox::valueChanged, this, [this](int workers) {
        const QSignalBlocker blocker(m_workersSlider);
        m_workersSlider->setValue(workers); // clamps; the spin keeps larger values
        Q_EMIT loaderSettingsChanged();
    });
    connect(m_devicesSlider, &QSlider::valueChanged, m_devicesSpin, &QSpinBox::setValue);
    connect(m_devicesSpin, &QSpinBox::valueChanged, this, [this](int devices) {
        const QSignalBlocker blocker(m_devicesSlider);
        m_devicesSlider->setValue(devices);
        Q_EMIT devicesChanged();
    });
    connect(m_batchSlider, &QSlider::valueChanged, this,
            [this](int position) { m_batchSpin->setValue(1 << position); });
    connect(m_batchSpin, &QSpinBox::valueChanged, this, [this](int batchSize) {
        const QSignalBlocker blocker(m_batchSlider);
        m_batchSlider->setValue(batchSliderPosition(batchSize));
        Q_EMIT loaderSettingsChanged();
    });
    connect(m_sleepBatchSlider, &QSlider::valueChanged, this,
            [this](int ms) { m_sleepBatchSpin->setValue(ms); });
    connect(m_sleepBatchSpin, &QDoubleSpinBox::valueChanged, this, [this](double ms) {
        const QSignalBlocker blocker(m_sleepBatchSlider);
        m_sleepBatchSlider->setValue(static_cast<int>(std::lround(ms)));
        Q_EMIT loaderSettingsChanged();
    });

    const auto changed = [this] { Q_EMIT loaderSettingsChanged(); };
    connect(m_prefetchSpin, &QSpinBox::valueChanged, this, changed);
    connect(m_sleepSampleSpin, &QDoubleSpinBox::valueChanged, this, changed);
    connect(m_strategyCombo, &QComboBox::currentIndexChanged, this, changed);
    for (QCheckBox *check :
         {m_shuffleCheck, m_dropLastCheck, m_pinMemoryCheck, m_persistentCheck, m_outOfOrderCheck})
        connect(check, &QCheckBox::toggled, this, changed);
    connect(m_modelPanel, &ModelPanel::changed, this, [this] {
        updateStepEnabled();
        Q_EMIT loaderSettingsChanged();
    });
}

void ControlPanel::connectDatasetControls()
{
    connect(m_datasetKindCombo, &QComboBox::currentIndexChanged, this, [this] {
        updateDatasetEnabled();
        Q_EMIT datasetSettingsChanged();
    });
    connect(m_transformCombo, &QComboBox::currentIndexChanged, this,
            &ControlPanel::datasetSettingsChanged);
    connect(m_fastDecodeCheck, &QCheckBox::toggled, this, &ControlPanel::datasetSettingsChanged);
    connect(m_datasetPathEdit, &QLineEdit::editingFinished, this,
            &ControlPanel::onPathEditingFinished);
    connect(m_browseButton, &QToolButton::clicked, this, &ControlPanel::browseForDataset);
    connect(m_argsTable, &QTableWidget::itemChanged, this, [this] {
        // Always one empty row at the end to add an argument.
        const int last = m_argsTable->rowCount() - 1;
        const QTableWidgetItem *name = last >= 0 ? m_argsTable->item(last, 0) : nullptr;
        if (last < 0 || (name && !name->text().trimmed().isEmpty()))
            m_argsTable->insertRow(m_argsTable->rowCount());
        Q_EMIT datasetSettingsChanged();
    });
}

loaderlab::RunConfig ControlPanel::config() const
{
    loaderlab::RunConfig config = m_config;
    config.epochs = 0;
    m_binding.read(config);
    config.loader.pinMemory = config.loader.pinMemory && m_pinAvailable;

    loaderlab::ConsumerConfig &consumer = config.consumer;
    consumer.model = m_modelPanel->modelConfig(); // kept even while unused
    // The panel has no kind control: the model check box and the step's times say it.
    consumer.kind = loaderlab::impliedConsumerKind(consumer, m_modelPanel->modelSelected(), true,
                                                   loaderlab::ConsumerKind::None);
    return config;
}

void ControlPanel::setConfig(const loaderlab::RunConfig &config)
{
    m_config = config;
    QList<QObject *> controls = m_binding.controls();
    controls << m_workersSlider << m_batchSlider << m_sleepBatchSlider << m_devicesSlider;
    std::vector<QSignalBlocker> blockers;
    blockers.reserve(static_cast<std::size_t>(controls.size()));
    for (QObject *control : controls)
        blockers.emplace_back(control);

    m_binding.write(config);
    m_workersSlider->setValue(config.loader.numWorkers);
    m_devicesSlider->setValue(config.devices);
    m_batchSlider->setValue(batchSliderPosition(config.loader.batchSize));
    m_sleepBatchSlider->setValue(static_cast<int>(std::lround(config.consumer.sleepPerBatchMs)));
    m_pinMemoryCheck->setChecked(m_pinAvailable && config.loader.pinMemory);
    m_modelPanel->setModelConfig(config.consumer.model,
                                 config.consumer.kind == loaderlab::ConsumerKind::Model);
    updateStepEnabled();
    m_emittedPath = m_datasetPathEdit->text();
    updateDatasetEnabled();
}

void ControlPanel::setPinMemoryAvailable(bool available, const QString &reason)
{
    m_pinAvailable = available;
    m_pinMemoryCheck->setEnabled(available);
    if (available) {
        m_pinMemoryCheck->setToolTip(m_pinToolTip);
        return;
    }
    const QSignalBlocker blocker(m_pinMemoryCheck);
    m_pinMemoryCheck->setChecked(false);
    m_pinMemoryCheck->setToolTip(tr("Not available: %1").arg(reason));
}

void ControlPanel::setModelCapabilities(const loaderlab::ModelCapabilities &capabilities)
{
    const QSignalBlocker blocker(m_modelPanel);
    m_modelPanel->setCapabilities(capabilities);
    updateStepEnabled();
}

void ControlPanel::updateStepEnabled()
{
    // One step per batch: a real model replaces the simulated one.
    const bool model = m_modelPanel->modelSelected();
    m_sleepGroup->setEnabled(!model);
    m_sleepGroup->setToolTip(model ? tr("Replaced by the LibTorch model below; uncheck it to "
                                        "simulate the step.")
                                   : QString());
}

void ControlPanel::setRunState(RunState state)
{
    const bool active = state == RunState::Running || state == RunState::Paused;
    m_startButton->setEnabled(!active);
    m_pauseButton->setEnabled(active);
    m_stopButton->setEnabled(active);
    {
        const QSignalBlocker blocker(m_pauseButton);
        m_pauseButton->setChecked(state == RunState::Paused);
    }
    updatePauseText();
}

void ControlPanel::showTuned(int workers, int prefetch, int batchSize)
{
    const QSignalBlocker b1(m_workersSpin), b2(m_workersSlider), b3(m_prefetchSpin),
        b4(m_batchSpin), b5(m_batchSlider);
    m_workersSpin->setValue(workers);
    m_workersSlider->setValue(workers);
    m_prefetchSpin->setValue(prefetch);
    m_batchSpin->setValue(batchSize);
    m_batchSlider->setValue(batchSliderPosition(batchSize));
}

void ControlPanel::showDatasetError(const QString &message)
{
    m_datasetErrorLabel->setText(message);
    m_datasetErrorLabel->setVisible(!message.isEmpty());
}

void ControlPanel::clearDatasetError()
{
    showDatasetError(QString());
}

void ControlPanel::showRunError(const QString &message)
{
    m_runErrorLabel->setText(message);
    m_runErrorLabel->setVisible(!message.isEmpty());
}

void ControlPanel::browseForDataset()
{
    const QString start = m_datasetPathEdit->text();
    const DatasetKind kind = datasetKind();
    QString path;
    if (kind == DatasetKind::Python)
        path = QFileDialog::getOpenFileName(this, tr("Choose a Python pipeline file"), start,
                                            tr("Python files (*.py);;All files (*)"));
    else if (loaderlab::datasetKindInfo(kind).path == loaderlab::DatasetPathKind::File)
        path = QFileDialog::getOpenFileName(this, tr("Choose a preprocessed tensor file"), start);
    else
        path = QFileDialog::getExistingDirectory(this, tr("Choose the dataset directory"), start);
    if (path.isEmpty())
        return; // cancelled
    m_datasetPathEdit->setText(path);
    m_emittedPath = path;
    Q_EMIT datasetSettingsChanged();
}

void ControlPanel::onPathEditingFinished()
{
    if (formhelpers::takePathToApply(m_datasetPathEdit, m_emittedPath))
        Q_EMIT datasetSettingsChanged();
}

void ControlPanel::updateDatasetEnabled()
{
    const loaderlab::DatasetKindInfo &kind = loaderlab::datasetKindInfo(datasetKind());
    m_datasetPathEdit->setEnabled(kind.path != loaderlab::DatasetPathKind::None);
    m_browseButton->setEnabled(kind.path != loaderlab::DatasetPathKind::None);
    m_transformCombo->setEnabled(kind.imageTransform);
    m_fastDecodeCheck->setEnabled(kind.imageTransform);
    m_argsLabel->setVisible(kind.kind == DatasetKind::Python);
    m_argsTable->setVisible(kind.kind == DatasetKind::Python);
}

DatasetKind ControlPanel::datasetKind() const
{
    return loaderlab::datasetKindFromName(
               m_datasetKindCombo->currentData().toString().toStdString())
        .value_or(DatasetKind::Synthetic);
}

void ControlPanel::togglePause()
{
    if (m_pauseButton->isEnabled())
        m_pauseButton->toggle();
}

void ControlPanel::updatePauseText()
{
    m_pauseButton->setText(m_pauseButton->isChecked() ? tr("Resume") : tr("Pause"));
}

} // namespace loaderlab
