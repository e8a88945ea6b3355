#include "widgets/what_if/what_if_panel.h"

#include "core/config/config_fields.h"
#include "widgets/common/background_task.h"
#include "widgets/common/figure_text.h"
#include "widgets/common/form_helpers.h"
#include "widgets/common/wheel_guard.h"
#include "widgets/session/run_session.h"
#include "widgets/what_if/what_if_machine.h"
#include "widgets/what_if/what_if_plot.h"

#include <QComboBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <tuple>

namespace loaderlab {

namespace {

constexpr int kMaxCores = 64;
constexpr int kMaxDevices = 8;
constexpr int kMaxNodes = 128;
// The largest batch size the panel offers: far beyond what a loader is run with.
constexpr int kMaxBatchSize = 1 << 16;

using figuretext::number;

// A slider and a spin box over one range, kept equal.
QWidget *sliderRow(QSlider *slider, QSpinBox *spin, int min, int max)
{
    slider->setOrientation(Qt::Horizontal);
    slider->setRange(min, max);
    spin->setRange(min, max);
    QObject::connect(slider, &QSlider::valueChanged, spin, &QSpinBox::setValue);
    QObject::connect(spin, &QSpinBox::valueChanged, slider, &QSlider::setValue);
    return formhelpers::row(slider, spin);
}

} // namespace

WhatIfPanel::WhatIfPanel(RunSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_calibrateTask(new BackgroundTask(this))
    , m_predictTask(new BackgroundTask(this))
{
    using formhelpers::named;
    m_run = named(new QComboBox, "whatIfRun", tr("The run the model is calibrated from."));
    m_run->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_run->setMinimumContentsLength(12);
    m_calibrate = named(new QPushButton(tr("Calibrate")), "whatIfCalibrate",
                        tr("Measures the run's costs (loading a sample, collating, the step, "
                           "the workers' start-up) from its batches; the live run is "
                           "calibrated again every few seconds while it goes on."));
    m_status = named(new QLabel, "whatIfStatus", {});
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_machine = new WhatIfMachineChoice;

    auto *content = new QWidget;
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(4, 4, 4, 4);
    // The figures first, so they are in view in a short side column (the measured ones
    // are below it, in the stats panel); the plot and the assumptions further down.
    layout->addWidget(formhelpers::row(m_run, m_calibrate));
    layout->addWidget(m_status);
    layout->addWidget(m_machine);
    layout->addWidget(buildInputs());
    layout->addWidget(buildFigures());
    m_plot = new WhatIfPlot;
    m_plot->setObjectName(QStringLiteral("whatIfPlot"));
    m_plot->setToolTip(tr("Predicted samples/s for 0 to twice as many workers as cores, at the "
                          "chosen cores, devices and batch size; the diamond is what the run "
                          "itself measured."));
    m_selfError = named(new QLabel, "whatIfSelfError",
                        tr("The model's error on the run it was calibrated from: how far to "
                           "trust the other predictions, at best."));
    m_selfError->setWordWrap(true);
    m_assumptions = named(new QLabel(tr("Assumed: processor sharing (busy threads share the cores "
                                        "evenly); no memory-bandwidth or cache model; no disk, "
                                        "page-cache or network model.")),
                          "whatIfAssumptions",
                          tr("Settings with more workers than cores, or moving large batches, "
                             "may be slower than predicted. See docs/what-if.md."));
    m_assumptions->setWordWrap(true);
    m_assumptions->setStyleSheet(QStringLiteral("color: palette(placeholder-text)"));
    layout->addWidget(m_selfError);
    layout->addWidget(m_plot);
    layout->addWidget(m_assumptions);
    layout->addStretch();

    auto *scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("whatIfScroll"));
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);

    m_auto.setInterval(kRecalibrateMs);
    connect(&m_auto, &QTimer::timeout, this, &WhatIfPanel::onAutoTimer);
    connect(m_calibrate, &QPushButton::clicked, this, &WhatIfPanel::calibrate);
    connect(m_machine, &WhatIfMachineChoice::changed, this, &WhatIfPanel::predict);
    connect(m_run, &QComboBox::currentIndexChanged, this, &WhatIfPanel::onRunChosen);
    connect(m_session, &RunSession::traceReplaced, this, &WhatIfPanel::refreshRuns);
    connect(m_session, &RunSession::stateChanged, this, &WhatIfPanel::onStateChanged);
    connect(m_session->runs(), &RunList::overlaysChanged, this, &WhatIfPanel::refreshRuns);
    connect(m_session->runs(), &RunList::labelsChanged, this, &WhatIfPanel::refreshRuns);
    WheelGuard::install(this);
    clearFigures();
    refreshRuns();
}

WhatIfPanel::~WhatIfPanel() = default;

