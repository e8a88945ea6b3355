#pragma once

// RunListView: the run list (widgets/session/run_list.h) as the window shows it: one row per
// run with its colour, a checkbox that shows or hides it on every plot, its name
// (editable), where it came from and a remove button; below, the figures of every
// visible run side by side (one row per run).

#include <QWidget>

class QTableWidget;
class QTableWidgetItem;

namespace loaderlab {

class RunList;

class RunListView : public QWidget
{
    Q_OBJECT

public:
    explicit RunListView(RunList *runs, QWidget *parent = nullptr);

    // Columns of the stats table, one row per visible run (in the run list's order).
    enum StatsColumn {
        RunColumn,
        SamplesPerSecColumn,
        WaitMeanColumn,
        WaitP95Column,
        InputBoundColumn,
        FirstBatchColumn,
        BatchesColumn,
        StatsColumnCount
    };

    // The figures table of the ticked runs as CSV (RFC 4180, a header line, one row a
    // run, full precision, columns named with their units): what File → Export
    // figures table writes.
    static QString figuresCsv(const RunList &runs);

    // The height that shows `rows` runs in both tables (labels, headers and margins
    // included).
    int heightFor(int rows) const;

private:
    void rebuildRuns();
    void rebuildStats();
    void onItemChanged(QTableWidgetItem *item);

    RunList *m_runs = nullptr;
    QTableWidget *m_runsTable = nullptr;
    QTableWidget *m_statsTable = nullptr;
    bool m_rebuilding = false;
};

} // namespace loaderlab
