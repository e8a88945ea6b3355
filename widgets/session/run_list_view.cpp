#include "widgets/session/run_list_view.h"

#include "core/system/safe_text.h"

#include "widgets/common/figure_text.h"
#include "widgets/common/form_helpers.h"
#include "widgets/session/run_list.h"
#include "widgets/session/stats_panel.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPixmap>
#include <QTableWidget>
#include <QTimer>

#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

namespace loaderlab {

namespace {

enum Column { ShowColumn, NameColumn, SourceColumn, RemoveColumn, ColumnCount };

using figuretext::number;

} // namespace

RunListView::RunListView(RunList *runs, QWidget *parent)
    : QWidget(parent)
    , m_runs(runs)
{
    m_runsTable = new QTableWidget(0, ColumnCount);
    m_runsTable->setObjectName(QStringLiteral("runsTable"));
    m_runsTable->setHorizontalHeaderLabels({tr("Show"), tr("Name"), tr("From"), QString()});
    m_runsTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_runsTable->horizontalHeader()->setSectionResizeMode(NameColumn, QHeaderView::Stretch);
    m_runsTable->horizontalHeader()->setSectionResizeMode(SourceColumn,
                                                          QHeaderView::ResizeToContents);
    m_runsTable->verticalHeader()->setVisible(false);
    m_runsTable->setSelectionMode(QAbstractItemView::NoSelection);
    m_runsTable->setToolTip(tr("Every plot draws the runs ticked here, each in its colour. "
                               "Double-click a name to change it."));

    m_statsTable = new QTableWidget(0, StatsColumnCount);
    m_statsTable->setObjectName(QStringLiteral("runStatsTable"));
    m_statsTable->setHorizontalHeaderLabels({tr("Run"), tr("Samples/s"), tr("Wait mean\n(ms)"),
                                             tr("Wait p95\n(ms)"), tr("Input-\nbound"),
                                             tr("First batch\n(ms)"), tr("Batches")});
    m_statsTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_statsTable->setSelectionMode(QAbstractItemView::NoSelection);
    m_statsTable->verticalHeader()->setVisible(false);
    m_statsTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_statsTable->horizontalHeader()->setSectionResizeMode(RunColumn, QHeaderView::Stretch);
    m_statsTable->setToolTip(tr("The figures of every visible run (docs/metrics.md): mean "
                                "samples/s after warm-up, the wait for a batch, the share of "
                                "the run spent waiting, the first batch's wait. The live run's "
                                "cover its most recent batches while it runs."));

    // Side by side: the list on the left, the figures of the ticked runs on the right.
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 4);
    const auto column = [layout](const QString &title, QTableWidget *table, int stretch) {
        auto *box = new QVBoxLayout;
        box->setSpacing(2);
        box->addWidget(new QLabel(title));
        box->addWidget(table);
        layout->addLayout(box, stretch);
    };
    column(tr("Tick a run to draw it on every plot"), m_runsTable, 2);
    column(tr("Figures of the ticked runs"), m_statsTable, 3);
    for (QTableWidget *table : {m_runsTable, m_statsTable}) {
        table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
        table->setMinimumHeight(3 * (table->fontMetrics().height() + 6));
    }

    connect(m_runsTable, &QTableWidget::itemChanged, this, &RunListView::onItemChanged);
    connect(m_runs, &RunList::overlaysChanged, this, [this] {
        rebuildRuns();
        rebuildStats();
    });
    connect(m_runs, &RunList::labelsChanged, this, &RunListView::rebuildStats);
    rebuildRuns();
    rebuildStats();
}

int RunListView::heightFor(int rows) const
{
    int tallest = 0;
    for (const QTableWidget *table : {m_runsTable, m_statsTable}) {
        const int header = table->horizontalHeader()->sizeHint().height();
        const int body = rows * table->verticalHeader()->defaultSectionSize();
        tallest = std::max(tallest, header + body + 2 * table->frameWidth());
    }
    const QMargins margins = layout()->contentsMargins();
    return tallest + fontMetrics().height() + 2 + margins.top() + margins.bottom();
}

