// ExperimentsView's set-up side: the layout, starting, stopping and resuming a sweep and
// its progress. The results side (table, plots, cell, exports) is in
// experiments_view_results.cpp.

#include "widgets/experiments/experiments_view.h"

#include "widgets/common/form_helpers.h"
#include "widgets/common/wheel_guard.h"
#include "widgets/experiments/max_batch_panel.h"
#include "widgets/experiments/sweep_axes_editor.h"
#include "widgets/experiments/sweep_cell_detail.h"
#include "widgets/experiments/sweep_cells_model.h"
#include "widgets/experiments/sweep_heatmap.h"
#include "widgets/experiments/sweep_line_plots.h"
#include "widgets/experiments/sweep_text.h"
#include "widgets/experiments/sweep_worker.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace loaderlab {

namespace {

QString durationText(double seconds)
{
    const auto s = static_cast<long long>(std::llround(seconds));
    return QStringLiteral("%1:%2:%3")
        .arg(s / 3600)
        .arg(s / 60 % 60, 2, 10, QLatin1Char('0'))
        .arg(s % 60, 2, 10, QLatin1Char('0'));
}

} // namespace

ExperimentsView::ExperimentsView(QWidget *parent)
    : QWidget(parent)
    , m_worker(new SweepWorker(this))
    , m_model(new SweepCellsModel(this))
{
    m_model->setObjectName(QStringLiteral("sweepCellsModel"));
    auto *split = new QSplitter(Qt::Horizontal);
    split->addWidget(buildSetup());
    split->addWidget(buildResults());
    split->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    connect(m_worker, &SweepWorker::cellStarted, this, &ExperimentsView::onCellStarted);
    connect(m_worker, &SweepWorker::cellEnded, this, &ExperimentsView::onCellEnded);
    connect(m_worker, &SweepWorker::finished, this, &ExperimentsView::onFinished);
    connect(m_model, &SweepCellsModel::analysisChanged, this, &ExperimentsView::refreshResults);
    updateButtons();
    WheelGuard::install(this);
}

// The worker is a child: its destructor stops the sweep and joins the thread.
ExperimentsView::~ExperimentsView() = default;

QWidget *ExperimentsView::buildSetup()
{
    using formhelpers::named;
    m_editor = new SweepAxesEditor;
    m_editor->setObjectName(QStringLiteral("sweepAxesEditor"));
    auto *sweepGroup = new QGroupBox(tr("Sweep"));
    auto *sweepLayout = new QVBoxLayout(sweepGroup);
    sweepLayout->addWidget(m_editor);

    m_folderEdit = named(new QLineEdit, "resultsFolderEdit",
                         tr("Where the results go; a folder of the same sweep is resumed, one of "
                            "another sweep is refused. Empty: a new folder under %1.")
                             .arg(QDir::toNativeSeparators(
                                 QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                                 + QStringLiteral("/sweeps"))));
    m_folderEdit->setPlaceholderText(tr("new folder (default)"));
    auto *browse = named(new QToolButton, "resultsFolderBrowse", tr("Choose the results folder."));
    browse->setText(tr("Browse…"));
    connect(browse, &QToolButton::clicked, this, &ExperimentsView::browseFolder);

    m_startButton = named(new QPushButton(tr("Start")), "sweepStartButton",
                          tr("Runs every cell one after another with the side panel's settings "
                             "and the values checked above."));
    m_stopButton = named(new QPushButton(tr("Stop")), "sweepStopButton",
                         tr("Stops the running cell at once; it is not recorded, and Resume runs "
                            "it again."));
    m_resumeButton = named(new QPushButton(tr("Resume…")), "sweepResumeButton",
                           tr("Opens a results folder, shows its sweep and runs the cells it "
                              "lacks."));
    connect(m_startButton, &QPushButton::clicked, this, [this] { start(); });
    connect(m_stopButton, &QPushButton::clicked, this, &ExperimentsView::stop);
    connect(m_resumeButton, &QPushButton::clicked, this, &ExperimentsView::resumeDialog);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_startButton);
    buttons->addWidget(m_stopButton);
    buttons->addWidget(m_resumeButton);

    m_progressBar = named(new QProgressBar, "sweepProgressBar", {});
    m_progressBar->setRange(0, 1);
    m_progressBar->setValue(0);
    m_progressLabel = named(new QLabel(tr("No sweep yet.")), "sweepProgress", {});
    m_progressLabel->setWordWrap(true);
    m_errorLabel = named(new QLabel, "sweepError", {});
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setStyleSheet(QStringLiteral("color: #b00000"));
    m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_errorLabel->hide();

    auto *runGroup = new QGroupBox(tr("Results folder"));
    auto *runLayout = new QVBoxLayout(runGroup);
    runLayout->addWidget(formhelpers::row(m_folderEdit, browse));
    runLayout->addLayout(buttons);
    runLayout->addWidget(m_progressBar);
    runLayout->addWidget(m_progressLabel);
    runLayout->addWidget(m_errorLabel);

    m_maxBatch = new MaxBatchPanel;
    m_maxBatch->setObjectName(QStringLiteral("maxBatchPanel"));
    auto *column = new QWidget;
    auto *layout = new QVBoxLayout(column);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(sweepGroup, 1);
    layout->addWidget(runGroup);
    layout->addWidget(m_maxBatch);
    auto *scroll = new QScrollArea;
    scroll->setWidget(column);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // As wide as the column needs (longer in German), so no button is cut off.
    scroll->setMinimumWidth(std::max(260, column->minimumSizeHint().width()
                                              + scroll->verticalScrollBar()->sizeHint().width()
                                              + 2 * scroll->frameWidth()));
    return scroll;
}

