#include "widgets/experiments/sweep_cells_model.h"

#include "core/config/config_fields.h"
#include "core/sweep/sweep_figures.h"
#include "core/system/atomic_file.h"
#include "widgets/common/marker_text.h"
#include "widgets/experiments/sweep_text.h"

#include <QColor>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace loaderlab {

namespace {

std::string axisValueText(const std::string &key, const nlohmann::json &value)
{
    const ConfigField *field = findConfigField(key);
    return field ? configValueText(*field, value) : value.dump();
}

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csvField(const std::string &text)
{
    if (text.find_first_of(",\"\n\r") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

std::string number(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

// The table figure a column shows; nullptr for the columns that are not one.
const SweepFigure *figureOfColumn(int column)
{
    switch (column) {
    case SweepCellsModel::Throughput:
        return &sweepFigure(SweepFigureId::SamplesPerSecond);
    case SweepCellsModel::EndToEnd:
        return &sweepFigure(SweepFigureId::EndToEnd);
    case SweepCellsModel::InputBound:
        return &sweepFigure(SweepFigureId::InputBoundShare);
    case SweepCellsModel::WaitP95:
        return &sweepFigure(SweepFigureId::WaitP95);
    case SweepCellsModel::FirstBatch:
        return &sweepFigure(SweepFigureId::FirstBatch);
    default:
        return nullptr;
    }
}

} // namespace

SweepCellsModel::SweepCellsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void SweepCellsModel::setSweep(const SweepDefinition &definition,
                               const std::map<std::int64_t, SweepRecord> &records)
{
    beginResetModel();
    m_definition = definition;
    m_values.clear();
    const std::vector<SweepCell> cells = expandSweep(definition);
    for (const SweepCell &cell : cells) {
        if (cell.repeat == 0)
            m_values.push_back(cell.values);
    }
    m_records = records;
    m_runningGrid = -1;
    m_prediction.reset();
    analyse();
    endResetModel();
    Q_EMIT analysisChanged();
}

void SweepCellsModel::addRecord(const SweepRecord &record)
{
    m_records[record.order] = record;
    analyse();
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
    Q_EMIT analysisChanged();
}

void SweepCellsModel::setPrediction(std::shared_ptr<const SweepPrediction> prediction)
{
    // Columns inserted or removed, not a reset: the table keeps its selected row.
    const int first = axisCount() + 1 + Throughput + 1;
    const int last = first + kPredictedColumns - 1;
    if (!m_prediction && prediction) {
        beginInsertColumns({}, first, last);
        m_prediction = std::move(prediction);
        endInsertColumns();
    } else if (m_prediction && !prediction) {
        beginRemoveColumns({}, first, last);
        m_prediction.reset();
        endRemoveColumns();
    } else if (prediction) {
        m_prediction = std::move(prediction);
        if (rowCount() > 0)
            Q_EMIT dataChanged(index(0, first), index(rowCount() - 1, last));
    }
}

const SweepCellPrediction *SweepCellsModel::predictionOf(int row) const
{
    if (!m_prediction || row < 0)
        return nullptr;
    const auto &cells = m_prediction->cells;
    const auto r = static_cast<std::size_t>(row);
    if (r < cells.size() && cells[r].grid == row)
        return &cells[r];
    for (const SweepCellPrediction &c : cells) {
        if (c.grid == row)
            return &c;
    }
    return nullptr;
}

std::pair<SweepCellsModel::ColumnKind, int> SweepCellsModel::columnAt(int column) const
{
    const int axes = axisCount();
    if (column < axes)
        return {ColumnKind::Axis, column};
    if (column == axes)
        return {ColumnKind::State, 0};
    const int k = column - axes - 1;
    if (!m_prediction || k <= Throughput)
        return {ColumnKind::Figure, k};
    if (k <= kPredictedColumns)
        return {ColumnKind::Predicted, k - 1};
    return {ColumnKind::Figure, k - kPredictedColumns};
}

void SweepCellsModel::setRunningGrid(std::int64_t grid)
{
    m_runningGrid = grid;
    const int state = axisCount();
    Q_EMIT dataChanged(index(0, state), index(rowCount() - 1, state));
}

void SweepCellsModel::analyse()
{
    m_analysis = analyzeSweep(m_definition, m_records);
    m_statsOfGrid.clear();
    for (std::size_t i = 0; i < m_analysis.cells.size(); ++i)
        m_statsOfGrid[m_analysis.cells[i].grid] = i;
    m_skipped.clear();
    for (const auto &[order, record] : m_records) {
        if (record.state == "skipped" && !stats(record.grid))
            m_skipped.push_back(record.grid);
    }
    std::sort(m_skipped.begin(), m_skipped.end());
    m_skipped.erase(std::unique(m_skipped.begin(), m_skipped.end()), m_skipped.end());
}

const SweepCellStats *SweepCellsModel::stats(std::int64_t grid) const
{
    const auto it = m_statsOfGrid.find(grid);
    return it == m_statsOfGrid.end() ? nullptr : &m_analysis.cells[it->second];
}

const std::vector<nlohmann::json> &SweepCellsModel::values(int row) const
{
    return m_values.at(static_cast<std::size_t>(row));
}

const SweepRecord *SweepCellsModel::traceRecord(std::int64_t grid) const
{
    const SweepRecord *newest = nullptr;
    for (const auto &[order, record] : m_records) {
        if (record.grid == grid && !record.failed() && !record.trace.empty())
            newest = &record;
    }
    return newest;
}

QString SweepCellsModel::skippedToolTip(int row) const
{
    QString text = tr("Not run: sweep --predict-first predicted it slower than a measured cell.");
    // What that sweep predicted for it (its own calibration, not the Predicted view's).
    for (const auto &[order, record] : m_records) {
        if (record.grid == row && record.state == "skipped"
            && record.predictedFigure("samples_per_sec_mean") > 0.0)
            return text + QLatin1Char(' ')
                   + tr("Predicted then: %1 samples/s.")
                         .arg(QString::number(record.predictedFigure("samples_per_sec_mean"), 'f',
                                              1));
    }
    return text;
}

bool SweepCellsModel::isSkipped(int row) const
{
    return std::binary_search(m_skipped.begin(), m_skipped.end(), std::int64_t{row});
}

int SweepCellsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_values.size());
}

int SweepCellsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid()
               ? 0
               : axisCount() + 1 + kFigureColumns + (m_prediction ? kPredictedColumns : 0);
}

