#pragma once

// SweepCellsModel: the Experiments view's table, one row per combination of axis
// values (a cell of the grid, over its repeats): the values, its state (not run yet,
// running, done, failed), the finished runs and the figures analyzeSweep() gives it,
// or the error. It holds the sweep's records and its analysis, so the heatmap, the line
// plots and the recommendation read the same numbers as the table. With a prediction of
// the sweep (core/predict/sweep_prediction_error.h) two columns follow the measured samples/s:
// the predicted samples/s and the error of the prediction against the measurement.

#include "core/predict/sweep_prediction_error.h"
#include "core/sweep/sweep_analysis.h"

#include <QAbstractTableModel>

#include <map>
#include <memory>
#include <vector>

namespace loaderlab {

class SweepCellsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    // The figure columns, after one column per axis and the state: the ones a choice
    // is made on first, so they show in a narrow window. The figures of core's table
    // (core/sweep/sweep_figures.h) take their heading and decimals from it, and so do
    // the CSV's columns (the figures' names, in the table's order).
    enum Figure { Throughput, EndToEnd, InputBound, WaitP95, FirstBatch, Spread, Runs, Error };
    static constexpr int kFigureColumns = Error + 1;
    // The prediction's columns, right after the measured Throughput when it is shown.
    enum PredictedColumn { PredictedThroughput, PredictionError };
    static constexpr int kPredictedColumns = PredictionError + 1;
    // Data of this role is the plain number (sorting) or empty when there is none.
    static constexpr int NumberRole = Qt::UserRole + 1;

    explicit SweepCellsModel(QObject *parent = nullptr);

    // A new sweep, with the records its folder already holds.
    void setSweep(const loaderlab::SweepDefinition &definition,
                  const std::map<std::int64_t, loaderlab::SweepRecord> &records);
    void addRecord(const loaderlab::SweepRecord &record);
    // Shows `prediction` beside the measured figures (nullptr: none); it must be of
    // this sweep (one cell per grid cell).
    void setPrediction(std::shared_ptr<const loaderlab::SweepPrediction> prediction);
    const loaderlab::SweepPrediction *prediction() const { return m_prediction.get(); }
    // The grid cell whose run is going on; -1 for none.
    void setRunningGrid(std::int64_t grid);

    const loaderlab::SweepDefinition &definition() const { return m_definition; }
    const std::map<std::int64_t, loaderlab::SweepRecord> &records() const { return m_records; }
    const loaderlab::SweepAnalysis &analysis() const { return m_analysis; }
    // The cell's figures over its repeats; nullptr when it has no record yet.
    const loaderlab::SweepCellStats *stats(std::int64_t grid) const;
    // The axis values of a row (= grid index).
    const std::vector<nlohmann::json> &values(int row) const;
    // Grid cells with no run, skipped by `sweep --predict-first` (a record of state
    // "skipped"), in grid order.
    const std::vector<std::int64_t> &skippedGrids() const { return m_skipped; }
    // The newest finished record of the cell that kept a trace; nullptr if none.
    const loaderlab::SweepRecord *traceRecord(std::int64_t grid) const;
    int axisCount() const { return static_cast<int>(m_definition.axes.size()); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // Every row with unrounded figures and the axes by key, as CSV, written atomically
    // (core/system/atomic_file.h): a failed write leaves an existing file as it was.
    bool saveCsv(const QString &path, QString *error) const;

Q_SIGNALS:
    // The records (and so the analysis) changed.
    void analysisChanged();

private:
    // What a column shows: an axis (its index), the state, a Figure, or a
    // PredictedColumn.
    enum class ColumnKind { Axis, State, Figure, Predicted };
    std::pair<ColumnKind, int> columnAt(int column) const;
    const loaderlab::SweepCellPrediction *predictionOf(int row) const;
    QVariant predicted(int row, int column, int role) const;
    QString stateText(int row) const;
    bool isSkipped(int row) const;
    QString skippedToolTip(int row) const;
    QVariant figure(const loaderlab::SweepCellStats &stats, int figure) const;
    void analyse();

    loaderlab::SweepDefinition m_definition;
    std::vector<std::vector<nlohmann::json>> m_values; // per grid cell
    std::map<std::int64_t, loaderlab::SweepRecord> m_records;
    loaderlab::SweepAnalysis m_analysis;
    std::map<std::int64_t, std::size_t> m_statsOfGrid; // index into m_analysis.cells
    std::vector<std::int64_t> m_skipped;               // skippedGrids()
    std::int64_t m_runningGrid = -1;
    std::shared_ptr<const loaderlab::SweepPrediction> m_prediction;
};

} // namespace loaderlab
