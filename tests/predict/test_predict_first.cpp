// `sweep --predict-first` (core/predict/predict_first.h): the rule that picks the
// cells to run, on predicted and measured times whose answer is worked out by hand;
// the sweeps it refuses; and a real sweep of LoaderLab's engine on a synthetic
// dataset with a 10 ms step, where the cells with 4 or 8 times as many batches are
// skipped and recorded so, the recommendation is the measured best, and running it
// again runs nothing.

#include "core/predict/predict_first.h"
#include "core/sweep/sweep_analysis.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <cmath>
#include <filesystem>

using namespace loaderlab;

namespace {

PredictFirstCell cell(const std::string &group, double predicted)
{
    PredictFirstCell c;
    c.group = group;
    c.predictedSeconds = predicted;
    return c;
}

std::vector<std::size_t> skippedCells(const PredictFirstSelection &s)
{
    std::vector<std::size_t> out;
    for (const PredictFirstSkip &skip : s.skips())
        out.push_back(skip.cell);
    return out;
}

// Synthetic 1x8x8 samples (next to free to load) and a 10 ms step per batch, 512
// samples a cell: batch 8 is 64 steps, batch 32 16 steps, batch 64 8 steps.
SweepDefinition stepBoundSweep()
{
    SweepDefinition d;
    d.base.dataset.kind = DatasetKind::Synthetic;
    d.base.dataset.syntheticShape = {1, 8, 8};
    d.base.consumer.kind = ConsumerKind::Sleep;
    d.base.consumer.sleepPerBatchMs = 10.0;
    d.axes = {parseSweepAxis("loader.num_workers=0,1"),
              parseSweepAxis("loader.batch_size=8,32,64")};
    d.budget = {SweepBudget::Kind::Samples, 512};
    return d;
}

} // namespace

class TestPredictFirst : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void skipsCellsPredictedSlowerThanTheMeasuredBest();
    void anUnderPredictionWidensTheError();
    void overPredictedCellsLeaveTheMeasuredBest();
    void unpredictedCellsAndNewGroupsRun();
    void refusesWhatTheModelCannotPredict();
    void calibratesFromTheCellNearestTheBase();
    void realSweepSkipsTheSlowCells();
    void aCellThatCannotRunIsNotPredicted();
};

void TestPredictFirst::skipsCellsPredictedSlowerThanTheMeasuredBest()
{
    // Predicted 1.0, 1.1, 1.2, 2.0 s; the first measured as predicted.
    PredictFirstSelection s({cell("", 1.0), cell("", 1.1), cell("", 1.2), cell("", 2.0)}, 0.15);
    s.setMeasured(0, 1.0);
    QCOMPARE(s.error(), 0.15);
    // 1.1 / 1.15 = 0.957 s could beat 1.0 s; 1.2 / 1.15 = 1.043 s could not.
    QVERIFY(s.couldBeBest(1));
    QVERIFY(!s.couldBeBest(2));
    QCOMPARE(s.next(), std::optional<std::size_t>(1));
    s.setMeasured(1, 1.05); // slower than predicted: no doubt about the others
    QCOMPARE(s.error(), 0.15);
    QCOMPARE(s.next(), std::nullopt);
    QCOMPARE(skippedCells(s), (std::vector<std::size_t>{2, 3}));
    const PredictFirstSkip skip = s.skips().front();
    QCOMPARE(skip.best, std::size_t{0});
    QCOMPARE(skip.bestSeconds, 1.0);
    QCOMPARE(skip.predictedSeconds, 1.2);
    // A larger margin keeps the third cell.
    PredictFirstSelection wide({cell("", 1.0), cell("", 1.1), cell("", 1.2)}, 0.25);
    wide.setMeasured(0, 1.0);
    QVERIFY(wide.couldBeBest(2)); // 1.2 / 1.25 = 0.96
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, PredictFirstSelection({}, -0.1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, PredictFirstSelection({}, NAN));
}

void TestPredictFirst::anUnderPredictionWidensTheError()
{
    // Two groups (two steps, say): the error is the model's, shared by both.
    PredictFirstSelection s({cell("a", 1.0), cell("a", 1.3), cell("b", 2.0), cell("b", 5.0)}, 0.15);
    s.setMeasured(0, 1.0);
    QVERIFY(!s.couldBeBest(1)); // 1.3 / 1.15 = 1.13 > 1.0
    // Group b has no measured cell: its predicted best runs next.
    QCOMPARE(s.next(), std::optional<std::size_t>(2));
    s.setMeasured(2, 1.4); // predicted 2.0: the model under-predicted its rate by 43 %
    QVERIFY(std::abs(s.error() - (2.0 / 1.4 - 1.0)) < 1e-12);
    QVERIFY(s.couldBeBest(1));  // 1.3 / 1.43 = 0.91 <= 1.0: group a's second cell runs
    QVERIFY(!s.couldBeBest(3)); // 5.0 / 1.43 = 3.5 > 1.4
    QCOMPARE(s.next(), std::optional<std::size_t>(1));
    s.setMeasured(1, 1.2);
    QCOMPARE(s.next(), std::nullopt);
    QCOMPARE(skippedCells(s), (std::vector<std::size_t>{3}));
    QCOMPARE(s.best("a"), std::optional<std::size_t>(0));
    QCOMPARE(s.best("b"), std::optional<std::size_t>(2));
}

