#include "app/window/live_plot_area.h"

#include "widgets/plots/plot_export.h"
#include "widgets/plots/throughput_plot.h"
#include "widgets/plots/wait_histogram_plot.h"
#include "widgets/plots/wait_pattern_plot.h"
#include "widgets/plots/wait_time_plot.h"
#include "widgets/plots/worker_timeline_plot.h"

#include <QDir>

#include <algorithm>
#include <map>

namespace loaderlab {

namespace {

// One live plot: the object, its object name, the file name exportPlots gives it,
// its label (the accessible name), and its place: plots of one row sit side by side,
// rows stack top to bottom. A row's height share is its first plot's rowStretch;
// within the row, plots share the width by `stretch`.
struct PlotRow
{
    LivePlot *plot;
    const char *objectName;
    const char *fileName;
    QString label;
    int row;
    int rowStretch;
    int stretch;
};

} // namespace

LivePlotArea::LivePlotArea(QWidget *parent)
    : QSplitter(Qt::Vertical, parent)
{
    m_timeline = new WorkerTimelinePlot;
    // The plots, in export order. Adding a plot: one row here (and its class).
    const PlotRow table[] = {
        {.plot = new WaitTimePlot,
         .objectName = "waitTimePlot",
         .fileName = "wait_time",
         .label = tr("Wait time per batch"),
         .row = 0,
         .rowStretch = 3,
         .stretch = 3},
        {.plot = new ThroughputPlot,
         .objectName = "throughputPlot",
         .fileName = "throughput",
         .label = tr("Throughput"),
         .row = 2,
         .rowStretch = 2,
         .stretch = 2},
        {.plot = m_timeline,
         .objectName = "workerTimelinePlot",
         .fileName = "worker_timeline",
         .label = tr("Worker timeline"),
         .row = 1,
         .rowStretch = 3,
         .stretch = 1},
        {.plot = new WaitHistogramPlot,
         .objectName = "waitHistogramPlot",
         .fileName = "wait_histogram",
         .label = tr("Wait time histogram"),
         .row = 2,
         .rowStretch = 2,
         .stretch = 1},
        // Beside the wait plot: the same waits, folded by position in the round.
        {.plot = new WaitPatternPlot,
         .objectName = "waitPatternPlot",
         .fileName = "wait_pattern",
         .label = tr("Wait pattern over the round"),
         .row = 0,
         .rowStretch = 3,
         .stretch = 1},
    };

    std::map<int, std::vector<const PlotRow *>> rows;
    for (const PlotRow &entry : table) {
        entry.plot->setObjectName(QLatin1String(entry.objectName));
        entry.plot->setAccessibleName(entry.label);
        entry.plot->setMinimumHeight(160);
        m_plots.push_back(entry.plot);
        m_fileNames.push_back(QLatin1String(entry.fileName));
        rows[entry.row].push_back(&entry);
        connect(entry.plot, &LivePlot::followingChanged, this, [this](bool following) {
            if (!following)
                Q_EMIT followingStopped();
        });
    }
    for (const auto &[row, entries] : rows) {
        QWidget *widget = entries.front()->plot;
        if (entries.size() > 1) {
            auto *side = new QSplitter(Qt::Horizontal);
            for (std::size_t i = 0; i < entries.size(); ++i) {
                side->addWidget(entries[i]->plot);
                side->setStretchFactor(static_cast<int>(i), entries[i]->stretch);
            }
            widget = side;
        }
        addWidget(widget);
        setStretchFactor(count() - 1, entries.front()->rowStretch);
    }
}

void LivePlotArea::setTrace(const std::shared_ptr<const loaderlab::TraceLog> &trace, int lanes)
{
    for (LivePlot *plot : m_plots)
        plot->setTrace(trace, lanes);
}

void LivePlotArea::refresh(int lanes)
{
    m_timeline->setWorkerLanes(lanes);
    for (LivePlot *plot : m_plots)
        plot->refresh();
}

void LivePlotArea::setOverlays(const std::vector<PlotOverlay> &overlays, bool liveVisible)
{
    for (LivePlot *plot : m_plots) {
        plot->setOverlays(overlays);
        plot->setLiveVisible(liveVisible);
    }
}

void LivePlotArea::showWholeRun()
{
    for (LivePlot *plot : m_plots)
        plot->showWholeRun();
}

void LivePlotArea::centreOn(const loaderlab::TraceMarker &marker)
{
    for (LivePlot *plot : m_plots)
        plot->centreOn(marker);
}

void LivePlotArea::setFollowing(bool follow)
{
    for (LivePlot *plot : m_plots)
        plot->setFollowing(follow);
}

bool LivePlotArea::exportPlots(const QString &dir, const QString &format,
                               const PlotExportOptions &options, const QString &runTitle,
                               QString *error) const
{
    for (std::size_t i = 0; i < m_plots.size(); ++i) {
        const QString path = QDir(dir).filePath(m_fileNames[i] + QLatin1Char('.') + format);
        const QString title = m_plots[i]->accessibleName() + QLatin1Char('\n') + runTitle;
        if (!exportPlot(m_plots[i], path, options, title, {}, error))
            return false;
    }
    return true;
}

} // namespace loaderlab
