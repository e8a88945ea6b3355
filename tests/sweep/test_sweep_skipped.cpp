// Cells that `sweep --predict-first` skipped (state "skipped", with the figures the
// model predicted): how their records are read (strictly, as every record), that the
// analysis neither recommends nor counts them as failures, that a later run of the
// cell replaces its record, and that resuming a sweep leaves them alone unless asked
// to run them (--run-skipped), --retry-failed included.

#include "core/sweep/sweep_analysis.h"
#include "core/sweep/sweep_runner.h"
#include "tests/support/test_main.h"

#include <QtTest>

using namespace loaderlab;
using nlohmann::json;

namespace {

// Two tiny real cells: synthetic 1x8x8 samples, 4 batches each, no step.
SweepDefinition tinySweep()
{
    SweepDefinition d;
    d.base.dataset.kind = DatasetKind::Synthetic;
    d.base.dataset.syntheticShape = {1, 8, 8};
    d.axes = {parseSweepAxis("loader.batch_size=4,8")};
    d.budget = {SweepBudget::Kind::Batches, 4};
    return d;
}

json figures(double wall, double rate)
{
    return {{"wall_seconds", wall},
            {"samples_per_sec_mean", rate},
            {"first_batch_latency_ms", 3.0},
            {"input_bound_share", 0.25},
            {"wait_ms", {{"p95", 1.5}}}};
}

SweepRecord recordOf(const SweepCell &cell, const std::string &state)
{
    SweepRecord r;
    r.order = cell.order;
    r.grid = cell.grid;
    r.repeat = cell.repeat;
    r.values = cell.values;
    r.state = state;
    if (state == "finished")
        r.summary = figures(1.0, 100.0);
    if (state == "failed")
        r.error = "does not fit";
    if (state == "skipped")
        r.predicted = figures(2.0, 50.0);
    return r;
}

QString skippedRefusal(const json &j)
{
    try {
        sweepRecordFromJson(j);
    } catch (const std::invalid_argument &e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestSweepSkipped : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void skippedRecordsAreReadStrictly();
    void analysisLeavesSkippedCellsOut();
    void aRunReplacesASkippedRecord();
    void resumeRunsSkippedCellsOnlyWhenAsked();
};

void TestSweepSkipped::skippedRecordsAreReadStrictly()
{
    const auto cells = expandSweep(tinySweep());
    const SweepRecord skipped = recordOf(cells[0], "skipped");
    const SweepRecord back = sweepRecordFromJson(toJson(skipped));
    QVERIFY(back.skipped() && !back.failed() && !back.finished());
    QCOMPARE(back.predicted, skipped.predicted);
    QCOMPARE(back.predictedFigure("wall_seconds"), 2.0);
    QCOMPARE(back.predictedFigure("wait_p95_ms"), 1.5);
    QCOMPARE(back.endToEndSeconds(), 0.0); // nothing measured
    // A measured cell keeps its prediction beside its summary.
    SweepRecord finished = recordOf(cells[1], "finished");
    finished.predicted = figures(0.9, 110.0);
    QCOMPARE(sweepRecordFromJson(toJson(finished)).predicted, finished.predicted);
    QVERIFY(!toJson(recordOf(cells[1], "finished")).contains("predicted"));

    json j = toJson(skipped);
    j.erase("predicted");
    QVERIFY(skippedRefusal(j).startsWith(QStringLiteral("predicted:")));
    j = toJson(skipped);
    j["summary"] = figures(1.0, 1.0);
    QVERIFY(skippedRefusal(j).startsWith(QStringLiteral("summary: a skipped cell")));
    j = toJson(skipped);
    j["trace"] = sweepTraceName(0);
    QVERIFY(skippedRefusal(j).startsWith(QStringLiteral("trace: a skipped cell")));
    j = toJson(skipped);
    j["predicted"] = "fast";
    QVERIFY(skippedRefusal(j).startsWith(QStringLiteral("predicted: expected an object")));
    j = toJson(skipped);
    j["predicted"]["wall_seconds"] = -1;
    QVERIFY(skippedRefusal(j).startsWith(QStringLiteral("predicted.wall_seconds")));
    j = toJson(skipped);
    j["predicted"]["wait_ms"]["p95"] = "x";
    QVERIFY(skippedRefusal(j).startsWith(QStringLiteral("predicted.wait_ms.p95")));
    j = toJson(skipped);
    j["state"] = "predicted";
    QVERIFY(skippedRefusal(j).contains(QStringLiteral("\"skipped\"")));
}

void TestSweepSkipped::analysisLeavesSkippedCellsOut()
{
    SweepDefinition d = tinySweep();
    d.repeats = 2;
    const auto cells = expandSweep(d); // orders 0, 1 (repeat 0), 2, 3 (repeat 1)
    std::map<std::int64_t, SweepRecord> records;
    records[0] = recordOf(cells[0], "finished");
    records[2] = recordOf(cells[2], "finished");
    records[1] = recordOf(cells[1], "skipped");
    records[3] = recordOf(cells[3], "skipped");
    const SweepAnalysis a = analyzeSweep(d, records);
    QCOMPARE(a.cells.size(), std::size_t{1});
    QCOMPARE(a.cells.front().runs, 2);
    QCOMPARE(a.cells.front().failures, 0);
    QCOMPARE(a.recommendations.size(), std::size_t{1});
    QCOMPARE(a.recommendations.front().best->grid, std::int64_t{0});
    QVERIFY(a.recommendations.front().runnerUp == nullptr);
    QCOMPARE(a.skipped.size(), std::size_t{1});
    QCOMPARE(a.skipped.front().grid, std::int64_t{1});
    QCOMPARE(a.skipped.front().runs, 0);
    QCOMPARE(a.skipped.front().endToEndMean, 2.0);
    QCOMPARE(a.skipped.front().throughputMean, 50.0);
    // Once one of its repeats ran, the combination is a result, not a skipped one.
    records[1] = recordOf(cells[1], "finished");
    const SweepAnalysis after = analyzeSweep(d, records);
    QVERIFY(after.skipped.empty());
    QCOMPARE(after.cells.size(), std::size_t{2});
}

void TestSweepSkipped::aRunReplacesASkippedRecord()
{
    QTemporaryDir dir;
    const SweepDefinition d = tinySweep();
    const auto cells = expandSweep(d);
    {
        SweepResults results(dir.path().toStdString(), d);
        results.append(recordOf(cells[0], "skipped"));
        results.append(recordOf(cells[0], "finished"));
        results.append(recordOf(cells[1], "finished"));
        results.append(recordOf(cells[1], "skipped")); // never over a measured cell
    }
    const auto records = readSweepRecords(dir.path().toStdString());
    QCOMPARE(records.at(0).state, std::string("finished"));
    QCOMPARE(records.at(1).state, std::string("finished"));
}

void TestSweepSkipped::resumeRunsSkippedCellsOnlyWhenAsked()
{
    QTemporaryDir dir;
    const SweepDefinition d = tinySweep();
    const auto cells = expandSweep(d);
    {
        SweepResults results(dir.path().toStdString(), d);
        results.append(recordOf(cells[0], "skipped"));
    }
    for (const bool retryFailed : {false, true}) {
        SweepRunner::Options options;
        options.retryFailed = retryFailed;
        SweepRunner runner(d, dir.path().toStdString(), options);
        const SweepOutcome outcome = runner.run({});
        QCOMPARE(outcome.ran, retryFailed ? 0 : 1); // the first run ran cell 1
        QCOMPARE(outcome.leftSkipped, 1);
        QCOMPARE(runner.results().records().at(0).state, std::string("skipped"));
    }
    SweepRunner::Options options;
    options.runSkipped = true;
    SweepRunner runner(d, dir.path().toStdString(), options);
    const SweepOutcome outcome = runner.run({});
    QCOMPARE(outcome.ran, 1);
    QCOMPARE(outcome.leftSkipped, 0);
    QCOMPARE(runner.results().records().at(0).state, std::string("finished"));
    QVERIFY(runner.results().records().at(0).predicted.is_null());
}

LOADERLAB_GUILESS_TEST_MAIN(TestSweepSkipped)
#include "test_sweep_skipped.moc"
