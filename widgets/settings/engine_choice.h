#pragma once

// EngineChoice: which engine Start runs: LoaderLab's loader or PyTorch's own DataLoader.
// Whether Python can import torch is asked once (engineCheck(), core/engine/engine.h) in
// the background (a BackgroundTask: about a second, 30 s at most); until then, and for good
// when it cannot, the PyTorch entry is greyed out with the reason as its tooltip and
// below the choice.

#include "core/config/engine_config.h"

#include <QGroupBox>

class QComboBox;
class QLabel;

namespace loaderlab {

class BackgroundTask;

class EngineChoice : public QGroupBox
{
    Q_OBJECT

public:
    explicit EngineChoice(QWidget *parent = nullptr);
    ~EngineChoice() override; // stops the probe (killing its Python), without waiting

    bool pytorchChosen() const;
    loaderlab::EngineKind chosen() const;
    // Chooses `engine` (a config's engine): PyTorch's once the probe says Python can
    // import torch, LoaderLab's if it cannot.
    void choose(loaderlab::EngineKind engine);
    // choose() asked for PyTorch's DataLoader and the probe has not answered yet: a
    // run started now would not be on the engine asked for (probeDone() follows).
    bool choicePending() const { return m_pytorchWanted; }
    // Why the engine choose() asked for cannot be had (Python without torch); empty
    // when it was, or while pending.
    QString unmetChoice() const { return m_unmet; }
    // Known once the probe is done (probeDone()).
    bool pytorchAvailable() const { return m_probed && m_problem.isEmpty(); }
    bool probed() const { return m_probed; }
    QString pytorchProblem() const { return m_problem; }

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
    bool m_pytorchWanted = false; // chosen by choose() before the probe was done
    QString m_unmet;
    BackgroundTask *m_probe = nullptr;
};

} // namespace loaderlab