void RunListView::rebuildRuns()
{
    m_rebuilding = true;
    const auto &runs = m_runs->runs();
    m_runsTable->setRowCount(static_cast<int>(runs.size()));
    for (int row = 0; row < static_cast<int>(runs.size()); ++row) {
        const RunEntry &run = runs[static_cast<std::size_t>(row)];
        auto *show = new QTableWidgetItem(formhelpers::colourSwatch(run.colour), QString());
        show->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        show->setCheckState(run.visible ? Qt::Checked : Qt::Unchecked);
        show->setData(Qt::UserRole, run.id);
        m_runsTable->setItem(row, ShowColumn, show);
        auto *name = new QTableWidgetItem(run.name);
        name->setData(Qt::UserRole, run.id);
        name->setForeground(run.colour);
        name->setFlags(run.live ? Qt::ItemIsEnabled : Qt::ItemIsEnabled | Qt::ItemIsEditable);
        m_runsTable->setItem(row, NameColumn, name);
        auto *source = new QTableWidgetItem(run.live ? tr("this window")
                                            : run.source.isEmpty()
                                                ? tr("kept")
                                                : QFileInfo(run.source).fileName());
        source->setToolTip(run.source);
        source->setFlags(Qt::ItemIsEnabled);
        m_runsTable->setItem(row, SourceColumn, source);
        if (run.live) {
            m_runsTable->setCellWidget(row, RemoveColumn, nullptr);
            continue;
        }
        auto *remove = new QToolButton;
        remove->setObjectName(QStringLiteral("removeRun%1").arg(run.id));
        remove->setText(tr("Remove"));
        remove->setToolTip(tr("Remove this run from the list and the plots."));
        connect(remove, &QToolButton::clicked, this, [this, id = run.id] {
            // Not while the button's own row is being rebuilt.
            QTimer::singleShot(0, m_runs, [runs = m_runs, id] { runs->remove(id); });
        });
        m_runsTable->setCellWidget(row, RemoveColumn, remove);
    }
    m_rebuilding = false;
}

void RunListView::rebuildStats()
{
    std::vector<const RunEntry *> shown;
    for (const RunEntry &run : m_runs->runs())
        if (run.visible && run.trace)
            shown.push_back(&run);
    m_statsTable->setRowCount(static_cast<int>(shown.size()));
    for (int row = 0; row < static_cast<int>(shown.size()); ++row) {
        const RunEntry &run = *shown[static_cast<std::size_t>(row)];
        const RunSummary &s = run.summary;
        const QString values[StatsColumnCount] = {
            run.name,
            number(s.samplesPerSecMean),
            number(s.waitMeanMs, 2),
            number(s.waitP95Ms, 2),
            number(s.inputBoundShare * 100.0) + QStringLiteral(" %"),
            number(s.firstBatchLatencyMs),
            QString::number(s.batches),
        };
        for (int column = 0; column < StatsColumnCount; ++column) {
            auto *item = new QTableWidgetItem(values[column]);
            item->setData(Qt::UserRole, run.id);
            if (column == RunColumn) {
                item->setForeground(run.colour);
                item->setIcon(formhelpers::colourSwatch(run.colour));
            } else {
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            }
            if (column == InputBoundColumn) {
                const InputBoundBand band = isShareBand(s.band) ? bandForShare(s.inputBoundShare)
                                                                : s.band;
                item->setForeground(StatsPanel::bandColour(band));
                item->setToolTip(StatsPanel::bandText(band));
            }
            m_statsTable->setItem(row, column, item);
        }
    }
}

QString RunListView::figuresCsv(const RunList &runs)
{
    // The shortest text that reads back as the same double.
    const auto full = [](double value) {
        return QString::number(value, 'g', QLocale::FloatingPointShortest);
    };
    QString csv = QStringLiteral("run,samples_per_s,wait_mean_ms,wait_p95_ms,input_bound_share,"
                                 "first_batch_ms,batches\n");
    for (const RunEntry &run : runs.runs()) {
        if (!run.visible || !run.trace)
            continue;
        const RunSummary &s = run.summary;
        csv += QStringList{QString::fromStdString(csvField(run.name.toStdString())),
                           full(s.samplesPerSecMean),
                           full(s.waitMeanMs),
                           full(s.waitP95Ms),
                           full(s.inputBoundShare),
                           full(s.firstBatchLatencyMs),
                           QString::number(s.batches)}
                   .join(QLatin1Char(','))
               + QLatin1Char('\n');
    }
    return csv;
}

void RunListView::onItemChanged(QTableWidgetItem *item)
{
    if (m_rebuilding)
        return;
    const int id = item->data(Qt::UserRole).toInt();
    // Applied after this signal: the change rebuilds the table that emitted it.
    if (item->column() == ShowColumn) {
        const bool visible = item->checkState() == Qt::Checked;
        QTimer::singleShot(0, m_runs,
                           [runs = m_runs, id, visible] { runs->setVisible(id, visible); });
    } else if (item->column() == NameColumn) {
        const QString name = item->text();
        QTimer::singleShot(0, m_runs, [runs = m_runs, id, name] { runs->rename(id, name); });
    }
}

} // namespace loaderlab
