#pragma once

// LimitsDialog (Run > Limits of this machine): `loaderlab limits` in the window. It
// measures the ceilings of the side panel's settings on this machine
// (core/limits/ceilings.h) on a thread of its own, stage by stage with progress and a
// Stop button, then draws the roofline (core/limits/roofline.h: the decode rising with
// the cores, the other ceilings flat, the window's runs as points), names the ceiling
// that binds, lists what lifts each one, and exports the plot (PNG, SVG, PDF).

#include "core/config/run_config.h"
#include "core/limits/ceilings.h"
#include "core/limits/roofline.h"

#include <QDialog>

#include <functional>
#include <optional>
#include <vector>

class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace loaderlab {

class BackgroundTask;

class LimitsDialog : public QDialog
{
    Q_OBJECT

public:
    // `config`: the settings to measure, asked for at each Measure; `points`: the
    // window's runs to place, asked for when the plot is drawn.
    LimitsDialog(std::function<RunConfig()> config,
                 std::function<std::vector<RooflinePoint>()> points, QWidget *parent = nullptr);
    ~LimitsDialog() override;

    // Starts measuring (what the Measure button does).
    void measure();
    // The report shown (for a test, or measured elsewhere), drawn with the runs.
    void showReport(const CeilingReport &report);

Q_SIGNALS:
    // A measurement ended: drawn, stopped with what it had, or failed (said in the dialog).
    void measureEnded();

private:
    void stop();
    void setMeasuring(bool measuring);
    void draw();
    void exportPlot();
    QString bindingText() const;
    QString predictedText() const;

    std::function<RunConfig()> m_config;
    std::function<std::vector<RooflinePoint>()> m_points;
    BackgroundTask *m_task = nullptr;
    QDoubleSpinBox *m_seconds = nullptr;
    QPushButton *m_measureButton = nullptr;
    QPushButton *m_stopButton = nullptr;
    QPushButton *m_exportButton = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
    QCustomPlot *m_plot = nullptr;
    QLabel *m_binding = nullptr;
    QLabel *m_predicted = nullptr;
    QTableWidget *m_table = nullptr;
    std::optional<CeilingReport> m_report;
};

} // namespace loaderlab
