#include "widgets/control_panel.h"

#include "widgets/form_helpers.h"
#include "widgets/model_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QThread>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <vector>

using loaderlab::DatasetKind;
using loaderlab::RunState;
using loaderlab::Strategy;
using loaderlab::TransformKind;
using formhelpers::formFor;
using formhelpers::named;
using formhelpers::row;
using formhelpers::selectData;

namespace {

constexpr int kMaxBatchLog2 = 12;        // the batch slider spans 1..4096
constexpr int kSleepBatchSliderMs = 500; // the slider covers the useful range only

// Slider position of the power of two nearest (in log scale) to `batchSize`.
int batchSliderPosition(int batchSize)
{
    const double log2 = std::log2(static_cast<double>(std::max(batchSize, 1)));
    return std::clamp(static_cast<int>(std::lround(log2)), 0, kMaxBatchLog2);
}

} // namespace

ControlPanel::ControlPanel(QWidget *parent)
    : QWidget(parent)
{
    m_config.epochs = 0;
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(buildLoaderGroup());
    layout->addWidget(buildModelGroup());
    m_modelPanel = new ModelPanel;
    layout->addWidget(m_modelPanel);
    layout->addWidget(buildDatasetGroup());
    layout->addWidget(buildRunGroup());
    layout->addStretch(1);
    connectLoaderControls();
    connectDatasetControls();
    setConfig(m_config);
}

QWidget *ControlPanel::buildLoaderGroup()
{
    auto *box = new QGroupBox(tr("Loader"));
    auto *form = formFor(box);

    m_workersSlider = named(new QSlider(Qt::Horizontal), "workersSlider",
                            tr("Worker threads loading batches; 0 loads on the model's "
                               "thread (PyTorch's num_workers)."));
    m_workersSlider->setRange(0, 2 * std::max(1, QThread::idealThreadCount()));
    m_workersSpin = named(new QSpinBox, "workersSpin", m_workersSlider->toolTip());
    m_workersSpin->setRange(0, 1024);
    form->addRow(tr("Workers"), row(m_workersSlider, m_workersSpin));

    m_batchSlider = named(new QSlider(Qt::Horizontal), "batchSizeSlider",
                          tr("Samples per batch; the slider steps through powers of two, "
                             "any size can be typed."));
    m_batchSlider->setRange(0, kMaxBatchLog2);
    m_batchSlider->setPageStep(2);
    m_batchSpin = named(new QSpinBox, "batchSizeSpin", m_batchSlider->toolTip());
    m_batchSpin->setRange(1, 65536);
    form->addRow(tr("Batch size"), row(m_batchSlider, m_batchSpin));

    m_prefetchSpin = named(new QSpinBox, "prefetchSpin",
                           tr("Batches each worker may have loaded ahead of the model "
                              "(PyTorch's prefetch_factor)."));
    m_prefetchSpin->setRange(1, 64);
    form->addRow(tr("Prefetch"), m_prefetchSpin);

    m_strategyCombo = named(new QComboBox, "strategyCombo",
                            tr("Per-worker gives each batch whole to one worker like "
                               "PyTorch; sample-parallel builds each batch with all workers."));
    m_strategyCombo->addItem(tr("per-worker (PyTorch)"),
                             QVariant::fromValue(Strategy::PerWorkerBatch));
    m_strategyCombo->addItem(tr("sample-parallel"), QVariant::fromValue(Strategy::SampleParallel));
    form->addRow(tr("Strategy"), m_strategyCombo);

    m_shuffleCheck = named(new QCheckBox(tr("Shuffle")), "shuffleCheck",
                           tr("Visit the samples in a new random order every epoch."));
    m_dropLastCheck = named(new QCheckBox(tr("Drop last")), "dropLastCheck",
                            tr("Leave out the last batch of an epoch when it is incomplete."));
    m_pinMemoryCheck = named(new QCheckBox(tr("Pin memory")), "pinMemoryCheck",
                             tr("Copy batches into page-locked memory for faster transfers "
                                "to the GPU."));
    m_pinToolTip = m_pinMemoryCheck->toolTip();
    m_persistentCheck = named(new QCheckBox(tr("Persistent workers")), "persistentCheck",
                              tr("Keep the workers alive between epochs instead of starting "
                                 "new ones."));
    m_outOfOrderCheck = named(new QCheckBox(tr("Deliver out of order")), "outOfOrderCheck",
                              tr("Hand over whichever batch is ready first instead of "
                                 "waiting for the next in order (in_order=False)."));
    auto *checks = new QWidget;
    auto *grid = new QGridLayout(checks);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_shuffleCheck, 0, 0);
    grid->addWidget(m_dropLastCheck, 0, 1);
    grid->addWidget(m_pinMemoryCheck, 1, 0);
    grid->addWidget(m_persistentCheck, 1, 1);
    grid->addWidget(m_outOfOrderCheck, 2, 0, 1, 2);
    form->addRow(checks);
    return box;
}

