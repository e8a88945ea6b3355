#pragma once

// WhatIfPanel: the side panel's "What if" tab. The loader model (core/predict) is
// calibrated from a run the window holds (the live run, running or ended, or a kept or
// opened one; the live run again every few seconds while it goes on), and the panel
// predicts another machine or setting without running it: cores and devices as
// sliders, workers and batch size; for a run recorded while other programs kept the
// machine busy, it says how busy and predicts for the machine as it was or an idle
// one (WhatIfMachineChoice). It shows the predicted samples/s, first batch, wait
// p95, input-bound share and wait period, a plot of samples/s over 0 .. 2 x cores
// workers with the run's own measurement beside it, the error of predicting the run
// itself back, and what the model assumes. Calibration and prediction run on threads
// of their own (BackgroundTask): the window never waits for the model.

#include "widgets/what_if/what_if_prediction.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QToolButton;

namespace loaderlab {

class BackgroundTask;
class RunSession;
class WhatIfMachineChoice;
class WhatIfPlot;

class WhatIfPanel : public QWidget
{
    Q_OBJECT

public:
    explicit WhatIfPanel(RunSession *session, QWidget *parent = nullptr);
    ~WhatIfPanel() override;

    // Calibrates from the run chosen in the panel (on a thread of its own); the reason
    // is shown when there is no run or too few batches.
    void calibrate();

    // Batches a run needs beyond its warm-up before it is calibrated from.
    static constexpr int kMinSteadyBatches = 10;
    // While the live run goes on (and the panel is shown), it is calibrated again this
    // often, or less often when a calibration takes more than a tenth of it.
    static constexpr int kRecalibrateMs = 3000;

protected:
    void showEvent(QShowEvent *event) override;

private:
    QWidget *buildInputs();
    QWidget *buildFigures();
    void refreshRuns();
    void onRunChosen();
    void onStateChanged();
    void onAutoTimer();
    void onCalibrated(const std::shared_ptr<const loaderlab::WhatIfCalibration> &calibration,
                      const QString &key, const QString &name);
    void predict();
    void showOutcome(const loaderlab::WhatIfOutcome &outcome);
    void showMessage(const QString &message, bool error);
    // The predicted figures and plot; with `calibration` also the run's own error.
    void clearFigures(bool calibration = true);
    loaderlab::WhatIfSetting inputs() const;
    void setInputs(const loaderlab::WhatIfSetting &setting);
    // "live:<trace>" or "run:<id>": which run a calibration is of.
    QString chosenKey() const;
    bool liveChosen() const;

    RunSession *m_session = nullptr;
    BackgroundTask *m_calibrateTask = nullptr;
    BackgroundTask *m_predictTask = nullptr;
    std::shared_ptr<const loaderlab::WhatIfCalibration> m_calibration;
    QString m_calibratedKey;
    QString m_calibrationStatus; // "Calibrated from 120 batches of ..."
    bool m_predictPending = false;
    bool m_stale = true; // the chosen run changed since the last calibration
    std::vector<int> m_knownRuns;
    QTimer m_auto;
    QElapsedTimer m_sinceCalibration; // since the last calibration started
    qint64 m_calibrationMs = 0;       // how long the last one took

    QComboBox *m_run = nullptr;
    QPushButton *m_calibrate = nullptr;
    QLabel *m_status = nullptr;
    WhatIfMachineChoice *m_machine = nullptr;
    QSlider *m_coresSlider = nullptr;
    QSpinBox *m_cores = nullptr;
    QSlider *m_devicesSlider = nullptr;
    QSpinBox *m_devices = nullptr;
    QSpinBox *m_nodes = nullptr;
    QComboBox *m_betweenNodes = nullptr; // the link between nodes, by preset
    QSpinBox *m_workers = nullptr;
    QSpinBox *m_batchSize = nullptr;
    QToolButton *m_reset = nullptr;
    QLabel *m_samplesPerSec = nullptr;
    QLabel *m_firstBatch = nullptr;
    QLabel *m_waitP95 = nullptr;
    QLabel *m_inputBound = nullptr;
    QLabel *m_stragglers = nullptr;
    QLabel *m_waitPeriod = nullptr;
    WhatIfPlot *m_plot = nullptr;
    QLabel *m_selfError = nullptr;
    QLabel *m_assumptions = nullptr;
};

} // namespace loaderlab
