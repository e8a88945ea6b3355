// Sweeps without running anything: grid expansion and order, sharding, the JSON
// form, the results folder (append, a line cut by a kill, resume, another sweep
// refused) and the analysis on results whose answer is fixed in advance.

#include "core/config/config_fields.h"
#include "core/sweep/slurm_script.h"
#include "core/sweep/sweep.h"
#include "core/sweep/sweep_analysis.h"
#include "core/sweep/sweep_results.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <cmath>
#include <fstream>
#include <set>

using namespace loaderlab;
using nlohmann::json;

namespace {

SweepDefinition workersByBatch(int repeats = 1)
{
    SweepDefinition d;
    d.axes = {parseSweepAxis("loader.num_workers=0,1,2,4"),
              parseSweepAxis("loader.batch_size=32,64,128")};
    d.repeats = repeats;
    return d;
}

// A finished record whose run took `e2e` seconds for 10,240 samples.
SweepRecord finished(const SweepCell &cell, double e2e)
{
    SweepRecord r;
    r.order = cell.order;
    r.grid = cell.grid;
    r.repeat = cell.repeat;
    r.values = cell.values;
    r.state = "finished";
    r.summary = {{"wall_seconds", e2e},
                 {"samples_per_sec_mean", 10'240 / e2e},
                 {"first_batch_latency_ms", 50.0},
                 {"input_bound_share", 0.1},
                 {"wait_ms", {{"p95", 2.0}}}};
    return r;
}

} // namespace

class TestSweep : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void expandsTheGridInRounds();
    void budgetBecomesABatchLimit();
    void badAxesNameTheKey();
    void shardsCoverEveryCellOnce();
    void slurmScriptQuotesAndChecks();
    void slurmVariablesAreParsedStrictly();
    void jsonRoundTrip();
    void resultsResumeAndSurviveACutLine();
    void anotherSweepIsRefusedWithTheReason();
    void recommendationPicksTheKnownBest();
    void marginBeyondTheSpreadIsNotNoise();
    void speedupAndEfficiency();
};

void TestSweep::expandsTheGridInRounds()
{
    const auto cells = expandSweep(workersByBatch(2));
    QCOMPARE(cells.size(), std::size_t{24});
    // Row-major, the last axis fastest; repeat 1 goes round the grid after repeat 0.
    QCOMPARE(cells[0].values, (std::vector<json>{0, 32}));
    QCOMPARE(cells[1].values, (std::vector<json>{0, 64}));
    QCOMPARE(cells[3].values, (std::vector<json>{1, 32}));
    QCOMPARE(cells[11].values, (std::vector<json>{4, 128}));
    QCOMPARE(cells[12].repeat, 1);
    QCOMPARE(cells[12].grid, std::int64_t{0});
    for (std::size_t i = 0; i < cells.size(); ++i) {
        QCOMPARE(cells[i].order, static_cast<std::int64_t>(i));
        QCOMPARE(getConfigField(cells[i].config, "loader.num_workers"), cells[i].values[0]);
        QCOMPARE(getConfigField(cells[i].config, "loader.batch_size"), cells[i].values[1]);
    }
}

void TestSweep::budgetBecomesABatchLimit()
{
    SweepDefinition d = workersByBatch();
    d.base.maxSeconds = 99;
    auto cells = expandSweep(d);
    // 10,240 samples: 320 batches of 32, 80 of 128; epochs unbounded, no time limit.
    QCOMPARE(cells[0].config.maxBatches, std::int64_t{320});
    QCOMPARE(cells[2].config.maxBatches, std::int64_t{80});
    QCOMPARE(cells[0].config.epochs, 0);
    QCOMPARE(cells[0].config.maxSeconds, 0.0);
    d.budget = {SweepBudget::Kind::Samples, 100};
    QCOMPARE(expandSweep(d)[2].config.maxBatches, std::int64_t{1}); // ceil(100 / 128)
    d.budget = {SweepBudget::Kind::Seconds, 2.5};
    cells = expandSweep(d);
    QCOMPARE(cells[0].config.maxSeconds, 2.5);
    QCOMPARE(cells[0].config.maxBatches, std::int64_t{0});
}

