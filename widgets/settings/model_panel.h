#pragma once

// ModelPanel: the "LibTorch model" group of the side panel. Checked, the run's step is
// a real model (a built-in architecture or the user's TorchScript file) instead of
// the simulated sleep; every control applies live through changed(). What cannot run
// here (CUDA without a GPU or without a CUDA build, fp16 on the CPU, a build without
// LibTorch) stays visible, greyed out, with the reason.

#include "core/consumer/consumer.h"
#include "core/consumer/model_consumer_factory.h"

#include <QGroupBox>
#include <QMargins>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QToolButton;

namespace loaderlab {

class ModelPanel : public QGroupBox
{
    Q_OBJECT

public:
    explicit ModelPanel(QWidget *parent = nullptr);

    // What this build and machine can run; without built-in models the panel is
    // disabled and says why. Keeps the current settings where they still apply, and
    // a model step asked for before the models were known becomes selected.
    void setCapabilities(const loaderlab::ModelCapabilities &capabilities);

    // True when the run's step is the model (the group box is checked).
    bool modelSelected() const;
    // The model settings from the controls; fields without a control (learning rate,
    // classes) come from the last setModelConfig.
    loaderlab::ModelConfig modelConfig() const;
    // Updates the controls without emitting changed(). A device this machine lacks
    // falls back to the CPU, with a note saying so.
    void setModelConfig(const loaderlab::ModelConfig &config, bool selected);

    // A reason the model step was not applied (shown in red under the controls).
    void showError(const QString &message);
    void clearError();

Q_SIGNALS:
    void changed();

private:
    void buildControls();
    void connectControls();
    void fillDevices();
    void updateEnabled();
    void browseForScript();
    void onScriptEditingFinished();
    bool scriptSelected() const;
    QString deviceUnavailableText() const;

    loaderlab::ModelCapabilities m_capabilities;
    loaderlab::ModelConfig m_config;   // fields without a control come from here
    QString m_emittedScript;           // last script path announced
    bool m_selectionRequested = false; // checked by the user or setModelConfig, even
                                       // while no models are known yet

    QComboBox *m_modelCombo = nullptr;
    QLineEdit *m_scriptEdit = nullptr;
    QToolButton *m_scriptBrowse = nullptr;
    QComboBox *m_modeCombo = nullptr;
    QComboBox *m_optimizerCombo = nullptr;
    QComboBox *m_deviceCombo = nullptr;
    QLabel *m_deviceNote = nullptr;
    QComboBox *m_precisionCombo = nullptr;
    QComboBox *m_layoutCombo = nullptr;
    QSpinBox *m_threadsSpin = nullptr;
    QCheckBox *m_checkpointCheck = nullptr;
    QLabel *m_errorLabel = nullptr;
    QWidget *m_body = nullptr; // the controls, shown while the group is checked
    QMargins m_bodyMargins;
};

} // namespace loaderlab
