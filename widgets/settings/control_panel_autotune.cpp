// ControlPanel's Autotune boxes: the window starts core's Autotuner when they are
// checked; while it tunes, the tuned controls follow the run and are read-only.

#include "widgets/settings/control_panel.h"

#include "core/predict/busy_machine.h"

#include "widgets/common/form_helpers.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QSlider>
#include <QSpinBox>
#include <QVariant>

namespace loaderlab {

using formhelpers::named;

QWidget *ControlPanel::buildAutotuneRows()
{
    m_autotuneCheck = named(new QCheckBox(tr("Autotune workers and prefetch")), "autotuneCheck",
                            tr("While the run goes, measure samples/s and move workers and "
                               "prefetch where a measured window gains more than the noise "
                               "(as loaderlab run --autotune); each trial and move is a "
                               "marker on the plots."));
    m_autotuneBatchCheck = named(new QCheckBox(tr("and the batch size")), "autotuneBatchCheck",
                                 tr("Let the autotuner double or halve the batch size too (as "
                                    "--autotune-batch)."));
    m_autotuneBatchCheck->setEnabled(false);
    m_autotuneSearchCombo = named(new QComboBox, "autotuneSearchCombo",
                                  tr("How the autotuner finds the next setting to measure (as "
                                     "--autotune-search): the loader model, calibrated on the "
                                     "run, proposes the setting it predicts best and a measured "
                                     "window confirms it; or a hill climb measures one "
                                     "neighbour at a time."));
    m_autotuneSearchCombo->addItem(tr("Proposed by the loader model"), true);
    m_autotuneSearchCombo->addItem(tr("Hill climb of measured trials"), false);
    // Its longest choice must not widen the settings column (German's is 41
    // characters): the list opens to full width, the closed box elides.
    m_autotuneSearchCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_autotuneSearchCombo->setMinimumContentsLength(16);
    m_autotuneSearchCombo->setEnabled(false);
    // Two rows, the batch option indented under the box it belongs to: one row
    // would widen the panel in German.
    auto *tune = new QWidget;
    auto *tuneRows = new QGridLayout(tune);
    tuneRows->setContentsMargins(0, 0, 0, 0);
    tuneRows->addWidget(m_autotuneCheck, 0, 0, 1, 2);
    tuneRows->setColumnMinimumWidth(0, 20);
    tuneRows->addWidget(m_autotuneBatchCheck, 1, 1);
    tuneRows->addWidget(m_autotuneSearchCombo, 2, 1);
    m_autotuneState = new QLabel;
    m_autotuneState->setObjectName(QStringLiteral("autotuneState"));
    m_autotuneState->setWordWrap(true);
    m_autotuneState->setVisible(false);
    tuneRows->addWidget(m_autotuneState, 3, 1);
    connect(m_autotuneCheck, &QCheckBox::toggled, this, [this](bool on) {
        m_autotuneBatchCheck->setEnabled(on);
        m_autotuneSearchCombo->setEnabled(on);
        Q_EMIT autotuneChanged();
    });
    connect(m_autotuneBatchCheck, &QCheckBox::toggled, this, &ControlPanel::autotuneChanged);
    connect(m_autotuneSearchCombo, &QComboBox::currentIndexChanged, this,
            &ControlPanel::autotuneChanged);
    return tune;
}

bool ControlPanel::autotuneEnabled() const
{
    return m_autotuneCheck->isChecked();
}

bool ControlPanel::autotuneBatch() const
{
    return m_autotuneCheck->isChecked() && m_autotuneBatchCheck->isChecked();
}

bool ControlPanel::autotuneModelSearch() const
{
    return m_autotuneSearchCombo->currentData().toBool();
}

void ControlPanel::setAutotuneModelSearch(bool model)
{
    m_autotuneSearchCombo->setCurrentIndex(m_autotuneSearchCombo->findData(model));
}

void ControlPanel::setAutotuneEnabled(bool enabled)
{
    m_autotuneCheck->setChecked(enabled);
}

void ControlPanel::setTuning(bool tuning, bool batchToo)
{
    const QString why = tr("Set by the autotuner while it runs; uncheck Autotune to set it by "
                           "hand.");
    const auto lock = [&](QWidget *control, bool locked) {
        // The control's own tooltip is kept aside while it is locked.
        const char *const kOwn = "untunedToolTip";
        if (!control->property(kOwn).isValid())
            control->setProperty(kOwn, control->toolTip());
        control->setEnabled(!locked);
        control->setToolTip(locked ? why : control->property(kOwn).toString());
    };
    for (QWidget *control :
         {static_cast<QWidget *>(m_workersSpin), static_cast<QWidget *>(m_workersSlider),
          static_cast<QWidget *>(m_prefetchSpin)})
        lock(control, tuning);
    lock(m_batchSpin, tuning && batchToo);
    lock(m_batchSlider, tuning && batchToo);
    if (!tuning)
        m_autotuneState->clear();
    m_autotuneState->setVisible(tuning);
}

void ControlPanel::showTuningState(int windows, bool holding, std::optional<double> otherCores,
                                   int cores)
{
    QString text = windows == 0 ? tr("Measuring the run as it is.")
                   : holding    ? tr("Holding: no other setting measured better.")
                                : tr("Comparing settings, one window each.");
    if (otherCores && cores > 0) {
        text += QLatin1Char(' ');
        text += *otherCores < kBusyMachineCores
                    ? tr("No other program was busy in the last window.")
                    : tr("Other programs asked for %1 of the %2 cores in the last window; "
                         "settings are compared only on windows with the same load.")
                          .arg(QLocale().toString(*otherCores, 'f', 1))
                          .arg(cores);
    }
    if (m_autotuneState->text() != text)
        m_autotuneState->setText(text);
}

} // namespace loaderlab