void TestSweep::badAxesNameTheKey()
{
    const auto message = [](const std::function<void()> &f) {
        try {
            f();
        } catch (const std::exception &e) {
            return QString::fromStdString(e.what());
        }
        return QString();
    };
    QVERIFY(message([] {
                parseSweepAxis("loader.workers=1,2");
            }).startsWith(QStringLiteral("loader.workers: unknown key")));
    QVERIFY(message([] {
                parseSweepAxis("loader.num_workers=1,-3");
            }).startsWith(QStringLiteral("loader.num_workers:")));
    QVERIFY(
        message([] { parseSweepAxis("loader.num_workers"); }).contains(QStringLiteral("KEY=v1")));
    SweepDefinition d = workersByBatch();
    d.axes.push_back(d.axes[0]);
    QVERIFY(message([&] { expandSweep(d); }).contains(QStringLiteral("two axes")));
    d = workersByBatch();
    d.repeats = 0;
    QVERIFY(message([&] { expandSweep(d); }).startsWith(QStringLiteral("repeats:")));
    QVERIFY(message([] { parseSweepShard("3/2"); }).contains(QStringLiteral("K/N")));
    QVERIFY(message([] { parseSweepShard("0/2"); }).contains(QStringLiteral("K/N")));
}

void TestSweep::shardsCoverEveryCellOnce()
{
    const auto cells = expandSweep(workersByBatch(3)); // 36 cells
    for (int n : {1, 2, 5, 36, 50}) {
        std::multiset<std::int64_t> seen;
        for (int k = 1; k <= n; ++k) {
            const SweepShard shard = parseSweepShard(std::to_string(k) + "/" + std::to_string(n));
            for (const auto &cell : cells) {
                if (shard.contains(cell.order))
                    seen.insert(cell.order);
            }
        }
        QCOMPARE(seen.size(), cells.size());
        QCOMPARE(std::set<std::int64_t>(seen.begin(), seen.end()).size(), cells.size());
    }
    qputenv("SLURM_ARRAY_TASK_ID", "4");
    qputenv("SLURM_ARRAY_TASK_MIN", "3");
    qputenv("SLURM_ARRAY_TASK_COUNT", "2");
    SweepShard shard;
    QVERIFY(sweepShardFromSlurm(shard));
    QCOMPARE(shard.index, 1);
    QCOMPARE(shard.count, 2);
    qunsetenv("SLURM_ARRAY_TASK_ID");
    QVERIFY(!sweepShardFromSlurm(shard));
    qunsetenv("SLURM_ARRAY_TASK_MIN");
    qunsetenv("SLURM_ARRAY_TASK_COUNT");
}