void TestPredictFirst::overPredictedCellsLeaveTheMeasuredBest()
{
    // More workers than cores: the model says 4 workers (cell 0) are the fastest, but
    // they run slower than 2 (cell 1, the calibrated one); 0 workers (cell 2) is slow.
    PredictFirstSelection s({cell("", 0.5), cell("", 0.8), cell("", 1.6)}, 0.15);
    s.setMeasured(1, 0.82);
    QCOMPARE(s.next(), std::optional<std::size_t>(0));
    s.setMeasured(0, 1.2); // over-predicted: it does not raise the error
    QCOMPARE(s.error(), 0.15);
    QCOMPARE(s.best(""), std::optional<std::size_t>(1));
    QCOMPARE(s.next(), std::nullopt);
    QCOMPARE(s.skips().size(), std::size_t{1});
    QCOMPARE(s.skips().front().cell, std::size_t{2});
    QCOMPARE(s.skips().front().best, std::size_t{1});
}

void TestPredictFirst::unpredictedCellsAndNewGroupsRun()
{
    // Cell 2 the model could not predict: it runs, after the predicted ones; a failed
    // cell is no yardstick.
    PredictFirstSelection s({cell("", 1.0), cell("", 1.05), cell("", -1.0), cell("", 9.0)}, 0.15);
    s.setFailed(0);
    QCOMPARE(s.best(""), std::nullopt);
    QVERIFY(s.couldBeBest(3)); // nothing measured yet
    QCOMPARE(s.next(), std::optional<std::size_t>(1));
    s.setMeasured(1, 1.0);
    QCOMPARE(s.next(), std::optional<std::size_t>(2));
    s.setMeasured(2, 3.0);
    QCOMPARE(s.next(), std::nullopt);
    QCOMPARE(skippedCells(s), (std::vector<std::size_t>{3}));
}

void TestPredictFirst::refusesWhatTheModelCannotPredict()
{
    SweepDefinition d = stepBoundSweep();
    QCOMPARE(predictFirstProblem(d, {}), std::string());
    d.axes.push_back(parseSweepAxis("dataset.kind=synthetic,tensor"));
    const std::string why = predictFirstProblem(d, {});
    QVERIFY2(why.find("axis dataset.kind") != std::string::npos, why.c_str());
    d = stepBoundSweep();
    QVERIFY(predictFirstProblem(d, {1, 2}).find("shard") != std::string::npos);
    d.budget = {SweepBudget::Kind::Seconds, 2};
    QVERIFY(predictFirstProblem(d, {}).find("seconds") != std::string::npos);
}

void TestPredictFirst::calibratesFromTheCellNearestTheBase()
{
    SweepDefinition d;
    d.base.loader.numWorkers = 2;
    d.base.loader.batchSize = 32;
    d.base.consumer.sleepPerBatchMs = 10;
    d.axes = {parseSweepAxis("loader.num_workers=0,1,2,3,4"),
              parseSweepAxis("loader.batch_size=16,64"),
              parseSweepAxis("consumer.sleep_per_batch_ms=0,20")};
    const auto order = predictFirstCalibrationOrder(d);
    QCOMPARE(order.size(), std::size_t{20});
    // 2 workers (the base's); batch 16 and 64 both 0.5 from 32 (|v - b| / max), 16
    // first; a 20 ms step 0.5 from 10 ms, no step 1; 3 workers 1/3 from 2.
    QCOMPARE(sweepGridValues(d, order[0]), (std::vector<nlohmann::json>{2, 16, 20.0}));
    QCOMPARE(sweepGridValues(d, order[1]), (std::vector<nlohmann::json>{2, 64, 20.0}));
    QCOMPARE(sweepGridValues(d, order[2]), (std::vector<nlohmann::json>{3, 16, 20.0}));
}

