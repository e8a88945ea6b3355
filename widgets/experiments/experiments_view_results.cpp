// ExperimentsView's results side: the recommendation, the table, the heatmap and its
// choices, the line plots, the clicked cell's batches, and the exports.

#include "widgets/experiments/experiments_view.h"

#include "core/config/config_fields.h"
#include "core/sweep/sweep_figures.h"
#include "widgets/common/form_helpers.h"
#include "widgets/common/marker_text.h"
#include "widgets/experiments/sweep_cell_detail.h"
#include "widgets/experiments/sweep_cells_model.h"
#include "widgets/experiments/sweep_heatmap.h"
#include "widgets/experiments/sweep_line_plots.h"
#include "widgets/experiments/sweep_text.h"
#include "widgets/plots/plot_export.h"
#include "widgets/plots/plot_title.h"
#include "widgets/plots/wait_time_plot.h"
#include "widgets/plots/worker_timeline_plot.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <set>

namespace loaderlab {

namespace {

// Exported at this size when the plot has not been laid out yet (a tab never shown).
constexpr int kExportWidth = 900;
constexpr int kExportHeight = 600;

int axisOf(const SweepDefinition &d, const char *key, int fallback)
{
    for (std::size_t a = 0; a < d.axes.size(); ++a) {
        if (d.axes[a].key == key)
            return static_cast<int>(a);
    }
    return fallback < static_cast<int>(d.axes.size()) ? fallback : -1;
}

// "Workers" for "loader.num_workers": the field's label where it has one.
QString axisLabel(const std::string &key)
{
    const ConfigField *field = findConfigField(key);
    return field ? markertext::fieldLabel(*field) : QString::fromStdString(key);
}

// "32" for a batch size of 32 (sweepValueText says "batch 32"): beside the axis label.
QString axisValue(const std::string &key, const nlohmann::json &value)
{
    const ConfigField *field = findConfigField(key);
    return QString::fromStdString(field ? configValueText(*field, value) : value.dump());
}

} // namespace

QWidget *ExperimentsView::buildResults()
{
    using formhelpers::named;
    m_recommendation = named(new QLabel(tr("The recommendation appears when cells have run.")),
                             "sweepRecommendation", {});
    m_recommendation->setWordWrap(true);
    m_recommendation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_recommendation->setStyleSheet(QStringLiteral("font-weight: bold"));

    m_figureCombo = named(new QComboBox, "heatmapFigure", tr("The figure the heatmap shows."));
    for (const SweepFigure *figure : sweeptext::figures())
        m_figureCombo->addItem(
            sweeptext::figureLabel(*figure),
            QString::fromUtf8(figure->name.data(), static_cast<qsizetype>(figure->name.size())));
    m_xCombo = named(new QComboBox, "heatmapXAxis", tr("The axis across."));
    m_yCombo = named(new QComboBox, "heatmapYAxis",
                     tr("The axis up; with more than two axes each "
                        "cell shows the best over the others."));
    for (QComboBox *combo : {m_figureCombo, m_xCombo, m_yCombo}) {
        // As wide as the longest entry when there is room, narrower (elided) when not.
        combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        combo->setMinimumWidth(80);
        connect(combo, &QComboBox::currentIndexChanged, this, &ExperimentsView::refreshHeatmap);
    }
    auto *exportPlots = named(new QToolButton, "exportSweepPlots",
                              tr("Every plot of this tab as PNG, SVG and PDF into a folder."));
    exportPlots->setText(tr("Export plots…"));
    connect(exportPlots, &QToolButton::clicked, this, &ExperimentsView::exportPlotsDialog);
    auto *exportTable = named(new QToolButton, "exportSweepTable",
                              tr("The table with unrounded figures as CSV."));
    exportTable->setText(tr("Export table…"));
    connect(exportTable, &QToolButton::clicked, this, &ExperimentsView::exportTableDialog);
    auto *choices = new QHBoxLayout;
    choices->addWidget(new QLabel(tr("Heatmap:")));
    choices->addWidget(m_figureCombo);
    choices->addWidget(new QLabel(tr("across")));
    choices->addWidget(m_xCombo);
    choices->addWidget(new QLabel(tr("up")));
    choices->addWidget(m_yCombo);
    choices->addStretch();
    // The Predicted toggle and the exports in a row of their own, the recommendation
    // below them at the column's whole width: beside them it was a column of a dozen
    // short lines at 1280 px (German), and the heatmap's row stays narrow enough too.
    auto *top = new QHBoxLayout;
    top->addStretch(1);
    QWidget *predictionRow = buildPrediction(top);
    top->addWidget(exportPlots, 0, Qt::AlignTop);
    top->addWidget(exportTable, 0, Qt::AlignTop);

    m_table = named(new QTableView, "sweepTable",
                    tr("One row per cell; click one to see its "
                       "batches below."));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    showCell(current.row());
            });
    m_heatmap = named(new SweepHeatmap, "sweepHeatmap", tr("Click a cell to see its batches."));
    m_heatmap->setMinimumSize(260, 220);
    connect(m_heatmap, &SweepHeatmap::cellClicked, this, [this](std::int64_t grid) {
        const int row = static_cast<int>(grid);
        if (m_table->currentIndex().row() == row)
            showCell(grid);
        else
            m_table->selectRow(row); // the table's current row shows it
    });
    m_lines = new SweepLinePlots;
    m_lines->setObjectName(QStringLiteral("sweepLinePlots"));
    m_detail = new SweepCellDetail;
    m_detail->setObjectName(QStringLiteral("sweepCellDetail"));

    auto *upper = m_upperSplit = new QSplitter(Qt::Horizontal);
    upper->addWidget(m_table);
    upper->addWidget(m_heatmap);
    m_lowerTabs = named(new QTabWidget, "sweepLowerTabs", {});
    m_lowerTabs->addTab(m_lines, tr("Line plots"));
    m_lowerTabs->addTab(m_detail, tr("Selected cell"));
    auto *vertical = new QSplitter(Qt::Vertical);
    vertical->addWidget(upper);
    vertical->addWidget(m_lowerTabs);
    vertical->setStretchFactor(0, 1);
    vertical->setStretchFactor(1, 1);

    auto *results = new QWidget;
    results->setObjectName(QStringLiteral("sweepResults"));
    auto *layout = new QVBoxLayout(results);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_recommendation);
    layout->addLayout(choices);
    layout->addWidget(predictionRow);
    layout->addWidget(vertical, 1);
    return results;
}

