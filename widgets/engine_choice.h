#pragma once

// EngineChoice: which engine Start runs: LoaderLab's loader or PyTorch's own DataLoader
// (core/run/pytorch_run.h). Whether Python can import torch is probed once in the
// background (a BackgroundTask: about a second, 30 s at most); until then, and for good
// when it cannot, the PyTorch entry is greyed out with the reason as its tooltip and
// below the choice.

#include <QGroupBox>

class BackgroundTask;
class QComboBox;
class QLabel;

class EngineChoice : public QGroupBox
{
    Q_OBJECT

public:
    explicit EngineChoice(QWidget *parent = nullptr);
    ~EngineChoice() override; // stops the probe (killing its Python), without waiting

    bool pytorchChosen() const;
    // Known once the probe is done (probeDone()).
    bool pytorchAvailable() const { return m_probed && m_problem.isEmpty(); }
    bool probed() const { return m_probed; }
    QString pytorchProblem() const { return m_problem; }
    QComboBox *combo() const { return m_combo; }

Q_SIGNALS:
    void pytorchChosenChanged(bool pytorch);
    void probeDone();

private:
    void onProbed(const QString &problem);
    void updateNote();

    QComboBox *m_combo = nullptr;
    QLabel *m_note = nullptr;
    bool m_probed = false;
    QString m_problem;
    QString m_python;
    BackgroundTask *m_probe = nullptr;
};
