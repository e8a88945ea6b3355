// The figure table (core/sweep/sweep_figures.h): every figure is found by its name with
// its label, unit and direction; the sweep's analysis and the prediction error read
// every figure from the same place of a record and give it under the same name; and
// an unknown name is refused everywhere with a message that lists the known ones,
// never read as 0.

#include "core/predict/sweep_prediction_error.h"
#include "core/sweep/sweep_analysis.h"
#include "core/sweep/sweep_figures.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <functional>
#include <set>
#include <string>

using namespace loaderlab;
using nlohmann::json;

namespace {

// What each figure is, written out here independently of the table.
struct Expected
{
    std::string name;
    std::string label;
    std::string unit;
    bool higherIsBetter;
    bool share;
};

const std::vector<Expected> kExpected = {
    {"end_to_end_s", "End-to-end time (s)", "s", false, false},
    {"samples_per_sec", "Throughput (samples/s)", "samples/s", true, false},
    {"first_batch_ms", "First-batch latency (ms)", "ms", false, false},
    {"input_bound_share", "Input-bound share", "", false, true},
    {"wait_p95_ms", "Wait p95 (ms)", "ms", false, false},
};

// A run's summary as a record holds it, each figure a different number (k apart).
json summaryOf(double k)
{
    return {{"wall_seconds", 1.0 + k},
            {"samples_per_sec_mean", 100.0 + k},
            {"first_batch_latency_ms", 20.0 + k},
            {"input_bound_share", 0.25 + k / 100},
            {"wait_ms", {{"p95", 3.0 + k}}}};
}

// The figure of summaryOf(k) by name, as the summary's keys say it.
double expectedFigure(const std::string &name, double k)
{
    const json s = summaryOf(k);
    if (name == "end_to_end_s")
        return s["wall_seconds"].get<double>();
    if (name == "samples_per_sec")
        return s["samples_per_sec_mean"].get<double>();
    if (name == "first_batch_ms")
        return s["first_batch_latency_ms"].get<double>();
    if (name == "input_bound_share")
        return s["input_bound_share"].get<double>();
    return s["wait_ms"]["p95"].get<double>();
}

// A 3-cell sweep: cell 0 measured twice, cell 1 once, cell 2 skipped with a prediction.
SweepDefinition threeCells()
{
    SweepDefinition d;
    d.axes = {parseSweepAxis("loader.num_workers=1,2,4")};
    d.repeats = 2;
    return d;
}

std::map<std::int64_t, SweepRecord> recordsOf(const SweepDefinition &d)
{
    const std::vector<SweepCell> cells = expandSweep(d);
    std::map<std::int64_t, SweepRecord> records;
    for (const SweepCell &cell : cells) {
        if (cell.grid == 1 && cell.repeat == 1)
            continue;
        SweepRecord r = sweepRecordOf(cell, cell.grid == 2 ? "skipped" : "finished");
        const double k = static_cast<double>(cell.grid * 10 + cell.repeat);
        if (r.skipped())
            r.predicted = summaryOf(k);
        else
            r.summary = summaryOf(k);
        records[r.order] = r;
    }
    return records;
}

// The message of the std::invalid_argument `call` throws; empty when it throws none.
QString refusal(const std::function<void()> &call)
{
    try {
        call();
    } catch (const std::invalid_argument &e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestSweepFigures : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyFigureIsFoundByName();
    void terminalTextFollowsTheTable();
    void analysisAndPredictionErrorAgree();
    void anUnknownNameIsRefusedEverywhere();
};

void TestSweepFigures::everyFigureIsFoundByName()
{
    QCOMPARE(sweepFigures().size(), kExpected.size());
    std::set<std::string_view> names;
    for (std::size_t i = 0; i < kExpected.size(); ++i) {
        const Expected &e = kExpected[i];
        const SweepFigure *found = findSweepFigure(e.name);
        QVERIFY2(found, e.name.c_str());
        QCOMPARE(found, &sweepFigure(e.name));
        QCOMPARE(found, &sweepFigures()[i]); // in the table's order
        QCOMPARE(&sweepFigure(found->id), found);
        QCOMPARE(std::string(found->name), e.name);
        QCOMPARE(std::string(found->label), e.label);
        QCOMPARE(std::string(found->unit), e.unit);
        QCOMPARE(found->higherIsBetter, e.higherIsBetter);
        QCOMPARE(found->share, e.share);
        QVERIFY(std::string_view(found->heading).size() > 0);
        QVERIFY(!found->column.empty());
        QVERIFY(!found->summaryKey.empty());
        QVERIFY(names.insert(found->name).second);
    }
    QCOMPARE(sweepFigureNames(),
             std::string("end_to_end_s, samples_per_sec, first_batch_ms, input_bound_share, "
                         "wait_p95_ms"));
}

void TestSweepFigures::terminalTextFollowsTheTable()
{
    // `loaderlab sweep`'s table, as it printed before the table existed.
    QCOMPARE(sweepFigureText(sweepFigure("end_to_end_s"), 1.23456), std::string("1.235"));
    QCOMPARE(sweepFigureText(sweepFigure("samples_per_sec"), 1520.26), std::string("1520.3"));
    QCOMPARE(sweepFigureText(sweepFigure("first_batch_ms"), 12.34), std::string("12.3"));
    QCOMPARE(sweepFigureText(sweepFigure("input_bound_share"), 0.123), std::string("12 %"));
    QCOMPARE(sweepFigureText(sweepFigure("wait_p95_ms"), 3.14159), std::string("3.14"));
}

void TestSweepFigures::analysisAndPredictionErrorAgree()
{
    const SweepDefinition d = threeCells();
    const auto records = recordsOf(d);
    const SweepAnalysis analysis = analyzeSweep(d, records);
    QCOMPARE(analysis.cells.size(), std::size_t{2});
    QCOMPARE(analysis.skipped.size(), std::size_t{1});

    // The prediction error's measured side, from the same records.
    SweepPrediction prediction;
    for (std::int64_t grid = 0; grid < 3; ++grid) {
        SweepCellPrediction &c = prediction.cells.emplace_back();
        c.grid = grid;
        c.values = sweepGridValues(d, grid);
    }
    remeasureSweepPrediction(prediction, records);

    for (const Expected &e : kExpected) {
        const SweepFigureId id = sweepFigure(e.name).id;
        // Cell 0: the mean of repeats k = 0 and k = 1; cell 1: its one repeat, k = 10.
        const double cell0 = (expectedFigure(e.name, 0) + expectedFigure(e.name, 1)) / 2;
        const double cell1 = expectedFigure(e.name, 10);
        QCOMPARE(analysis.cells[0].figure(e.name), cell0);
        QCOMPARE(analysis.cells[1].figure(e.name), cell1);
        QCOMPARE(analysis.cells[0].figure(id), cell0);
        QCOMPARE(prediction.cells[0].measured.figure(e.name), cell0);
        QCOMPARE(prediction.cells[1].measured.figure(e.name), cell1);
        QCOMPARE(prediction.cells[1].measured.figure(id), cell1);
        // The skipped cell: what the model predicted for it, under the same name.
        QCOMPARE(analysis.skipped[0].figure(e.name), expectedFigure(e.name, 20));
        QCOMPARE(prediction.cells[2].measuredRuns, 0);
        // A prediction equal to the measurement: every figure's error is 0.
        SweepCellPrediction same = prediction.cells[1];
        same.predicted = true;
        same.prediction = same.measured;
        QCOMPARE(same.error(e.name), 0.0);
    }
}

void TestSweepFigures::anUnknownNameIsRefusedEverywhere()
{
    const SweepDefinition d = threeCells();
    const auto records = recordsOf(d);
    const SweepAnalysis analysis = analyzeSweep(d, records);
    SweepCellPrediction cell;
    cell.predicted = true;
    cell.measuredRuns = 1;
    cell.measured.samplesPerSecond = cell.prediction.samplesPerSecond = 100.0;
    SweepPrediction prediction;
    prediction.cells.push_back(cell);

    QVERIFY(!findSweepFigure("throughput"));
    const std::vector<std::pair<const char *, std::function<void()>>> calls = {
        {"sweepFigure", [] { sweepFigure("throughput"); }},
        {"SweepCellStats::figure", [&] { analysis.cells[0].figure("throughput"); }},
        {"SweepCellFigures::figure", [&] { cell.measured.figure("throughput"); }},
        {"SweepCellPrediction::error", [&] { cell.error("throughput"); }},
        {"SweepPrediction::medianAbsoluteError",
         [&] { prediction.medianAbsoluteError("throughput"); }},
        {"medianAbsoluteError without cells",
         [] { SweepPrediction{}.medianAbsoluteError("throughput"); }},
    };
    for (const auto &[what, call] : calls) {
        const QString message = refusal(call);
        QVERIFY2(message.startsWith(QStringLiteral("unknown figure 'throughput'")),
                 qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(what), message)));
        for (const Expected &e : kExpected)
            QVERIFY2(message.contains(QString::fromStdString(e.name)),
                     qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(what), message)));
    }
    // Names are exact: no case folding, no prefixes.
    QVERIFY(!findSweepFigure("Samples_per_sec"));
    QVERIFY(!findSweepFigure("samples_per_sec_mean"));
    QVERIFY(!findSweepFigure(""));
}

LOADERLAB_GUILESS_TEST_MAIN(TestSweepFigures)
#include "test_sweep_figures.moc"