void ExperimentsView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_splitSized)
        return;
    m_splitSized = true;
    // Halves once laid out: the table's size hint (every column) would take it all.
    QTimer::singleShot(0, this, [this] {
        const int half = m_upperSplit->width() / 2;
        m_upperSplit->setSizes({half, m_upperSplit->width() - half});
    });
}

void ExperimentsView::fillAxisCombos()
{
    const SweepDefinition &d = m_model->definition();
    const QSignalBlocker blockX(m_xCombo);
    const QSignalBlocker blockY(m_yCombo);
    m_xCombo->clear();
    m_yCombo->clear();
    for (std::size_t a = 0; a < d.axes.size(); ++a) {
        const QString label = axisLabel(d.axes[a].key);
        m_xCombo->addItem(label, static_cast<int>(a));
        m_yCombo->addItem(label, static_cast<int>(a));
    }
    m_yCombo->addItem(tr("(none)"), -1);
    const int x = axisOf(d, "loader.num_workers", 0);
    const int y = axisOf(d, "loader.batch_size", x == 1 ? 0 : 1);
    formhelpers::selectData(m_xCombo, x);
    formhelpers::selectData(m_yCombo, y == x ? -1 : y);
}

void ExperimentsView::setHeatmap(const std::string &figure, int xAxis, int yAxis)
{
    sweepFigure(figure); // refuses an unknown name before the choices change
    const QSignalBlocker blockFigure(m_figureCombo);
    const QSignalBlocker blockX(m_xCombo);
    const QSignalBlocker blockY(m_yCombo);
    formhelpers::selectData(m_figureCombo, QString::fromStdString(figure));
    formhelpers::selectData(m_xCombo, xAxis);
    formhelpers::selectData(m_yCombo, yAxis);
    refreshHeatmap();
}