void ExperimentsView::setConfigSource(std::function<RunConfig()> source)
{
    m_source = source;
    m_maxBatch->setConfigSource(std::move(source));
}

QString ExperimentsView::defaultResultsDir()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
           + QStringLiteral("/sweeps/sweep-")
           + QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
}

void ExperimentsView::setResultsFolder(const QString &dir)
{
    m_folderEdit->setText(dir);
}

bool ExperimentsView::running() const
{
    return m_worker->running();
}

bool ExperimentsView::start(QString *error)
{
    SweepDefinition definition;
    definition.axes = m_editor->axes();
    definition.budget = m_editor->budget();
    definition.repeats = m_editor->repeats();
    QString reason;
    if (definition.axes.empty())
        reason = tr("Check at least one value of an axis.");
    try {
        definition.base = m_source ? m_source() : RunConfig{};
        expandSweep(definition); // every value checked before anything runs
    } catch (const std::exception &e) {
        reason = QString::fromStdString(e.what());
    }
    const QString typed = m_folderEdit->text().trimmed();
    if (reason.isEmpty() && run(definition, typed.isEmpty() ? defaultResultsDir() : typed, &reason))
        return true;
    showError(reason);
    if (error)
        *error = reason;
    return false;
}

bool ExperimentsView::resume(const QString &dir, QString *error)
{
    SweepDefinition definition;
    QString reason;
    try {
        readSweepRecords(dir.toStdString(), &definition);
    } catch (const std::exception &e) {
        reason = QString::fromStdString(e.what());
    }
    if (reason.isEmpty() && run(definition, dir, &reason)) {
        m_editor->setDefinition(definition);
        m_folderEdit->setText(dir);
        return true;
    }
    showError(reason);
    if (error)
        *error = reason;
    return false;
}