QWidget *ControlPanel::buildModelGroup()
{
    auto *box = new QGroupBox(tr("Model step (simulated)"));
    m_sleepGroup = box;
    auto *form = formFor(box);

    m_sleepBatchSlider = named(new QSlider(Qt::Horizontal), "sleepBatchSlider",
                               tr("Time the simulated model spends on each batch, whatever "
                                  "its size."));
    m_sleepBatchSlider->setRange(0, kSleepBatchSliderMs);
    m_sleepBatchSlider->setSingleStep(1);
    m_sleepBatchSlider->setPageStep(10);
    m_sleepBatchSpin = named(new QDoubleSpinBox, "sleepBatchSpin", m_sleepBatchSlider->toolTip());
    m_sleepBatchSpin->setRange(0.0, 100000.0);
    m_sleepBatchSpin->setDecimals(1);
    m_sleepBatchSpin->setSuffix(tr(" ms"));
    form->addRow(tr("Per batch"), row(m_sleepBatchSlider, m_sleepBatchSpin));

    m_sleepSampleSpin = named(new QDoubleSpinBox, "sleepSampleSpin",
                              tr("Time the simulated model spends on each sample of a batch."));
    m_sleepSampleSpin->setRange(0.0, 10000.0);
    m_sleepSampleSpin->setDecimals(3);
    m_sleepSampleSpin->setSingleStep(0.1);
    m_sleepSampleSpin->setSuffix(tr(" ms"));
    form->addRow(tr("Per sample"), m_sleepSampleSpin);
    return box;
}

QWidget *ControlPanel::buildDatasetGroup()
{
    auto *box = new QGroupBox(tr("Dataset"));
    auto *form = formFor(box);

    m_datasetKindCombo = named(new QComboBox, "datasetKindCombo",
                               tr("Where the samples come from."));
    m_datasetKindCombo->addItem(tr("synthetic"), QVariant::fromValue(DatasetKind::Synthetic));
    m_datasetKindCombo->addItem(tr("preprocessed tensor file"),
                                QVariant::fromValue(DatasetKind::TensorFile));
    m_datasetKindCombo->addItem(tr("image folder"), QVariant::fromValue(DatasetKind::ImageFolder));
    m_datasetKindCombo->addItem(tr("IDX (MNIST)"), QVariant::fromValue(DatasetKind::Idx));
    m_datasetKindCombo->addItem(tr("CIFAR-10"), QVariant::fromValue(DatasetKind::Cifar10));
    form->addRow(tr("Kind"), m_datasetKindCombo);

    m_datasetPathEdit = named(new QLineEdit, "datasetPathEdit",
                              tr("The dataset's directory, or the tensor file; applied on "
                                 "Return."));
    m_browseButton = named(new QToolButton, "browseButton", tr("Choose the dataset on disk."));
    m_browseButton->setText(tr("Browse…"));
    form->addRow(tr("Path"), row(m_datasetPathEdit, m_browseButton));

    m_transformCombo = named(new QComboBox, "transformCombo",
                             tr("Image-folder pipeline: eval resizes and center-crops, train "
                                "does a random resized crop and flip."));
    m_transformCombo->addItem(tr("eval"), QVariant::fromValue(TransformKind::Eval));
    m_transformCombo->addItem(tr("train"), QVariant::fromValue(TransformKind::Train));
    form->addRow(tr("Transform"), m_transformCombo);

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
        m_workersSlider->setValue(workers);   // clamps; the spin keeps larger values
        Q_EMIT loaderSettingsChanged();
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
    for (QCheckBox *check : {m_shuffleCheck, m_dropLastCheck, m_pinMemoryCheck, m_persistentCheck,
                             m_outOfOrderCheck})
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
    connect(m_datasetPathEdit, &QLineEdit::editingFinished, this,
            &ControlPanel::onPathEditingFinished);
    connect(m_browseButton, &QToolButton::clicked, this, &ControlPanel::browseForDataset);
}