QWidget *WhatIfPanel::buildInputs()
{
    using formhelpers::named;
    auto *inputs = new QWidget;
    auto *grid = new QGridLayout(inputs);
    grid->setContentsMargins(0, 0, 0, 0);
    m_coresSlider = named(new QSlider, "whatIfCoresSlider", tr("Logical cores of the machine."));
    m_cores = named(new QSpinBox, "whatIfCores", m_coresSlider->toolTip());
    grid->addWidget(new QLabel(tr("Cores")), 0, 0);
    grid->addWidget(sliderRow(m_coresSlider, m_cores, 1, kMaxCores), 0, 1);
    m_devicesSlider = named(new QSlider, "whatIfDevicesSlider",
                            tr("Data-parallel devices, each with its own loader and workers."));
    m_devices = named(new QSpinBox, "whatIfDevices", m_devicesSlider->toolTip());
    grid->addWidget(new QLabel(tr("Devices")), 1, 0);
    grid->addWidget(sliderRow(m_devicesSlider, m_devices, 1, kMaxDevices), 1, 1);
    m_nodes = named(new QSpinBox, "whatIfNodes",
                    tr("Identical nodes, each with these cores and devices: the gradient is "
                       "all-reduced within each node, then between the nodes over the link "
                       "chosen beside."));
    m_nodes->setRange(1, kMaxNodes);
    m_betweenNodes = named(new QComboBox, "whatIfBetweenNodes",
                           tr("The link between nodes (one a node), as assumed: its nominal "
                              "rate and a typical latency."));
    for (const auto &[label, preset] : {std::pair{tr("10 GbE"), "10gbe"},
                                        {tr("25 GbE"), "25gbe"},
                                        {tr("100 GbE"), "100gbe"},
                                        {tr("InfiniBand HDR"), "ib-hdr"}})
        m_betweenNodes->addItem(label, QString::fromLatin1(preset));
    m_betweenNodes->setCurrentIndex(m_betweenNodes->findData(QStringLiteral("100gbe")));
    auto *nodes = new QHBoxLayout;
    nodes->addWidget(m_nodes, 1);
    nodes->addWidget(new QLabel(tr("between them")));
    nodes->addWidget(m_betweenNodes, 1);
    grid->addWidget(new QLabel(tr("Nodes")), 2, 0);
    grid->addLayout(nodes, 2, 1);
    connect(m_betweenNodes, &QComboBox::currentIndexChanged, this, &WhatIfPanel::predict);
    const ConfigField &workers = configField("loader.num_workers");
    m_workers = named(new QSpinBox, "whatIfWorkers", tr("Loader workers per device."));
    m_workers->setRange(static_cast<int>(workers.min), static_cast<int>(workers.max));
    m_batchSize = named(new QSpinBox, "whatIfBatchSize", tr("Samples per batch."));
    m_batchSize->setRange(1, kMaxBatchSize);
    m_reset = named(new QToolButton, "whatIfReset", tr("Back to the calibrated run's setting."));
    m_reset->setText(tr("The run's"));
    auto *setting = new QHBoxLayout;
    setting->addWidget(m_workers, 1);
    setting->addWidget(new QLabel(tr("Batch")));
    setting->addWidget(m_batchSize, 1);
    setting->addWidget(m_reset);
    grid->addWidget(new QLabel(tr("Workers")), 3, 0);
    grid->addLayout(setting, 3, 1);
    grid->setColumnStretch(1, 1);
    for (QSpinBox *spin : {m_cores, m_devices, m_nodes, m_workers, m_batchSize})
        connect(spin, &QSpinBox::valueChanged, this, &WhatIfPanel::predict);
    connect(m_reset, &QToolButton::clicked, this, [this] {
        if (m_calibration)
            setInputs(runSetting(m_calibration->calibration));
    });
    return inputs;
}

void WhatIfPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale || (liveChosen() && m_session->running()))
        calibrate();
}

bool WhatIfPanel::liveChosen() const
{
    return m_run->currentIndex() >= 0 && m_run->currentData().toInt() == RunList::kLiveId;
}

QString WhatIfPanel::chosenKey() const
{
    if (m_run->currentIndex() < 0)
        return {};
    const int id = m_run->currentData().toInt();
    if (id == RunList::kLiveId)
        return QStringLiteral("live:%1").arg(
            reinterpret_cast<quintptr>(m_session->runs()->live().trace.get()));
    return QStringLiteral("run:%1").arg(id);
}