bool ExperimentsView::run(const SweepDefinition &definition, const QString &dir, QString *error)
{
    if (!m_worker->start(definition, dir, error))
        return false;
    m_dir = dir;
    m_stopping = false;
    m_cellShown = false;
    m_errorLabel->hide();
    forgetPrediction(); // of the sweep shown before
    m_model->setSweep(definition, m_worker->recordsAtStart());
    fillAxisCombos();
    refreshResults();
    m_detail->clear();
    const auto total = static_cast<int>(sweepCellCount(definition));
    const auto found = static_cast<int>(m_worker->recordsAtStart().size());
    m_progressBar->setRange(0, total);
    m_progressBar->setValue(found);
    m_progressLabel->setText(tr("Starting: %1 of %2 cells found done in %3")
                                 .arg(found)
                                 .arg(total)
                                 .arg(QDir::toNativeSeparators(dir)));
    updateButtons();
    return true;
}

void ExperimentsView::stop()
{
    if (!running())
        return;
    m_stopping = true;
    m_worker->stop();
    m_progressLabel->setText(tr("Stopping…"));
    updateButtons();
}

void ExperimentsView::onCellStarted(std::int64_t order, int done, int total, double eta)
{
    const SweepDefinition &d = m_model->definition();
    const std::int64_t gridSize = sweepCellCount(d) / std::max(d.repeats, 1);
    const std::int64_t grid = order % std::max<std::int64_t>(gridSize, 1);
    m_model->setRunningGrid(grid);
    QStringList values;
    for (std::size_t a = 0; a < d.axes.size(); ++a)
        values << sweeptext::value(d.axes[a].key, m_model->values(static_cast<int>(grid))[a]);
    if (d.repeats > 1)
        values << tr("repeat %1").arg(order / gridSize + 1);
    m_progressBar->setRange(0, total);
    m_progressBar->setValue(done);
    m_progressLabel->setText(tr("Cell %1 of %2: %3 — ETA %4")
                                 .arg(done + 1)
                                 .arg(total)
                                 .arg(values.join(QStringLiteral(", ")),
                                      eta > 0 ? durationText(eta) : tr("after the first cell")));
}

void ExperimentsView::onCellEnded(const SweepRecord &record, int done, int total, double)
{
    m_progressBar->setRange(0, total);
    m_progressBar->setValue(done);
    m_model->addRecord(record);
}

void ExperimentsView::onFinished(const SweepOutcome &outcome, const QString &error)
{
    m_model->setRunningGrid(-1);
    const QString summary = tr("ran %n cell(s)", nullptr, outcome.ran)
                            + tr(" (%n failed)", nullptr, outcome.failed)
                            + tr(", %n found done", nullptr, outcome.skipped);
    m_progressLabel->setText(
        (outcome.stopped ? tr("Stopped: %1. Results in %2") : tr("Done: %1. Results in %2"))
            .arg(summary, QDir::toNativeSeparators(m_dir)));
    if (!error.isEmpty())
        showError(error);
    m_stopping = false;
    updateButtons();
    // The recommended cell's batches are ready in the lower half's second tab.
    const auto &recs = m_model->analysis().recommendations;
    if (!m_cellShown && !recs.empty() && recs.front().best)
        loadCell(recs.front().best->grid, false, nullptr);
    Q_EMIT finished(outcome);
}

void ExperimentsView::updateButtons()
{
    const bool busy = running();
    m_startButton->setEnabled(!busy);
    m_resumeButton->setEnabled(!busy);
    m_stopButton->setEnabled(busy && !m_stopping);
    m_editor->setEnabled(!busy);
    m_folderEdit->setEnabled(!busy);
}

void ExperimentsView::showError(const QString &message)
{
    m_errorLabel->setText(message);
    m_errorLabel->setVisible(!message.isEmpty());
}

QString ExperimentsView::errorText() const
{
    return m_errorLabel->isHidden() ? QString() : m_errorLabel->text();
}

void ExperimentsView::browseFolder()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Results folder"),
                                                          m_folderEdit->text());
    if (!dir.isEmpty())
        m_folderEdit->setText(dir);
}

void ExperimentsView::resumeDialog()
{
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("Resume a sweep: its results folder"),
        m_dir.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                        : m_dir);
    if (!dir.isEmpty())
        resume(dir);
}

} // namespace loaderlab