// A count of 2^32 became 0 (a division by zero), 2^31 a negative count, an id "abc"
// shard 0: each is refused naming the variable.
void TestSweep::slurmVariablesAreParsedStrictly()
{
    const struct
    {
        const char *id, *count, *min, *named;
    } bad[] = {{"0", "4294967296", nullptr, "SLURM_ARRAY_TASK_COUNT"},
               {"0", "2147483648", nullptr, "SLURM_ARRAY_TASK_COUNT"},
               {"0", "0", nullptr, "SLURM_ARRAY_TASK_COUNT"},
               {"0", "100001", nullptr, "SLURM_ARRAY_TASK_COUNT"},
               {"0", "-2", nullptr, "SLURM_ARRAY_TASK_COUNT"},
               {"0", "0x10", nullptr, "SLURM_ARRAY_TASK_COUNT"},
               {"abc", "4", nullptr, "SLURM_ARRAY_TASK_ID"},
               {"", "4", nullptr, "SLURM_ARRAY_TASK_ID"},
               {"1 ", "4", nullptr, "SLURM_ARRAY_TASK_ID"},
               {"+1", "4", nullptr, "SLURM_ARRAY_TASK_ID"},
               {"4", "4", nullptr, "SLURM_ARRAY_TASK_ID=4 does not fit"},
               {"99999999999", "4", nullptr, "SLURM_ARRAY_TASK_ID"},
               {"1", "4", "x", "SLURM_ARRAY_TASK_MIN"},
               {"1", "4", "2", "SLURM_ARRAY_TASK_ID=1 does not fit"}};
    for (const auto &b : bad) {
        qputenv("SLURM_ARRAY_TASK_ID", b.id);
        qputenv("SLURM_ARRAY_TASK_COUNT", b.count);
        if (b.min)
            qputenv("SLURM_ARRAY_TASK_MIN", b.min);
        else
            qunsetenv("SLURM_ARRAY_TASK_MIN");
        SweepShard shard;
        try {
            sweepShardFromSlurm(shard);
            QFAIL(qPrintable(QStringLiteral("accepted id '%1', count '%2': shard %3/%4")
                                 .arg(QLatin1String(b.id), QLatin1String(b.count))
                                 .arg(shard.index)
                                 .arg(shard.count)));
        } catch (const std::invalid_argument &e) {
            QVERIFY2(std::string(e.what()).find(b.named) != std::string::npos, e.what());
        }
    }
    qputenv("SLURM_ARRAY_TASK_ID", "99999");
    qputenv("SLURM_ARRAY_TASK_COUNT", "100000");
    qunsetenv("SLURM_ARRAY_TASK_MIN");
    SweepShard shard;
    QVERIFY(sweepShardFromSlurm(shard));
    QCOMPARE(shard.index, 99'999);
    QCOMPARE(shard.count, 100'000);
    qunsetenv("SLURM_ARRAY_TASK_ID");
    qunsetenv("SLURM_ARRAY_TASK_COUNT");
    qunsetenv("SLURM_ARRAY_TASK_MIN");
}

void TestSweep::jsonRoundTrip()
{
    SweepDefinition d = workersByBatch(3);
    d.base.loader.prefetchFactor = 4;
    d.budget = {SweepBudget::Kind::Batches, 50};
    const SweepDefinition back = sweepFromJson(toJson(d));
    QCOMPARE(sweepFingerprint(back), sweepFingerprint(d));
    QCOMPARE(back.base.loader.prefetchFactor, 4);
    json bad = toJson(d);
    bad["axes"][0]["key"] = "loader.nope";
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sweepFromJson(bad));
    bad = toJson(d);
    bad["repeat"] = 2;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sweepFromJson(bad));
}

void TestSweep::resultsResumeAndSurviveACutLine()
{
    QTemporaryDir dir;
    const SweepDefinition d = workersByBatch();
    const auto cells = expandSweep(d);
    {
        SweepResults results(dir.path().toStdString(), d);
        results.append(finished(cells[0], 1.0));
        SweepRecord failed = finished(cells[1], 0);
        failed.state = "failed";
        failed.error = "does not fit";
        failed.summary = nullptr;
        results.append(failed);
    }
    // A kill in the middle of the next append leaves half a line.
    {
        std::ofstream cut(dir.filePath(QStringLiteral("cells.jsonl")).toStdString(), std::ios::app);
        cut << R"({"order":2,"grid":2,"repeat":0,"valu)";
    }
    SweepResults again(dir.path().toStdString(), d);
    QVERIFY(again.finished(0));
    QVERIFY(again.recorded(1) && !again.finished(1));
    QCOMPARE(again.records().at(1).error, std::string("does not fit"));
    QVERIFY(!again.recorded(2));
    again.append(finished(cells[2], 3.0));
    const auto records = readSweepRecords(dir.path().toStdString());
    QCOMPARE(records.size(), std::size_t{3});
    QCOMPARE(records.at(2).endToEndSeconds(), 3.0);
}

void TestSweep::anotherSweepIsRefusedWithTheReason()
{
    QTemporaryDir dir;
    {
        const SweepResults first(dir.path().toStdString(), workersByBatch()); // lets go at its end
    }
    SweepDefinition other = workersByBatch();
    other.axes[1] = parseSweepAxis("loader.batch_size=32,256");
    try {
        SweepResults second(dir.path().toStdString(), other);
        QFAIL("a folder of another sweep was accepted");
    } catch (const std::invalid_argument &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("axis 2 differs")), e.what());
    }
    other = workersByBatch();
    other.base.loader.prefetchFactor = 8;
    QVERIFY(QString::fromStdString(sweepDifference(workersByBatch(), other))
                .contains(QStringLiteral("loader.prefetch_factor")));
}

