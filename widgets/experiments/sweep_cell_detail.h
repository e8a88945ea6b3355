#pragma once

// SweepCellDetail: one sweep cell's batches, as the live view shows a run: the wait
// per batch (WaitTimePlot) and the worker timeline (WorkerTimelinePlot), fed from the
// cell's per-batch CSV in the results folder. The CSV keeps one load span per batch
// (its worker, load start and end), not the worker spans of the live trace: a
// sample-parallel batch (built by every worker) is drawn on every worker's lane over
// its load time.

#include "core/trace/trace_log.h"

#include <QWidget>

#include <memory>

class QLabel;
namespace loaderlab {

class WaitTimePlot;
class WorkerTimelinePlot;

class SweepCellDetail : public QWidget
{
    Q_OBJECT

public:
    explicit SweepCellDetail(QWidget *parent = nullptr);

    // Reads `csvPath` and shows it under `title`; false with the reason (also shown)
    // when it cannot be read.
    bool showCell(const QString &title, const QString &csvPath, int workers, QString *error);
    // No cell: the plots are emptied and `message` says why (by default: how to pick one).
    void clear(const QString &message = {});

    // A trace log holding the CSV's batches and a load span per batch (see above).
    // Throws std::runtime_error naming the file.
    static std::shared_ptr<loaderlab::TraceLog> traceFromCsv(const std::string &path, int workers);

    WaitTimePlot *waitPlot() const { return m_wait; }
    WorkerTimelinePlot *timelinePlot() const { return m_timeline; }
    QString title() const;

private:
    QLabel *m_title = nullptr;
    WaitTimePlot *m_wait = nullptr;
    WorkerTimelinePlot *m_timeline = nullptr;
    std::shared_ptr<loaderlab::TraceLog> m_trace;
};

} // namespace loaderlab