void WhatIfPanel::refreshRuns()
{
    // Only the runs with a trace, the live one first; rebuilt only when they changed
    // (the live run's figures change a few times a second).
    std::vector<std::pair<int, QString>> entries;
    for (const RunEntry &run : m_session->runs()->runs()) {
        if (run.trace)
            entries.emplace_back(
                run.id, run.live
                            ? tr("Live run (%1)")
                                  .arg(RunList::nameFor(run.trace->configVersions(), run.config))
                            : run.name);
    }
    bool same = static_cast<int>(entries.size()) == m_run->count();
    for (std::size_t i = 0; same && i < entries.size(); ++i) {
        const int row = static_cast<int>(i);
        same = m_run->itemData(row).toInt() == entries[i].first
               && m_run->itemText(row) == entries[i].second;
    }
    if (!same) {
        const int chosen = m_run->currentIndex() >= 0 ? m_run->currentData().toInt() : -1;
        int pick = chosen;
        std::vector<int> ids;
        for (const auto &[id, name] : entries) {
            ids.push_back(id);
            // A run opened while no live run goes on is the one to look at.
            const bool added = std::find(m_knownRuns.begin(), m_knownRuns.end(), id)
                               == m_knownRuns.end();
            if (added && id != RunList::kLiveId && !m_session->running())
                pick = id;
        }
        m_knownRuns = ids;
        const QSignalBlocker blocker(m_run);
        m_run->clear();
        for (const auto &[id, name] : entries)
            m_run->addItem(name, id);
        formhelpers::selectData(m_run, pick);
        if (m_run->currentIndex() < 0 && m_run->count() > 0)
            m_run->setCurrentIndex(0);
    }
    if (chosenKey() != m_calibratedKey || m_run->count() == 0)
        onRunChosen();
}

void WhatIfPanel::onRunChosen()
{
    m_stale = chosenKey() != m_calibratedKey || chosenKey().isEmpty();
    m_auto.stop();
    if (liveChosen() && m_session->running())
        m_auto.start();
    if (!m_stale)
        return;
    m_calibrateTask->cancel();
    m_predictTask->cancel();
    m_predictPending = false;
    m_calibration.reset();
    m_calibratedKey.clear();
    m_machine->setCalibration(nullptr);
    clearFigures();
    if (isVisible())
        calibrate();
    else
        showMessage(m_run->count() == 0
                        ? tr("No run to calibrate from: start a run, or open a recorded one "
                             "(File → Open run…).")
                        : tr("Calibrates when shown."),
                    false);
}

void WhatIfPanel::onStateChanged()
{
    const bool live = liveChosen();
    if (live && m_session->running())
        m_auto.start();
    else
        m_auto.stop();
    // The run has ended: its last batches are worth one more calibration.
    if (live && m_session->finished() && isVisible())
        calibrate();
}

void WhatIfPanel::onAutoTimer()
{
    if (!liveChosen() || !m_session->running()) {
        m_auto.stop();
        return;
    }
    // A calibration takes CPU from the run it measures: at most a tenth of the time.
    const qint64 pause = std::max<qint64>(kRecalibrateMs, 10 * m_calibrationMs);
    if (isVisible() && !m_calibrateTask->running()
        && (!m_sinceCalibration.isValid() || m_sinceCalibration.elapsed() >= pause))
        calibrate();
}

void WhatIfPanel::calibrate()
{
    const RunEntry *run = m_run->currentIndex() >= 0
                              ? m_session->runs()->find(m_run->currentData().toInt())
                              : nullptr;
    if (!run || !run->trace) {
        showMessage(tr("No run to calibrate from: start a run, or open a recorded one "
                       "(File → Open run…)."),
                    false);
        return;
    }
    const int needed = std::max(0, run->config.warmupBatches) + kMinSteadyBatches;
    const auto batches = static_cast<qint64>(run->trace->size());
    if (batches < needed) {
        showMessage(tr("Too few batches to calibrate from: %1 so far, %2 needed (the warm-up's "
                       "%3 and %4 more).")
                        .arg(batches)
                        .arg(needed)
                        .arg(run->config.warmupBatches)
                        .arg(kMinSteadyBatches),
                    false);
        return;
    }
    m_stale = false;
    const QString key = chosenKey();
    const bool live = run->live;
    const RunReport liveReport = live ? m_session->report() : RunReport{};
    const RunEntry entry = *run;
    const QString name = run->name;
    if (!m_calibration)
        showMessage(tr("Calibrating…"), false);
    m_sinceCalibration.start();
    m_calibrateTask->start(
        [entry, live, liveReport](BackgroundTask::Control &) {
            return std::make_shared<const WhatIfCalibration>(calibrateWhatIf(
                *entry.trace, live ? liveReport
                                   : keptRunReport(entry.source.toStdString(), entry.config,
                                                   entry.summary, *entry.trace)));
        },
        [this, key, name](std::shared_ptr<const WhatIfCalibration> calibration) {
            onCalibrated(calibration, key, name);
        },
        [this](const QString &error) {
            m_calibration.reset();
            m_calibratedKey.clear();
            m_machine->setCalibration(nullptr);
            clearFigures();
            showMessage(tr("Calibration failed: %1").arg(error), true);
        });
}