QString SweepCellsModel::stateText(int row) const
{
    const SweepCellStats *c = stats(row);
    if (!c && row != m_runningGrid) {
        const auto skipped = skippedGrids();
        return std::find(skipped.begin(), skipped.end(), row) != skipped.end() ? tr("skipped")
                                                                               : tr("not run");
    }
    if (!c)
        return tr("running");
    if (c->runs == 0)
        return tr("failed");
    if (c->failures > 0)
        return tr("done, %n failed", nullptr, c->failures);
    return row == m_runningGrid ? tr("running") : tr("done");
}

QVariant SweepCellsModel::figure(const SweepCellStats &c, int column) const
{
    if (column == Error)
        return c.failures > 0 ? QVariant(QString::fromStdString(c.error)) : QVariant();
    if (column == Runs)
        return c.runs;
    if (c.runs == 0 || (column == Spread && c.runs < 2))
        return {};
    if (column == Spread)
        return c.spread();
    const SweepFigure *f = figureOfColumn(column);
    return f ? QVariant(c.figure(f->id)) : QVariant();
}

QVariant SweepCellsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    const int row = index.row();
    const auto [kind, column] = columnAt(index.column());
    if (kind == ColumnKind::Axis) {
        const nlohmann::json &value = values(row)[static_cast<std::size_t>(column)];
        if (role == NumberRole)
            return value.is_number() ? QVariant(value.get<double>()) : QVariant();
        if (role == Qt::DisplayRole)
            return QString::fromStdString(
                axisValueText(m_definition.axes[static_cast<std::size_t>(column)].key, value));
        return {};
    }
    if (kind == ColumnKind::State) {
        if (role == Qt::DisplayRole)
            return stateText(row);
        if (role == Qt::ToolTipRole && isSkipped(row))
            return skippedToolTip(row);
        if (role == Qt::ForegroundRole && stats(row) && stats(row)->failures > 0)
            return QColor(180, 0, 0);
        return {};
    }
    if (kind == ColumnKind::Predicted)
        return predicted(row, column, role);
    const int f = column;
    const SweepCellStats *c = stats(row);
    const QVariant value = c ? figure(*c, f) : QVariant();
    if (role == NumberRole || (role == Qt::ToolTipRole && f == Error))
        return value;
    if (role == Qt::TextAlignmentRole && f != Error)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole || !value.isValid() || f == Error || f == Runs)
        return role == Qt::DisplayRole ? value : QVariant();
    const double v = value.toDouble();
    if (const SweepFigure *figure = figureOfColumn(f))
        return sweeptext::figureValue(*figure, v, figure->decimals.table);
    if (f == Spread)
        return tr("%1 %").arg(QString::number(v * 100.0, 'f', 1));
    return QString::number(v, 'f', 2);
}

