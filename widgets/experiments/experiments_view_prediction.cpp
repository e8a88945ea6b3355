// ExperimentsView's Predicted view: the loader model calibrated from one measured cell
// of the sweep shown, every cell predicted, the error per measured cell on the heatmap
// and in the table.

#include "widgets/experiments/experiments_view.h"

#include "core/predict/sweep_prediction_error.h"
#include "core/sweep/sweep_figures.h"
#include "widgets/common/background_task.h"
#include "widgets/common/form_helpers.h"
#include "widgets/experiments/sweep_cells_model.h"
#include "widgets/experiments/sweep_heatmap.h"
#include "widgets/experiments/sweep_text.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableView>
#include <QToolButton>

#include <cmath>
#include <memory>

namespace loaderlab {

QWidget *ExperimentsView::buildPrediction(QHBoxLayout *toggleRow)
{
    using formhelpers::named;
    m_predictedToggle = named(
        new QToolButton, "sweepPredictedToggle",
        tr("The loader model beside the measurement: calibrated from one measured cell, "
           "it predicts every cell; the heatmap shows each measured cell's prediction "
           "error, the table the predicted samples/s."));
    m_predictedToggle->setText(tr("Predicted"));
    m_predictedToggle->setCheckable(true);
    toggleRow->addWidget(m_predictedToggle, 0, Qt::AlignTop);
    connect(m_predictedToggle, &QToolButton::toggled, this, &ExperimentsView::onPredictedToggled);

    m_calibrationCell = named(new QComboBox, "predictionCalibrationCell",
                              tr("The measured cell the model is calibrated from (its trace)."));
    // As wide as its longest cell when there is room, elided when not: a long cell name
    // never widens the window.
    m_calibrationCell->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_calibrationCell->setMinimumWidth(80);
    connect(m_calibrationCell, &QComboBox::currentIndexChanged, this,
            &ExperimentsView::requestPrediction);
    m_predictionSummary = named(new QLabel, "sweepPredictionSummary", {});
    m_predictionSummary->setWordWrap(true);
    m_predictionSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_predictTask = new BackgroundTask(this);

    m_predictionRow = new QWidget;
    auto *row = new QHBoxLayout(m_predictionRow);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(new QLabel(tr("Calibrated from:")), 0, Qt::AlignTop);
    row->addWidget(m_calibrationCell, 0, Qt::AlignTop);
    row->addWidget(m_predictionSummary, 1);
    m_predictionRow->hide();
    connect(m_model, &SweepCellsModel::analysisChanged, this, &ExperimentsView::onRecordsChanged);
    return m_predictionRow;
}

bool ExperimentsView::predictedShown() const
{
    return m_predictedToggle->isChecked() && m_model->prediction();
}

void ExperimentsView::onPredictedToggled(bool on)
{
    m_predictionRow->setVisible(on);
    if (!on) {
        m_predictTask->cancel();
        m_predictPending = false;
        m_model->setPrediction(nullptr);
        refreshHeatmap();
        return;
    }
    fillCalibrationCells();
    requestPrediction();
}

void ExperimentsView::forgetPrediction()
{
    m_predictTask->cancel();
    m_predictPending = false;
    const QSignalBlocker blocker(m_calibrationCell);
    m_calibrationCell->clear();
}

void ExperimentsView::onRecordsChanged()
{
    if (!m_predictedToggle->isChecked())
        return;
    fillCalibrationCells();
    const SweepPrediction *shown = m_model->prediction();
    // Calibrated from the chosen cell already: only the measured side is new.
    if (shown && shown->calibrationOrder == m_calibrationCell->currentData().toLongLong()
        && !m_predictTask->running()) {
        auto updated = std::make_shared<SweepPrediction>(*shown);
        remeasureSweepPrediction(*updated, m_model->records());
        m_model->setPrediction(std::move(updated));
        refreshHeatmap();
        return;
    }
    requestPrediction();
}

void ExperimentsView::fillCalibrationCells()
{
    const SweepDefinition &d = m_model->definition();
    const qlonglong chosen = m_calibrationCell->count() > 0
                                 ? m_calibrationCell->currentData().toLongLong()
                                 : defaultCalibrationOrder(m_model->records());
    const QSignalBlocker blocker(m_calibrationCell);
    m_calibrationCell->clear();
    for (const auto &[order, record] : m_model->records()) {
        if (record.state != "finished" || record.trace.empty())
            continue;
        QStringList values;
        for (std::size_t a = 0; a < d.axes.size() && a < record.values.size(); ++a)
            values << sweeptext::value(d.axes[a].key, record.values[a]);
        QString text = values.join(QStringLiteral(", "));
        if (d.repeats > 1)
            text += tr(" (repeat %1)").arg(record.repeat + 1);
        m_calibrationCell->addItem(text, static_cast<qlonglong>(order));
    }
    formhelpers::selectData(m_calibrationCell, chosen);
}

void ExperimentsView::requestPrediction()
{
    if (!m_predictedToggle->isChecked())
        return;
    if (m_predictTask->running()) {
        m_predictPending = true; // once it ends, for the records and choice as they are then
        return;
    }
    m_predictPending = false;
    if (m_calibrationCell->count() == 0) {
        m_model->setPrediction(nullptr);
        refreshHeatmap();
        m_predictionSummary->setStyleSheet(QString());
        m_predictionSummary->setText(tr("No measured cell has kept a trace yet: the model is "
                                        "calibrated from one."));
        return;
    }
    if (!m_model->prediction())
        m_predictionSummary->setText(tr("Predicting…"));
    const std::string dir = m_dir.toStdString();
    const SweepDefinition definition = m_model->definition();
    const auto records = m_model->records();
    const std::int64_t order = m_calibrationCell->currentData().toLongLong();
    m_predictTask->start(
        [dir, definition, records, order](BackgroundTask::Control &) {
            return std::make_shared<const SweepPrediction>(
                predictRecordedSweep(dir, definition, records, order));
        },
        [this](std::shared_ptr<const SweepPrediction> prediction) {
            auto current = std::make_shared<SweepPrediction>(*prediction);
            // Cells that ended while the model ran.
            remeasureSweepPrediction(*current, m_model->records());
            m_model->setPrediction(std::move(current));
            if (m_model->rowCount() <= 1000)
                m_table->resizeColumnsToContents();
            refreshHeatmap();
            if (m_predictPending)
                requestPrediction();
        },
        [this](const QString &error) {
            m_model->setPrediction(nullptr);
            refreshHeatmap();
            m_predictionSummary->setStyleSheet(QStringLiteral("color: #b00000"));
            m_predictionSummary->setText(tr("The model could not be calibrated: %1").arg(error));
            if (m_predictPending)
                requestPrediction();
        });
}

void ExperimentsView::showPredictionSummary()
{
    const SweepPrediction *p = m_model->prediction();
    if (!p)
        return;
    const std::string figure = m_figureCombo->currentData().toString().toStdString();
    const int compared = p->measuredAndPredicted();
    int unpredicted = 0;
    for (const SweepCellPrediction &c : p->cells)
        unpredicted += c.predicted ? 0 : 1;
    QString text = compared > 0
                       ? tr("Median error of the predicted %1: %2 % over %n measured cell(s).",
                            nullptr, compared)
                             .arg(sweeptext::figureLabel(sweepFigure(figure)),
                                  QString::number(p->medianAbsoluteError(figure) * 100.0, 'f', 1))
                       : tr("No cell measured to compare with.");
    if (unpredicted > 0)
        text += QLatin1Char(' ')
                + tr("%n cell(s) not predicted: an axis the model cannot predict differs.", nullptr,
                     unpredicted);
    text += QLatin1Char(' ')
            + tr("Assumed: %n core(s) (this machine's), processor sharing, no memory-bandwidth, "
                 "cache or network model.",
                 nullptr, p->cores);
    m_predictionSummary->setStyleSheet(QString());
    m_predictionSummary->setText(text);
}

} // namespace loaderlab