// A consumer slower than loading: more workers cannot help, a bigger batch can. The
// known best is 1 worker, batch 128; 2 and 4 workers are as fast within noise.
void TestSweep::recommendationPicksTheKnownBest()
{
    const SweepDefinition d = workersByBatch(3);
    std::map<std::int64_t, SweepRecord> records;
    for (const auto &cell : expandSweep(d)) {
        const int workers = cell.values[0].get<int>();
        const int batch = cell.values[1].get<int>();
        double e2e = 10.0 * 32 / batch + (workers == 0 ? 2.0 : 0.0);
        e2e *= 1.0 + 0.01 * cell.repeat; // 2 % spread over the repeats
        if (workers > 1)
            e2e *= 1.0 + 0.005 * (workers == 2 ? 1 : 2); // 0.5 % and 1 %: within noise
        records[cell.order] = finished(cell, e2e);
    }
    const SweepAnalysis a = analyzeSweep(d, records);
    QCOMPARE(a.cells.size(), std::size_t{12});
    QCOMPARE(a.recommendations.size(), std::size_t{1});
    const SweepRecommendation &r = a.recommendations.front();
    QCOMPARE(r.best->values, (std::vector<json>{1, 128}));
    QCOMPARE(r.runnerUp->values, (std::vector<json>{2, 128}));
    QVERIFY(r.noiseKnown);
    QVERIFY(r.withinNoise);
    QVERIFY2(std::abs(r.marginPercent - 0.5) < 1e-6, qPrintable(QString::number(r.marginPercent)));
    QVERIFY2(QString::fromStdString(r.sentence).contains(QStringLiteral("1 worker, batch 128")),
             r.sentence.c_str());
    QVERIFY2(QString::fromStdString(r.sentence)
                 .contains(QStringLiteral("more workers add nothing past 1")),
             r.sentence.c_str());
    QVERIFY2(QString::fromStdString(r.sentence).contains(QStringLiteral("within noise")),
             r.sentence.c_str());
}

void TestSweep::marginBeyondTheSpreadIsNotNoise()
{
    SweepDefinition d;
    d.axes = {parseSweepAxis("loader.num_workers=1,2")};
    d.repeats = 2;
    std::map<std::int64_t, SweepRecord> records;
    for (const auto &cell : expandSweep(d)) {
        const double e2e = (cell.values[0] == 2 ? 1.0 : 1.3) * (cell.repeat ? 1.02 : 1.0);
        records[cell.order] = finished(cell, e2e);
    }
    // A failing repeat is counted apart and does not enter the figures.
    SweepRecord failed = records[0];
    failed.order = 99;
    failed.state = "failed";
    failed.error = "out of memory";
    records[99] = failed;
    const SweepAnalysis a = analyzeSweep(d, records);
    const auto &r = a.recommendations.front();
    QCOMPARE(r.best->values[0], json(2));
    QVERIFY(!r.withinNoise);
    QVERIFY(std::abs(r.marginPercent - 30.0) < 1e-6);
    QCOMPARE(a.cells[0].failures, 1);
    QCOMPARE(a.cells[0].runs, 2);
    QVERIFY(QString::fromStdString(r.sentence)
                .contains(QStringLiteral("more than the repeats' spread")));
}

