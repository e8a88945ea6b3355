#include "widgets/session/event_list_view.h"

#include "widgets/common/form_helpers.h"
#include "widgets/common/marker_text.h"
#include "widgets/session/run_list.h"

#include <QHeaderView>
#include <QPixmap>
#include <QScrollBar>

namespace loaderlab {

namespace {

constexpr int kMarkerRole = Qt::UserRole;
constexpr int kRunRole = Qt::UserRole + 1;

} // namespace

EventListView::EventListView(RunList *runs, QWidget *parent)
    : QTreeWidget(parent)
    , m_runs(runs)
{
    setColumnCount(ColumnCount);
    setHeaderLabels({tr("#"), tr("Batch"), tr("Time (s)"), tr("Event")});
    header()->setStretchLastSection(true);
    header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(EventColumn, QHeaderView::Stretch);
    setRootIsDecorated(true);
    setUniformRowHeights(true);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setToolTip(tr("Every marker of the shown runs. Choose one to centre the plots on it; "
                  "the numbers are those the plots show where labels crowd."));
    connect(this, &QTreeWidget::itemActivated, this, &EventListView::onItemActivated);
    connect(this, &QTreeWidget::itemClicked, this, &EventListView::onItemActivated);
    rebuild();
}

void EventListView::rebuild()
{
    clear();
    m_rows.clear();
    for (const RunEntry &run : m_runs->runs()) {
        if (!run.visible || !run.trace)
            continue;
        auto *item = new QTreeWidgetItem(this);
        item->setText(NumberColumn, run.name);
        item->setIcon(NumberColumn, formhelpers::colourSwatch(run.colour));
        item->setFirstColumnSpanned(true);
        item->setData(NumberColumn, kRunRole, run.id);
        item->setExpanded(true);
        RunRows &rows = m_rows[run.id];
        rows.item = item;
        appendNew(run.id, rows);
    }
}

void EventListView::refresh()
{
    for (auto &[id, rows] : m_rows) {
        if (const RunEntry *run = m_runs->find(id); run && rows.item->text(0) != run->name)
            rows.item->setText(NumberColumn, run->name);
        appendNew(id, rows);
    }
}

void EventListView::appendNew(int runId, RunRows &rows)
{
    const RunEntry *run = m_runs->find(runId);
    if (!run || !run->trace || run->trace->markerCount() == rows.markersSeen)
        return;
    // A list read at its end follows the new events; one scrolled back stays.
    const bool atEnd = verticalScrollBar()->value() == verticalScrollBar()->maximum();
    for (const TraceMarker &marker : run->trace->markers(rows.markersSeen, &rows.markersSeen)) {
        if (markertext::numbered(marker))
            ++rows.numbered;
        auto *item = new QTreeWidgetItem(rows.item);
        if (markertext::numbered(marker))
            item->setText(NumberColumn, QString::number(rows.numbered));
        item->setText(BatchColumn, QString::number(marker.batch));
        item->setText(TimeColumn,
                      QString::number(static_cast<double>(marker.timeNs) / 1e9, 'f', 2));
        item->setText(EventColumn, markertext::marker(marker));
        item->setToolTip(EventColumn, item->text(EventColumn));
        for (int column : {NumberColumn, BatchColumn, TimeColumn})
            item->setTextAlignment(column, Qt::AlignRight | Qt::AlignVCenter);
        if (!markertext::numbered(marker)) {
            QFont italic = font();
            italic.setItalic(true);
            item->setFont(EventColumn, italic);
            item->setForeground(EventColumn, palette().color(QPalette::PlaceholderText));
        }
        item->setData(NumberColumn, kMarkerRole, QVariant::fromValue(marker.batch));
        item->setData(BatchColumn, kMarkerRole, QVariant::fromValue(marker.timeNs));
        item->setData(TimeColumn, kMarkerRole, static_cast<int>(marker.kind));
    }
    const int surplus = rows.item->childCount() - kMaxRowsPerRun;
    for (int i = 0; i < surplus; ++i)
        delete rows.item->takeChild(0);
    if (atEnd)
        scrollToBottom();
}

void EventListView::onItemActivated(QTreeWidgetItem *item)
{
    if (!item || !item->parent())
        return;
    TraceMarker marker;
    marker.batch = item->data(NumberColumn, kMarkerRole).toLongLong();
    marker.timeNs = item->data(BatchColumn, kMarkerRole).toLongLong();
    marker.kind = static_cast<MarkerKind>(item->data(TimeColumn, kMarkerRole).toInt());
    Q_EMIT eventChosen(marker, item->parent()->data(NumberColumn, kRunRole).toInt());
}

} // namespace loaderlab
