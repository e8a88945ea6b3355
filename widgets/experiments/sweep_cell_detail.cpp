#include "widgets/experiments/sweep_cell_detail.h"

#include "core/io/trace_csv.h"
#include "widgets/plots/wait_time_plot.h"
#include "widgets/plots/worker_timeline_plot.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <exception>

namespace loaderlab {

namespace {

// Below these the axes' labels and ticks no longer fit beside the legends.
constexpr int kMinPlotHeight = 160;
constexpr int kMinPlotWidth = 220;

// Smaller text and swatches than the live view's legends, `perRow` entries a row.
void compactLegend(QCPLegend *legend, int perRow)
{
    legend->setFont(QFont(legend->font().family(), 7));
    legend->setIconSize(16, 8);
    legend->setIconTextPadding(4);
    legend->setRowSpacing(0);
    legend->setColumnSpacing(8);
    legend->setMargins(QMargins(2, 1, 2, 1));
    legend->setWrap(perRow);
    legend->setFillOrder(QCPLegend::foColumnsFirst, true); // re-wraps its entries
}

} // namespace

SweepCellDetail::SweepCellDetail(QWidget *parent)
    : QWidget(parent)
{
    m_title = new QLabel;
    m_title->setObjectName(QStringLiteral("cellTitle"));
    m_title->setWordWrap(true);
    m_wait = new WaitTimePlot;
    m_wait->setObjectName(QStringLiteral("cellWaitPlot"));
    m_timeline = new WorkerTimelinePlot;
    m_timeline->setObjectName(QStringLiteral("cellTimelinePlot"));
    // At 1280x800 each plot has about 270 x 200 px (half the tab below the table). The
    // legends are compact, so the data keeps most of that, and neither plot's legend
    // makes it wider than its half: the wait plot's above its axes two entries a row,
    // the timeline's below one a row (two a row are 400 px wide, and squeezed the wait
    // plot to a strip).
    compactLegend(m_wait->legend, 2);
    compactLegend(m_timeline->legend, 1);
    for (QWidget *plot : {static_cast<QWidget *>(m_wait), static_cast<QWidget *>(m_timeline)}) {
        plot->setMinimumHeight(kMinPlotHeight);
        plot->setMinimumWidth(kMinPlotWidth);
    }
    auto *plots = new QHBoxLayout;
    plots->addWidget(m_wait, 1);
    plots->addWidget(m_timeline, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addLayout(plots, 1);
    clear();
}

std::shared_ptr<TraceLog> SweepCellDetail::traceFromCsv(const std::string &path, int workers)
{
    auto log = std::make_shared<TraceLog>();
    for (const TraceRecord &r : loadTraceCsv(path)) {
        log->append(r);
        if (r.worker == kAllWorkers) {
            for (int w = 0; w < workers; ++w)
                log->appendSpan({r.index, w, 0, r.loadStartNs, r.loadEndNs});
        } else {
            log->appendSpan({r.index, r.worker, 0, r.loadStartNs, r.loadEndNs});
        }
    }
    return log;
}

bool SweepCellDetail::showCell(const QString &title, const QString &csvPath, int workers,
                               QString *error)
{
    try {
        m_trace = traceFromCsv(csvPath.toStdString(), workers);
    } catch (const std::exception &e) {
        const QString reason = QString::fromStdString(e.what());
        clear(tr("%1: %2").arg(title, reason));
        if (error)
            *error = reason;
        return false;
    }
    m_title->setText(
        tr("%1 — %n batch(es)", nullptr, static_cast<int>(m_trace->size())).arg(title));
    m_wait->setTrace(m_trace, workers);
    m_timeline->setTrace(m_trace, workers);
    // The whole run in view, not the newest batches a live run follows.
    for (LivePlot *plot : {static_cast<LivePlot *>(m_wait), static_cast<LivePlot *>(m_timeline)}) {
        plot->refresh();
        plot->showWholeRun();
    }
    return true;
}

void SweepCellDetail::clear(const QString &message)
{
    m_trace.reset();
    m_wait->setTrace(nullptr, 0);
    m_timeline->setTrace(nullptr, 0);
    m_title->setText(message.isEmpty()
                         ? tr("Click a cell in the table or the heatmap to see its batches.")
                         : message);
}

QString SweepCellDetail::title() const
{
    return m_title->text();
}

} // namespace loaderlab
