#pragma once

// EventListView: every marker of the runs the plots show (the live run, and kept and
// opened runs that are ticked), grouped by run: epochs, setting changes with their
// before and after, pauses and resumes, autotuner moves and lesson phases, each with
// its batch, its time from the run's start and its text. Events other than epochs
// carry the number the plots show where their labels crowd ("#4"); epochs read
// "epoch N" (markertext::numbered). Choosing a row asks the plots to centre on it.

#include "core/record/trace_record.h"

#include <QTreeWidget>

#include <cstddef>
#include <map>

namespace loaderlab {

class RunList;

class EventListView : public QTreeWidget
{
    Q_OBJECT

public:
    enum Column { NumberColumn, BatchColumn, TimeColumn, EventColumn, ColumnCount };

    explicit EventListView(RunList *runs, QWidget *parent = nullptr);

    // Appends the markers that arrived since the last call (the window's tick).
    void refresh();
    // Lists the shown runs afresh (runs kept, opened, removed, ticked or renamed; a
    // new live run).
    void rebuild();

    // The most rows one run keeps (the newest): a run of tiny epochs marks an epoch
    // every few batches.
    static constexpr int kMaxRowsPerRun = 5000;

Q_SIGNALS:
    // A row was chosen: the marker, and the id of its run in the run list.
    void eventChosen(const loaderlab::TraceMarker &marker, int runId);

private:
    struct RunRows
    {
        QTreeWidgetItem *item = nullptr;
        std::size_t markersSeen = 0;
        int numbered = 0; // numbered events so far (the next one's number - 1)
    };
    void appendNew(int runId, RunRows &rows);
    void onItemActivated(QTreeWidgetItem *item);

    RunList *m_runs = nullptr;
    std::map<int, RunRows> m_rows; // by run id
};

} // namespace loaderlab
