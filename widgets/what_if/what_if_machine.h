#pragma once

// WhatIfMachineChoice: the What if panel's line about a busy machine. When other
// programs kept the machine busy while the calibrated run was recorded (its
// machine_load, core/predict/busy_machine.h), it says how busy, and offers to
// predict for the machine as it was (they go on taking what they took) or for an idle
// one; hidden for a run recorded on an idle machine or without its load.

#include <QWidget>

class QComboBox;
class QLabel;

namespace loaderlab {

struct Calibration;

class WhatIfMachineChoice : public QWidget
{
    Q_OBJECT

public:
    explicit WhatIfMachineChoice(QWidget *parent = nullptr);

    // The run calibrated from; nullptr: none (hidden).
    void setCalibration(const loaderlab::Calibration *calibration);
    // "An idle machine" chosen (false: the machine as it was).
    bool idleMachine() const;
    // Without emitting changed().
    void setIdleMachine(bool idle);

Q_SIGNALS:
    void changed();

private:
    QLabel *m_note = nullptr;
    QComboBox *m_machine = nullptr;
};

} // namespace loaderlab