void WhatIfPanel::onCalibrated(const std::shared_ptr<const WhatIfCalibration> &calibration,
                               const QString &key, const QString &name)
{
    m_calibrationMs = m_sinceCalibration.elapsed();
    const bool sameRun = key == m_calibratedKey && m_calibration;
    m_calibration = calibration;
    m_calibratedKey = key;
    const Calibration &cal = calibration->calibration;
    m_machine->setCalibration(&cal);
    const int batches = static_cast<int>(calibration->batches);
    m_calibrationStatus =
        key.startsWith(QLatin1String("live:"))
            ? tr("Calibrated from %n batch(es) of the live run", nullptr, batches)
            : tr("Calibrated from %n batch(es) of %1", nullptr, batches).arg(name);
    if (calibration->cut)
        m_calibrationStatus += tr(" (the first of its batches)");
    m_calibrationStatus += QLatin1Char('.');
    if (calibration->reconfigured)
        m_calibrationStatus +=
            QLatin1Char(' ')
            + tr("Its settings changed while it ran: the costs come from all its batches, the "
                 "setting predicted back is its first (%1).")
                  .arg(RunList::nameFor(cal.config));
    showMessage(m_calibrationStatus, false);
    const double measured = calibration->measuredSamplesPerSecond;
    const double predicted = calibration->self.samplesPerSecond;
    m_selfError->setText(
        measured > 0.0 ? tr("The run itself: measured %1 samples/s, predicted %2 (%3 %).")
                             .arg(number(measured), number(predicted),
                                  QString::asprintf("%+.1f", (predicted / measured - 1.0) * 100.0))
                       : tr("The run itself: predicted %1 samples/s (nothing measured after its "
                            "warm-up).")
                             .arg(number(predicted)));
    // A run calibrated again keeps the setting being explored; a new one starts at its own.
    if (sameRun)
        predict();
    else
        setInputs(runSetting(cal)); // and predicts
}

void WhatIfPanel::predict()
{
    if (!m_calibration)
        return;
    if (m_predictTask->running()) {
        m_predictPending = true; // once it ends, with the inputs as they are then
        return;
    }
    m_predictPending = false;
    const std::shared_ptr<const WhatIfCalibration> calibration = m_calibration;
    const WhatIfSetting setting = inputs();
    m_predictTask->start(
        [calibration, setting](BackgroundTask::Control &) {
            return predictWhatIf(calibration->calibration, setting);
        },
        [this](const WhatIfOutcome &outcome) {
            showOutcome(outcome);
            if (m_predictPending)
                predict();
        },
        [this](const QString &error) {
            clearFigures(false);
            showMessage(tr("The model cannot predict this setting: %1").arg(error), true);
            if (m_predictPending)
                predict();
        });
}

void WhatIfPanel::showMessage(const QString &message, bool error)
{
    m_status->setText(message);
    m_status->setVisible(!message.isEmpty());
    m_status->setProperty("error", error);
    m_status->setStyleSheet(error ? QStringLiteral("color: #b00000") : QString());
}

WhatIfSetting WhatIfPanel::inputs() const
{
    WhatIfSetting s;
    s.cores = m_cores->value();
    s.devices = m_devices->value();
    s.nodes = m_nodes->value();
    s.betweenNodes = m_betweenNodes->currentData().toString().toStdString();
    s.workers = m_workers->value();
    s.batchSize = m_batchSize->value();
    s.idleMachine = m_machine->idleMachine();
    return s;
}

void WhatIfPanel::setInputs(const WhatIfSetting &setting)
{
    {
        const QSignalBlocker b1(m_cores), b2(m_coresSlider), b3(m_devices), b4(m_devicesSlider),
            b5(m_workers), b6(m_batchSize), b7(m_nodes), b8(m_betweenNodes);
        // A run on more cores or devices than the sliders offer widens them.
        for (auto [spin, slider, value] :
             {std::tuple{m_cores, m_coresSlider, setting.cores},
              std::tuple{m_devices, m_devicesSlider, setting.devices}}) {
            if (value > spin->maximum()) {
                spin->setMaximum(value);
                slider->setMaximum(value);
            }
            spin->setValue(std::max(1, value));
            slider->setValue(spin->value());
        }
        m_workers->setValue(setting.workers);
        m_batchSize->setValue(setting.batchSize);
        m_nodes->setValue(std::max(1, setting.nodes));
        if (const int at = m_betweenNodes->findData(QString::fromStdString(setting.betweenNodes));
            at >= 0)
            m_betweenNodes->setCurrentIndex(at);
        m_machine->setIdleMachine(setting.idleMachine);
    }
    predict();
}

} // namespace loaderlab