QVariant SweepCellsModel::predicted(int row, int column, int role) const
{
    const SweepCellPrediction *p = predictionOf(row);
    if (!p)
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (column == PredictedThroughput) {
        if (role == NumberRole)
            return p->predicted ? QVariant(p->prediction.samplesPerSecond) : QVariant();
        const SweepFigure &throughput = sweepFigure(SweepFigureId::SamplesPerSecond);
        if (role == Qt::DisplayRole)
            return p->predicted ? sweeptext::figureValue(throughput, p->prediction.samplesPerSecond,
                                                         throughput.decimals.table)
                                : tr("not predicted");
        if (role == Qt::ToolTipRole && !p->predicted)
            return QString::fromStdString(p->problem);
        if (role == Qt::ForegroundRole && !p->predicted)
            return QColor(110, 110, 110);
        return {};
    }
    const double e = p->error();
    if (std::isnan(e))
        return role == Qt::ToolTipRole && p->predicted && p->measuredRuns == 0
                   ? QVariant(tr("Not measured: the prediction alone."))
                   : QVariant();
    if (role == NumberRole)
        return e;
    if (role == Qt::DisplayRole)
        return tr("%1 %").arg(QString::asprintf("%+.1f", e * 100.0));
    return {};
}

QVariant SweepCellsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0)
        return QAbstractTableModel::headerData(section, orientation, role);
    const int axes = axisCount();
    if (section < axes) {
        const std::string &key = m_definition.axes[static_cast<std::size_t>(section)].key;
        const ConfigField *field = findConfigField(key);
        if (role == Qt::DisplayRole)
            return field ? markertext::fieldLabel(*field) : QString::fromStdString(key);
        if (role == Qt::ToolTipRole)
            return QString::fromStdString(key);
        return {};
    }
    const auto [kind, column] = columnAt(section);
    if (kind == ColumnKind::Predicted && role == Qt::ToolTipRole)
        return column == PredictedThroughput
                   ? tr("Samples/s the loader model predicts, calibrated from one measured cell.")
                   : tr("(predicted - measured) / measured samples/s.");
    if (role != Qt::DisplayRole)
        return {};
    if (kind == ColumnKind::State)
        return tr("State");
    if (kind == ColumnKind::Predicted)
        return column == PredictedThroughput ? tr("Predicted samples/s") : tr("Prediction error");
    if (const SweepFigure *figure = figureOfColumn(column))
        return sweeptext::figureHeading(*figure);
    switch (column) {
    case Runs:
        return tr("Runs");
    case Spread:
        return tr("Spread");
    case Error:
        return tr("Error");
    default:
        return {};
    }
}

bool SweepCellsModel::saveCsv(const QString &path, QString *error) const
{
    try {
        writeFileAtomically(path.toStdString(), [this](std::ostream &out) {
            // The figures of the table by name, in its order; the end-to-end time's
            // minimum and maximum over the repeats follow its mean. `write(figure,
            // extreme)` writes one column: the mean (extreme 0), the minimum (-1) or the
            // maximum (1).
            const auto figureColumns = [](const auto &write) {
                for (const SweepFigure &f : sweepFigures()) {
                    write(f, 0);
                    if (f.id == SweepFigureId::EndToEnd) {
                        write(f, -1);
                        write(f, 1);
                    }
                }
            };
            for (const SweepAxis &axis : m_definition.axes)
                out << csvField(axis.key) << ',';
            out << "state,runs,failures";
            figureColumns([&out](const SweepFigure &f, int extreme) {
                out << ','
                    << (extreme < 0   ? "end_to_end_min_s"
                        : extreme > 0 ? "end_to_end_max_s"
                                      : std::string(f.name));
            });
            out << ",error";
            // With a prediction shown: its samples/s and error (empty where there is none).
            if (m_prediction)
                out << ",predicted_samples_per_sec,prediction_error";
            out << '\n';
            for (int row = 0; row < rowCount(); ++row) {
                for (std::size_t a = 0; a < m_definition.axes.size(); ++a)
                    out << csvField(axisValueText(m_definition.axes[a].key, values(row)[a])) << ',';
                const SweepCellStats *c = stats(row);
                if (!c) {
                    out << "not-run,0,0";
                    figureColumns([&out](const SweepFigure &, int) { out << ','; });
                    out << ',';
                } else {
                    out << (c->runs > 0 ? "done" : "failed") << ',' << c->runs << ','
                        << c->failures;
                    figureColumns([&out, c](const SweepFigure &f, int extreme) {
                        out << ',';
                        if (c->runs > 0)
                            out << number(extreme < 0   ? c->endToEndMin
                                          : extreme > 0 ? c->endToEndMax
                                                        : c->figure(f.id));
                    });
                    out << ',' << csvField(c->error);
                }
                if (m_prediction) {
                    const SweepCellPrediction *p = predictionOf(row);
                    out << ',';
                    if (p && p->predicted)
                        out << number(p->prediction.samplesPerSecond);
                    out << ',';
                    if (p && !std::isnan(p->error()))
                        out << number(p->error());
                }
                out << '\n';
            }
        });
        return true;
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
}

} // namespace loaderlab