void TestSweep::speedupAndEfficiency()
{
    SweepDefinition d;
    d.axes = {parseSweepAxis("loader.batch_size=32,64"),
              parseSweepAxis("loader.num_workers=0,1,2,4")};
    std::map<std::int64_t, SweepRecord> records;
    for (const auto &cell : expandSweep(d)) {
        const int w = cell.values[1].get<int>();
        // Throughput 50, 100, 180, 300 samples/s for 0, 1, 2, 4 workers.
        const double throughput = w == 0 ? 50 : w == 1 ? 100 : w == 2 ? 180 : 300;
        records[cell.order] = finished(cell, 10'240.0 / throughput);
    }
    const auto lines = scalingAlong(analyzeSweep(d, records), "loader.num_workers");
    QCOMPARE(lines.size(), std::size_t{2});
    QCOMPARE(lines[0].label, std::string("batch 32"));
    QCOMPARE(lines[0].points.size(), std::size_t{4});
    // Relative to 1 worker: 0 workers (loading on the step's thread) is half as fast
    // and has no efficiency.
    QCOMPARE(lines[0].baseValue, json(1));
    QVERIFY(std::abs(lines[0].points[0].speedup - 0.5) < 1e-9);
    QVERIFY(std::isnan(lines[0].points[0].efficiency));
    QVERIFY(std::abs(lines[0].points[1].speedup - 1.0) < 1e-9);
    QVERIFY(std::abs(lines[0].points[2].speedup - 1.8) < 1e-9);
    QVERIFY(std::abs(lines[0].points[2].efficiency - 0.9) < 1e-9);
    QVERIFY(std::abs(lines[0].points[3].speedup - 3.0) < 1e-9);
    QVERIFY(std::abs(lines[0].points[3].efficiency - 0.75) < 1e-9);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             scalingAlong(analyzeSweep(d, records), "epochs"));
}

void TestSweep::slurmScriptQuotesAndChecks()
{
    SlurmScriptOptions o;
    o.loaderlab = "/opt/it's/loaderlab";
    o.resultsDir = "/shared/my sweep";
    o.scriptPath = "/shared/my sweep.sbatch";
    o.cells = 12;
    o.tasks = defaultSlurmTasks(o.cells);
    QCOMPARE(o.tasks, 8);
    QCOMPARE(defaultSlurmTasks(3), 3);
    o.extra = {"--partition=gpu", "--gres=gpu:1"};
    const std::string script = slurmArrayScript(o);
    QVERIFY(script.starts_with("#!/bin/bash\n"));
    QVERIFY(script.find("#SBATCH --array=0-7\n") != std::string::npos);
    QVERIFY(script.find("#SBATCH --exclusive\n") != std::string::npos);
    QVERIFY(script.find("#SBATCH --output=\"/shared/my sweep/slurm-%A_%a.out\"\n")
            != std::string::npos);
    QVERIFY(script.find("#SBATCH --partition=gpu\n#SBATCH --gres=gpu:1\n") != std::string::npos);
    QVERIFY(script.find("\nexec '/opt/it'\\''s/loaderlab' sweep --out '/shared/my sweep'\n")
            != std::string::npos);
    // No #SBATCH line after the first command: sbatch stops reading them there.
    QVERIFY(script.find("#SBATCH", script.find("\nset -euo")) == std::string::npos);

    const auto refused = [&](SlurmScriptOptions bad, const char *why) {
        try {
            slurmArrayScript(bad);
        } catch (const std::invalid_argument &e) {
            QVERIFY2(std::string(e.what()).find(why) != std::string::npos, e.what());
            return;
        }
        QFAIL(why);
    };
    SlurmScriptOptions bad = o;
    bad.tasks = 13;
    refused(bad, "13 tasks for 12 cells");
    bad = o;
    bad.tasks = 0;
    refused(bad, "at least 1 task");
    bad = o;
    bad.extra = {"--time=10\nrm -rf /"};
    refused(bad, "a line break");
    bad = o;
    bad.extra = {"partition=gpu"};
    refused(bad, "starts with '-'");
    bad = o;
    bad.resultsDir = "relative/dir";
    refused(bad, "absolute path");
    bad = o;
    bad.resultsDir = "/a \"quoted\" dir";
    refused(bad, "double quote");
    // sbatch would expand a '%' of the folder's name in --output ("100%j" -> "100123").
    SlurmScriptOptions percent = o;
    percent.resultsDir = "/shared/100%j done";
    const std::string escaped = slurmArrayScript(percent);
    QVERIFY2(escaped.find("#SBATCH --output=\"/shared/100%%j done/slurm-%A_%a.out\"\n")
                 != std::string::npos,
             escaped.c_str());
    QVERIFY(escaped.find("exec '/opt/it'\\''s/loaderlab' sweep --out '/shared/100%j done'\n")
            != std::string::npos);
    bad = o;
    bad.resultsDir = "/shared/a\\b";
    refused(bad, "backslash");
}

LOADERLAB_GUILESS_TEST_MAIN(TestSweep)
#include "test_sweep.moc"
