#pragma once

// ControlPanel: the side panel that sets a run up. Its controls are bound to config
// fields by key path (ConfigBinding): labels, tooltips and ranges come from the
// config table, and config()/setConfig() go through it. Every control is applied live:
// loader and model-step controls (the simulated step and the LibTorch model panel)
// emit loaderSettingsChanged (the window debounces and reconfigures the running
// engine), dataset controls emit datasetSettingsChanged, the devices devicesChanged
// (both start a new run).

#include "core/config/engine_config.h"
#include "core/config/run_config.h"
#include "core/consumer/model_consumer_factory.h"
#include "core/run/run_controller.h"
#include "widgets/settings/config_binding.h"

#include <QWidget>

#include <optional>

class QCheckBox;
class QGroupBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSlider;
class QSpinBox;
class QTableWidget;
class QToolButton;

namespace loaderlab {

class ModelPanel;

class ControlPanel : public QWidget
{
    Q_OBJECT

public:
    explicit ControlPanel(QWidget *parent = nullptr);

    // Everything from the controls; epochs = 0 (run until stopped), the fields that
    // have no control are kept from the last setConfig.
    loaderlab::RunConfig config() const;
    // Updates the controls without emitting any change signal.
    void setConfig(const loaderlab::RunConfig &config);

    void setPinMemoryAvailable(bool available, const QString &reason);
    // The engine Start runs: the choices it cannot run are greyed out with its reason
    // (control_panel_engine.cpp).
    void setEngine(loaderlab::EngineKind engine);
    // What the LibTorch model panel offers (built-in models, CUDA and why not).
    void setModelCapabilities(const loaderlab::ModelCapabilities &capabilities);
    ModelPanel *modelPanel() const { return m_modelPanel; }
    void setRunState(loaderlab::RunState state);
    // Pause or Resume, as a click on the button would (Run → Pause, F6); nothing when
    // no run can pause.
    void togglePause();

    void showDatasetError(const QString &message);
    void clearDatasetError();
    // Why Start was refused or the run failed, under the Start button (always in
    // view, unlike the scrolled settings); empty hides it.
    void showRunError(const QString &message);

    // Autotune (core/autotune): on, the window lets the autotuner set workers and
    // prefetch (and the batch size when allowed) of the running run.
    bool autotuneEnabled() const;
    bool autotuneBatch() const;
    // The loader model proposes (true, the default) or a hill climb of measured trials.
    bool autotuneModelSearch() const;
    void setAutotuneModelSearch(bool model); // emits autotuneChanged when it changes
    void setAutotuneEnabled(bool enabled);   // emits autotuneChanged
    // While the autotuner drives the run: the tuned controls follow it (showTuned)
    // and are read-only, saying why.
    void setTuning(bool tuning, bool batchToo);
    // Shows the run's tuned settings without emitting any change signal.
    void showTuned(int workers, int prefetch, int batchSize);
    // While tuning, under the Autotune box: what the autotuner does (no window
    // measured yet, holding, comparing) and other programs' demand on the machine in
    // its last window (cores of `cores`; nothing: unknown).
    void showTuningState(int windows, bool holding, std::optional<double> otherCores, int cores);

Q_SIGNALS:
    void loaderSettingsChanged();
    void datasetSettingsChanged();
    // The data-parallel devices: a running run cannot change them, a new run starts.
    void devicesChanged();
    void startRequested();
    void pauseToggled(bool paused);
    void stopRequested();
    void resetRequested();
    void autotuneChanged();

private:
    QWidget *buildLoaderGroup();
    QWidget *buildModelGroup();
    QWidget *buildDatasetGroup();
    QWidget *buildRunGroup();
    QWidget *buildAutotuneRows(); // control_panel_autotune.cpp
    void connectLoaderControls();
    void connectDatasetControls();

    void browseForDataset();
    void onPathEditingFinished();
    void updateDatasetEnabled();
    void updatePauseText();
    void updateStepEnabled();
    loaderlab::DatasetKind datasetKind() const;

    ConfigBinding m_binding;
    loaderlab::RunConfig m_config; // fields without a control come from here
    QString m_emittedPath;         // last path announced, to skip repeats on focus loss
    QString m_pinToolTip;
    QString m_devicesToolTip;
    bool m_pinAvailable = true;

    QSlider *m_workersSlider = nullptr;
    QSpinBox *m_workersSpin = nullptr;
    QSlider *m_batchSlider = nullptr;
    QSpinBox *m_batchSpin = nullptr;
    QSpinBox *m_prefetchSpin = nullptr;
    QSlider *m_devicesSlider = nullptr;
    QSpinBox *m_devicesSpin = nullptr;
    QComboBox *m_strategyCombo = nullptr;
    QCheckBox *m_shuffleCheck = nullptr;
    QCheckBox *m_dropLastCheck = nullptr;
    QCheckBox *m_pinMemoryCheck = nullptr;
    QCheckBox *m_persistentCheck = nullptr;
    QCheckBox *m_outOfOrderCheck = nullptr;
    QCheckBox *m_autotuneCheck = nullptr;
    QCheckBox *m_autotuneBatchCheck = nullptr;
    QComboBox *m_autotuneSearchCombo = nullptr;
    QLabel *m_autotuneState = nullptr;

    QGroupBox *m_sleepGroup = nullptr;
    ModelPanel *m_modelPanel = nullptr;
    QDoubleSpinBox *m_sleepBatchSpin = nullptr;
    QSlider *m_sleepBatchSlider = nullptr;
    QDoubleSpinBox *m_sleepSampleSpin = nullptr;

    QComboBox *m_datasetKindCombo = nullptr;
    QLineEdit *m_datasetPathEdit = nullptr;
    QToolButton *m_browseButton = nullptr;
    QTableWidget *m_argsTable = nullptr; // dataset.args, for a pipeline file
    QLabel *m_argsLabel = nullptr;
    QComboBox *m_transformCombo = nullptr;
    QCheckBox *m_fastDecodeCheck = nullptr;
    QLabel *m_datasetErrorLabel = nullptr;
    QLabel *m_runErrorLabel = nullptr;

    QPushButton *m_startButton = nullptr;
    QPushButton *m_pauseButton = nullptr;
    QPushButton *m_stopButton = nullptr;
    QPushButton *m_resetButton = nullptr;
};

} // namespace loaderlab
