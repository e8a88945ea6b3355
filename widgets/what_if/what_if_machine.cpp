#include "widgets/what_if/what_if_machine.h"

#include "core/predict/calibration.h"
#include "widgets/common/form_helpers.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace loaderlab {

WhatIfMachineChoice::WhatIfMachineChoice(QWidget *parent)
    : QWidget(parent)
{
    using formhelpers::named;
    m_note = named(new QLabel, "whatIfBusyMachine",
                   tr("How busy the machine was while the run was recorded: the time other "
                      "programs took is not counted as the loader's own cost."));
    m_note->setWordWrap(true);
    m_machine = named(new QComboBox, "whatIfMachine",
                      tr("The machine as it was: other programs go on taking the cores they "
                         "took while the run was recorded, at any number of cores. An idle "
                         "machine: the cores are the run's alone."));
    m_machine->addItem(tr("The machine as it was"), false);
    m_machine->addItem(tr("An idle machine"), true);
    auto *choice = new QHBoxLayout;
    choice->addWidget(new QLabel(tr("Predict for")));
    choice->addWidget(m_machine, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_note);
    layout->addLayout(choice);
    connect(m_machine, &QComboBox::currentIndexChanged, this, &WhatIfMachineChoice::changed);
    setVisible(false);
}

void WhatIfMachineChoice::setCalibration(const Calibration *calibration)
{
    const bool busy = calibration && calibration->busyMachine.busy;
    setVisible(busy);
    if (!busy)
        return;
    const BusyMachine &b = calibration->busyMachine;
    const QString taken = QString::fromStdString(coresText(b.takenCores));
    const int cores = calibration->setting.cores;
    m_note->setText(calibration->load.stealCores >= 0.05
                        ? tr("Other programs and the hypervisor used %1 of the %n core(s) while "
                             "the run was recorded.",
                             nullptr, cores)
                              .arg(taken)
                        : tr("Other programs used %1 of the %n core(s) while the run was "
                             "recorded.",
                             nullptr, cores)
                              .arg(taken));
}

bool WhatIfMachineChoice::idleMachine() const
{
    return m_machine->currentData().toBool();
}

void WhatIfMachineChoice::setIdleMachine(bool idle)
{
    const QSignalBlocker blocker(m_machine);
    formhelpers::selectData(m_machine, idle);
}

} // namespace loaderlab