void TestPredictFirst::realSweepSkipsTheSlowCells()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const SweepDefinition d = stepBoundSweep();
    std::vector<PredictFirstProgress::Event> events;
    std::vector<std::int64_t> ran;
    std::int64_t calibrated = -1;
    PredictFirstOutcome outcome;
    {
        SweepRunner runner(d, dir.path().toStdString(), {});
        outcome = runPredictFirst(runner, {}, {}, [&](const PredictFirstProgress &p) {
            events.push_back(p.event);
            if (p.event == PredictFirstProgress::Event::Ended)
                ran.push_back(p.cell->order);
            if (p.calibration && p.event == PredictFirstProgress::Event::Ended) {
                calibrated = p.cell->order;
                QVERIFY2(p.note.find("calibrated from this cell") != std::string::npos,
                         p.note.c_str());
            }
        });
    }
    // 1 worker, batch 32 (the base: 2 workers, batch 32) is run first and calibrates.
    QCOMPARE(calibrated, std::int64_t{4});
    QCOMPARE(outcome.calibrationOrder, std::int64_t{4});
    QCOMPARE(ran.front(), std::int64_t{4});
    QCOMPARE(events.front(), PredictFirstProgress::Event::Starting);
    QVERIFY(!outcome.stopped);
    QCOMPARE(outcome.ran + outcome.skipped, 6);

    SweepDefinition read;
    const auto records = readSweepRecords(dir.path().toStdString(), &read);
    QCOMPARE(records.size(), std::size_t{6});
    double bestMeasured = 0.0;
    std::int64_t best = -1;
    for (const auto &[order, r] : records) {
        QVERIFY2(r.predictedFigure("wall_seconds") > 0.0, r.state.c_str());
        const int batch = r.values[1].get<int>();
        if (batch == 8) // 64 steps against 8: skipped, whatever the error
            QCOMPARE(r.state, std::string("skipped"));
        if (r.skipped()) {
            QVERIFY(r.summary.is_null());
            QVERIFY(r.trace.empty());
            QVERIFY(std::find(ran.begin(), ran.end(), order) == ran.end());
            continue;
        }
        QCOMPARE(r.state, std::string("finished"));
        if (best < 0 || r.endToEndSeconds() < bestMeasured) {
            best = order;
            bestMeasured = r.endToEndSeconds();
        }
    }
    QVERIFY(outcome.skipped >= 2);
    QCOMPARE(records.at(best).values[1], nlohmann::json(64));
    // The recommendation is the best of the cells that ran; skipped ones are listed
    // with their predictions and recommend nothing.
    const SweepAnalysis analysis = analyzeSweep(read, records);
    QCOMPARE(analysis.recommendations.size(), std::size_t{1});
    QCOMPARE(analysis.recommendations.front().best->grid, best);
    QCOMPARE(analysis.skipped.size(), static_cast<std::size_t>(outcome.skipped));
    QCOMPARE(analysis.cells.size() + analysis.skipped.size(), std::size_t{6});
    // The calibrated cell's run is kept whole, so a resume calibrates from it.
    QVERIFY(std::filesystem::is_regular_file(
        dir.filePath(QStringLiteral("traces/cell-000004.json")).toStdString()));

    // Again on the same folder: the same choice, from the folder; nothing runs.
    SweepRunner again(d, dir.path().toStdString(), {});
    const PredictFirstOutcome second = runPredictFirst(again, {}, {});
    QCOMPARE(second.ran, 0);
    QCOMPARE(second.calibrationOrder, std::int64_t{4});
    QCOMPARE(second.found, outcome.ran);
    QCOMPARE(second.skipped, outcome.skipped);
    QCOMPARE(readSweepRecords(dir.path().toStdString()).size(), std::size_t{6});
}

void TestPredictFirst::aCellThatCannotRunIsNotPredicted()
{
    // The step-bound sweep with a 64 MiB memory budget: a batch of 1,000,000 1x8x8
    // samples (244 MiB) cannot run. The model, which would predict its one step as
    // the fastest cell, gives it no prediction (`loaderlab run` refuses it): it runs
    // last and fails with the run's own reason, and the recommendation is batch 32.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    SweepDefinition d = stepBoundSweep();
    d.base.memoryBudgetMb = 64;
    d.axes = {parseSweepAxis("loader.batch_size=32,1000000")};
    std::vector<std::int64_t> ran;
    {
        SweepRunner runner(d, dir.path().toStdString(), {});
        const PredictFirstOutcome outcome = runPredictFirst(
            runner, {}, {}, [&](const PredictFirstProgress &p) {
                if (p.event == PredictFirstProgress::Event::Starting) {
                    ran.push_back(p.cell->order);
                    if (p.cell->order == 1)
                        QCOMPARE(p.predictedSeconds, -1.0);
                }
            });
        QCOMPARE(outcome.calibrationOrder, std::int64_t{0});
        QCOMPARE(outcome.failed, 1);
    }
    QCOMPARE(ran, (std::vector<std::int64_t>{0, 1}));
    SweepDefinition read;
    const auto records = readSweepRecords(dir.path().toStdString(), &read);
    QCOMPARE(records.size(), std::size_t{2});
    QCOMPARE(records.at(0).state, std::string("finished"));
    const SweepRecord &over = records.at(1);
    QCOMPARE(over.state, std::string("failed"));
    QVERIFY2(over.error.find("over the memory budget") != std::string::npos, over.error.c_str());
    QVERIFY(over.predicted.is_null());
    const SweepAnalysis analysis = analyzeSweep(read, records);
    QCOMPARE(analysis.recommendations.size(), std::size_t{1});
    QCOMPARE(analysis.recommendations.front().best->grid, std::int64_t{0});
}

LOADERLAB_GUILESS_TEST_MAIN(TestPredictFirst)
#include "test_predict_first.moc"