loaderlab::RunConfig ControlPanel::config() const
{
    loaderlab::RunConfig config = m_config;
    config.epochs = 0;

    loaderlab::LoaderConfig &loader = config.loader;
    loader.numWorkers = m_workersSpin->value();
    loader.batchSize = m_batchSpin->value();
    loader.prefetchFactor = m_prefetchSpin->value();
    loader.strategy = m_strategyCombo->currentData().value<Strategy>();
    loader.shuffle = m_shuffleCheck->isChecked();
    loader.dropLast = m_dropLastCheck->isChecked();
    loader.pinMemory = m_pinAvailable && m_pinMemoryCheck->isChecked();
    loader.persistentWorkers = m_persistentCheck->isChecked();
    loader.inOrder = !m_outOfOrderCheck->isChecked();

    loaderlab::ConsumerConfig &consumer = config.consumer;
    consumer.sleepPerBatchMs = m_sleepBatchSpin->value();
    consumer.sleepPerSampleMs = m_sleepSampleSpin->value();
    consumer.model = m_modelPanel->modelConfig();   // kept even while unused
    if (m_modelPanel->modelSelected())
        consumer.kind = loaderlab::ConsumerKind::Model;
    else if (consumer.sleepPerBatchMs > 0.0 || consumer.sleepPerSampleMs > 0.0)
        consumer.kind = loaderlab::ConsumerKind::Sleep;
    else
        consumer.kind = loaderlab::ConsumerKind::None;

    config.dataset.kind = m_datasetKindCombo->currentData().value<DatasetKind>();
    config.dataset.path = m_datasetPathEdit->text().toStdString();
    config.dataset.transform = m_transformCombo->currentData().value<TransformKind>();
    return config;
}

void ControlPanel::setConfig(const loaderlab::RunConfig &config)
{
    m_config = config;
    const QList<QObject *> controls = {
        m_workersSlider, m_workersSpin, m_batchSlider, m_batchSpin, m_prefetchSpin,
        m_strategyCombo, m_shuffleCheck, m_dropLastCheck, m_pinMemoryCheck, m_persistentCheck,
        m_outOfOrderCheck, m_sleepBatchSpin, m_sleepBatchSlider, m_sleepSampleSpin,
        m_datasetKindCombo, m_datasetPathEdit, m_transformCombo};
    std::vector<QSignalBlocker> blockers;
    blockers.reserve(static_cast<std::size_t>(controls.size()));
    for (QObject *control : controls)
        blockers.emplace_back(control);

    const loaderlab::LoaderConfig &loader = config.loader;
    m_workersSpin->setValue(loader.numWorkers);
    m_workersSlider->setValue(loader.numWorkers);
    m_batchSpin->setValue(loader.batchSize);
    m_batchSlider->setValue(batchSliderPosition(loader.batchSize));
    m_prefetchSpin->setValue(loader.prefetchFactor);
    selectData(m_strategyCombo, QVariant::fromValue(loader.strategy));
    m_shuffleCheck->setChecked(loader.shuffle);
    m_dropLastCheck->setChecked(loader.dropLast);
    m_pinMemoryCheck->setChecked(m_pinAvailable && loader.pinMemory);
    m_persistentCheck->setChecked(loader.persistentWorkers);
    m_outOfOrderCheck->setChecked(!loader.inOrder);

    m_sleepBatchSpin->setValue(config.consumer.sleepPerBatchMs);
    m_sleepBatchSlider->setValue(static_cast<int>(std::lround(config.consumer.sleepPerBatchMs)));
    m_sleepSampleSpin->setValue(config.consumer.sleepPerSampleMs);
    m_modelPanel->setModelConfig(config.consumer.model,
                                 config.consumer.kind == loaderlab::ConsumerKind::Model);
    updateStepEnabled();

    selectData(m_datasetKindCombo, QVariant::fromValue(config.dataset.kind));
    m_datasetPathEdit->setText(QString::fromStdString(config.dataset.path));
    m_emittedPath = m_datasetPathEdit->text();
    selectData(m_transformCombo, QVariant::fromValue(config.dataset.transform));
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

void ControlPanel::showDatasetError(const QString &message)
{
    m_datasetErrorLabel->setText(message);
    m_datasetErrorLabel->setVisible(!message.isEmpty());
}

void ControlPanel::clearDatasetError()
{
    showDatasetError(QString());
}

void ControlPanel::browseForDataset()
{
    const auto kind = m_datasetKindCombo->currentData().value<DatasetKind>();
    const QString start = m_datasetPathEdit->text();
    const QString path =
        kind == DatasetKind::TensorFile
            ? QFileDialog::getOpenFileName(this, tr("Choose a preprocessed tensor file"), start)
            : QFileDialog::getExistingDirectory(this, tr("Choose the dataset directory"), start);
    if (path.isEmpty())
        return;   // cancelled
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
    const auto kind = m_datasetKindCombo->currentData().value<DatasetKind>();
    m_datasetPathEdit->setEnabled(kind != DatasetKind::Synthetic);
    m_browseButton->setEnabled(kind != DatasetKind::Synthetic);
    m_transformCombo->setEnabled(kind == DatasetKind::ImageFolder);
}

void ControlPanel::updatePauseText()
{
    m_pauseButton->setText(m_pauseButton->isChecked() ? tr("Resume") : tr("Pause"));
}