void ExperimentsView::refreshHeatmap()
{
    const int x = m_xCombo->currentData().toInt();
    const int y = m_yCombo->currentData().toInt();
    const std::string figure = m_figureCombo->currentData().toString().toStdString();
    if (predictedShown()) {
        m_heatmap->plotPrediction(m_model->definition(), *m_model->prediction(), x, y, figure);
        showPredictionSummary();
        return;
    }
    m_heatmap->plotSweep(m_model->definition(), m_model->analysis(), x, y, figure,
                         m_model->skippedGrids());
}

void ExperimentsView::refreshResults()
{
    refreshHeatmap();
    m_lines->plotSweep(m_model->definition(), m_model->analysis(), m_model->records());
    // Cheap for the grids people run (it measures every row); past that the columns
    // keep the widths they have.
    if (m_model->rowCount() <= 1000)
        m_table->resizeColumnsToContents();
    QStringList sentences;
    for (const SweepRecommendation &r : m_model->analysis().recommendations)
        sentences << sweeptext::recommendation(m_model->analysis(), r);
    m_recommendation->setText(sentences.isEmpty()
                                  ? tr("The recommendation appears when cells have run.")
                                  : tr("Recommended: %1").arg(sentences.join(QLatin1Char('\n'))));
}

bool ExperimentsView::showCell(std::int64_t grid, QString *error)
{
    return loadCell(grid, true, error);
}

bool ExperimentsView::loadCell(std::int64_t grid, bool toFront, QString *error)
{
    if (grid < 0 || grid >= m_model->rowCount())
        return false;
    const SweepDefinition &d = m_model->definition();
    QStringList values;
    QStringList labelled; // "Workers 2, Batch size 32" for the exports' title line
    RunConfig config = d.base;
    for (std::size_t a = 0; a < d.axes.size(); ++a) {
        const nlohmann::json &v = m_model->values(static_cast<int>(grid))[a];
        values << sweeptext::value(d.axes[a].key, v);
        labelled << axisLabel(d.axes[a].key) + QLatin1Char(' ') + axisValue(d.axes[a].key, v);
        setConfigField(config, d.axes[a].key, v);
    }
    QString title = values.join(QStringLiteral(", "));
    m_cellShown = true;
    m_cellConfig = config;
    m_cellLabel = labelled.join(QStringLiteral(", "));
    if (toFront)
        m_lowerTabs->setCurrentWidget(m_detail);
    const SweepRecord *record = m_model->traceRecord(grid);
    if (!record) {
        const SweepCellStats *stats = m_model->stats(grid);
        const QString reason = stats && stats->failures > 0
                                   ? tr("failed: %1").arg(QString::fromStdString(stats->error))
                                   : tr("no trace (not run yet)");
        m_detail->clear(tr("%1: %2").arg(title, reason));
        if (error)
            *error = reason;
        return false;
    }
    if (d.repeats > 1) {
        title += tr(" (repeat %1)").arg(record->repeat + 1);
        m_cellLabel += tr(" (repeat %1)").arg(record->repeat + 1);
    }
    const QString path = QDir(m_dir).filePath(QString::fromStdString(record->trace));
    return m_detail->showCell(title, path, config.loader.numWorkers, error);
}

std::vector<QCustomPlot *> ExperimentsView::plots() const
{
    return {m_heatmap,
            m_lines->endToEndPlot(),
            m_lines->stepPlot(),
            m_lines->scalingPlot(),
            m_detail->waitPlot(),
            m_detail->timelinePlot()};
}

bool ExperimentsView::exportPlots(const QString &dir, const QString &format, QString *error)
{
    return exportPlots(dir, format, PlotExportOptions(), error);
}

