#pragma once

// LivePlotArea: the Live tab, the run's plots stacked in a splitter. Which plots
// there are, their names, export file names, labels and places come from one table
// (the PlotRow table in LivePlotArea's constructor, live_plot_area.cpp); everything
// else (refresh, overlays, following, export) goes over the plots of that table.

#include "widgets/plots/live_plot.h"

#include <QSplitter>
#include <QString>

#include <memory>
#include <vector>

namespace loaderlab {

struct PlotExportOptions;
class WorkerTimelinePlot;

class LivePlotArea : public QSplitter
{
    Q_OBJECT

public:
    explicit LivePlotArea(QWidget *parent = nullptr);

    // In the table's order.
    const std::vector<LivePlot *> &plots() const { return m_plots; }

    void setTrace(const std::shared_ptr<const loaderlab::TraceLog> &trace, int lanes);
    // One refresh of every plot; `lanes` is the largest worker count of the run.
    void refresh(int lanes);
    void setOverlays(const std::vector<PlotOverlay> &overlays, bool liveVisible);
    void showWholeRun();
    void setFollowing(bool follow);
    // Every plot with a batch or time axis centres on `marker` (LivePlot::centreOn).
    void centreOn(const loaderlab::TraceMarker &marker);

    // Writes every plot as <dir>/<file name>.<format> with `options`
    // (widgets/plots/plot_export.h), each titled by its label over `runTitle`; false
    // with the first error.
    bool exportPlots(const QString &dir, const QString &format,
                     const loaderlab::PlotExportOptions &options, const QString &runTitle,
                     QString *error) const;

Q_SIGNALS:
    // The user zoomed or panned a plot: it no longer follows the newest data.
    void followingStopped();

private:
    std::vector<LivePlot *> m_plots;
    std::vector<QString> m_fileNames; // beside m_plots, filled from the same table
    WorkerTimelinePlot *m_timeline = nullptr;
};

} // namespace loaderlab