bool ExperimentsView::exportPlots(const QString &dir, const QString &format,
                                  const PlotExportOptions &options, QString *error)
{
    static const char *const names[] = {"sweep_heatmap",         "sweep_end_to_end",
                                        "sweep_step_per_sample", "sweep_scaling",
                                        "cell_wait_time",        "cell_worker_timeline"};
    const QString sweep = sweepTitle();
    const QString cell = cellTitle();
    QString heatmap = (predictedShown() ? tr("Sweep heatmap: prediction error of %1 across %2")
                                        : tr("Sweep heatmap: %1 across %2"))
                          .arg(m_figureCombo->currentText(), m_xCombo->currentText());
    if (m_yCombo->currentData().toInt() >= 0)
        heatmap += tr(", up %1").arg(m_yCombo->currentText());
    const QString titles[] = {heatmap + QLatin1Char('\n') + sweep,
                              tr("Sweep: end-to-end time") + QLatin1Char('\n') + sweep,
                              tr("Sweep: model step per sample") + QLatin1Char('\n') + sweep,
                              tr("Sweep: speedup and efficiency") + QLatin1Char('\n') + sweep,
                              tr("Selected cell: wait per batch") + QLatin1Char('\n') + cell,
                              tr("Selected cell: worker timeline") + QLatin1Char('\n') + cell};
    const auto all = plots();
    for (std::size_t i = 0; i < all.size(); ++i) {
        QCustomPlot *plot = all[i];
        const bool laidOut = plot->width() >= 200 && plot->height() >= 150;
        const QString path = QDir(dir).filePath(QLatin1String(names[i]) + QLatin1Char('.')
                                                + format);
        const QSize size = laidOut ? QSize() : QSize(kExportWidth, kExportHeight);
        if (!exportPlot(plot, path, options, titles[i], size, error))
            return false;
    }
    return true;
}

QString ExperimentsView::sweepTitle() const
{
    const SweepDefinition &d = m_model->definition();
    if (d.axes.empty())
        return tr("No sweep · %1").arg(plottitle::exportDate());
    QStringList axes;
    std::set<std::string> swept;
    bool datasetSwept = false;
    for (const SweepAxis &axis : d.axes) {
        QStringList values;
        for (const nlohmann::json &v : axis.values)
            values << axisValue(axis.key, v);
        axes << tr("%1 (%2)").arg(axisLabel(axis.key), values.join(QStringLiteral(", ")));
        swept.insert(axis.key);
        datasetSwept = datasetSwept || axis.key.starts_with("dataset");
    }
    const double amount = d.budget.amount;
    const QString budget = d.budget.kind == SweepBudget::Kind::Samples
                               ? tr("%1 samples per cell").arg(amount)
                           : d.budget.kind == SweepBudget::Kind::Batches
                               ? tr("%1 batches per cell").arg(amount)
                               : tr("%1 s per cell").arg(amount);
    QString first = tr("Sweep over %1, %2").arg(axes.join(QStringLiteral(" × ")), budget);
    if (d.repeats > 1)
        first += tr(", %n repeat(s)", nullptr, d.repeats);
    if (!m_dir.isEmpty())
        first += tr(" · folder %1").arg(QFileInfo(m_dir).fileName());
    QString base = plottitle::settings(d.base, swept);
    if (!datasetSwept)
        base = plottitle::dataset(d.base.dataset) + QStringLiteral("; ") + base;
    return first + QLatin1Char('\n') + tr("Base: %1 · %2").arg(base, plottitle::exportDate());
}

QString ExperimentsView::cellTitle() const
{
    if (!m_cellShown)
        return tr("No cell selected · %1").arg(plottitle::exportDate());
    QString first = tr("Cell: %1").arg(m_cellLabel);
    if (!m_dir.isEmpty())
        first += tr(" · folder %1").arg(QFileInfo(m_dir).fileName());
    return first + QLatin1Char('\n')
           + tr("%1; %2 · %3")
                 .arg(plottitle::dataset(m_cellConfig.dataset), plottitle::settings(m_cellConfig),
                      plottitle::exportDate());
}

bool ExperimentsView::exportTableCsv(const QString &path, QString *error)
{
    return m_model->saveCsv(path, error);
}

void ExperimentsView::exportPlotsDialog()
{
    const QString written = exportPlotsWithDialog(
        this, m_dir,
        [this](const QString &dir, const QString &format, const PlotExportOptions &options,
               QString *error) { return exportPlots(dir, format, options, error); });
    if (!written.isEmpty())
        m_progressLabel->setText(written);
}

void ExperimentsView::exportTableDialog()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export table"), QDir(m_dir).filePath(QStringLiteral("cells.csv")),
        tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportTableCsv(path, &error))
        QMessageBox::warning(this, tr("Export table"), error);
    else
        m_progressLabel->setText(tr("Wrote %1").arg(QDir::toNativeSeparators(path)));
}

} // namespace loaderlab
