// `loaderlab sweep --predict-first` with the real binary: on a step-bound synthetic
// sweep (10 ms a batch; batch 8 takes 8 times as many steps as batch 64) it runs the
// cell nearest the base config and the cells predicted fastest, sweepRecords the slow
// ones as skipped with the figures predicted for them and says why on stderr; the
// table marks them; a plain resume leaves them, --run-skipped runs them, and the full
// sweep then recommends what the predict-first sweep did. What the model cannot
// predict, and options that contradict it, are refused before anything runs. Each
// measured cell sweepRecords the machine's load; stderr says how busy the calibration run
// was and flags each cell whose load differed from it by more than a quarter of a
// core, as its record says (whatever the load was while the test ran); a resume
// calibrated from a kept run recorded busy says so with the known figures.

#include "cli_process.h"
#include "tests/support/sweep_args.h"
#include "tests/support/test_main.h"

#include <QRegularExpression>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <vector>

using clitest::Result;
using clitest::runLoaderlab;

namespace {

constexpr SmallSweep kPredictFirstSweep{
    .sleepBatchMs = 10, .batchSizes = "8,32,64", .budgetOption = "--budget-samples", .budget = 512};

// The latest record of each cell in DIR/cells.jsonl.
std::map<std::int64_t, nlohmann::json> sweepRecords(const QString &dir)
{
    std::map<std::int64_t, nlohmann::json> out;
    std::ifstream in(QDir(dir).filePath(QStringLiteral("cells.jsonl")).toStdString());
    std::string line;
    while (std::getline(in, line)) {
        const auto j = nlohmann::json::parse(line);
        out[j.at("order").get<std::int64_t>()] = j;
    }
    return out;
}

// The latest record of the cell with `workers` and `batch` (an empty one if none).
const nlohmann::json &cellOf(const std::map<std::int64_t, nlohmann::json> &cells, int workers,
                             int batch)
{
    static const nlohmann::json none = nlohmann::json::object();
    for (const auto &[order, j] : cells)
        if (j.at("values") == nlohmann::json::array({workers, batch}))
            return j;
    return none;
}

// Other programs' and the hypervisor's cores in a record's machine_load, as the notes
// count them (predict_first.h), and the count of the machine's cores.
double takenCores(const nlohmann::json &record)
{
    const nlohmann::json &load = record.at("machine_load");
    return std::clamp(load.at("other_busy_cores").get<double>()
                          + load.at("steal_cores").get<double>(),
                      0.0, load.at("cores").get<double>());
}

// Loads in cores as the notes print them.
QString cores1(double cores)
{
    return QString::asprintf("%.1f", cores);
}

// The lines stderr printed under each cell's "[cell K/N] <cell>" line, by cell text.
std::map<QString, QStringList> linesByCell(const QString &err)
{
    static const QRegularExpression start(
        QStringLiteral("^\\[cell \\d+/\\d+\\] (\\d+ workers?, batch \\d+)"));
    std::map<QString, QStringList> out;
    QString cell;
    for (const QString &line : err.split(QLatin1Char('\n'))) {
        if (const auto m = start.match(line); m.hasMatch())
            cell = m.captured(1);
        else if (!cell.isEmpty() && line.startsWith(QStringLiteral("  ")))
            out[cell] << line;
        else
            cell.clear();
    }
    return out;
}

// "1 worker, batch 32": a cell's text from its record.
QString cellText(const nlohmann::json &record)
{
    const int workers = record.at("values").at(0).get<int>();
    return QStringLiteral("%1 worker%2, batch %3")
        .arg(workers)
        .arg(workers == 1 ? QString() : QStringLiteral("s"))
        .arg(record.at("values").at(1).get<int>());
}

// Seconds as the sweep prints them.
QString fixed3(double seconds)
{
    return QString::number(seconds, 'f', 3);
}

// "1 worker, batch 64": the settings the recommendation names.
QString recommended(const QString &out)
{
    const qsizetype at = out.indexOf(QStringLiteral("recommended: "));
    if (at < 0)
        return {};
    const qsizetype start = at + 13;
    return out.mid(start, out.indexOf(QStringLiteral(" ("), start) - start);
}

} // namespace

class TestCliSweepPredictFirst : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void skipsSlowCellsAndRecommendsTheMeasuredBest();
    void saysHowBusyTheMachineWas();
    void aResumeSaysHowBusyTheKeptRunWas();
    void refusesWhatItCannotPredict();
    void namesTheStragglersOfTheRanksItSweeps();

private:
    QTemporaryDir m_dir;
};

void TestCliSweepPredictFirst::skipsSlowCellsAndRecommendsTheMeasuredBest()
{
    const QString out = m_dir.filePath(QStringLiteral("pf"));
    Result r = runLoaderlab(sweepArgs(out, kPredictFirstSweep)
                            << QStringLiteral("--predict-first"));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // The base has 2 workers and batch 32: 1 worker, batch 32 is run first.
    QVERIFY2(r.err.startsWith(QStringLiteral("[cell 1/6] 1 worker, batch 32: calibrates the "
                                             "loader model")),
             qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("the model is calibrated from this cell")),
             qPrintable(r.err));
    // One rank in every cell: no stragglers to speak of.
    QVERIFY2(!r.out.contains(QStringLiteral("stragglers:")), qPrintable(r.out));
    QVERIFY2(r.err.contains(QStringLiteral("0 workers, batch 8: predicted ")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("1 worker, batch 8: predicted ")), qPrintable(r.err));

    const auto cells = sweepRecords(out);
    // Each skipped cell's line: its prediction (as recorded), divided by 1 + the model's
    // error (at least the default margin of 15 %; more where the cells run so far were
    // predicted worse), still longer than the measured best so far, which it names.
    const QRegularExpression skip(
        QStringLiteral("^  (\\d+) workers?, batch (\\d+): predicted ([0-9.]+) s end to end / "
                       "([0-9.]+) = ([0-9.]+) s > measured best ([0-9.]+) s "
                       "\\((\\d+) workers?, batch (\\d+)\\)$"),
        QRegularExpression::MultilineOption);
    int skipLines = 0;
    for (auto it = skip.globalMatch(r.err); it.hasNext(); ++skipLines) {
        const QRegularExpressionMatch m = it.next();
        const nlohmann::json &cell = cellOf(cells, m.captured(1).toInt(), m.captured(2).toInt());
        QCOMPARE(cell.value("state", std::string()), std::string("skipped"));
        QCOMPARE(m.captured(3), fixed3(cell.at("predicted").at("wall_seconds").get<double>()));
        const double predicted = m.captured(3).toDouble();
        const double divisor = m.captured(4).toDouble();
        const double shortened = m.captured(5).toDouble();
        QVERIFY2(divisor >= 1.15, qPrintable(m.captured(0)));
        // Up to the printed decimals: three of the times, two of the divisor.
        QVERIFY2(std::abs(shortened * divisor - predicted)
                     <= 0.0005 * (1.0 + divisor) + 0.005 * shortened,
                 qPrintable(m.captured(0)));
        const nlohmann::json &best = cellOf(cells, m.captured(7).toInt(), m.captured(8).toInt());
        QCOMPARE(best.value("state", std::string()), std::string("finished"));
        QCOMPARE(m.captured(6), fixed3(best.at("summary").at("wall_seconds").get<double>()));
        QVERIFY2(shortened > m.captured(6).toDouble(), qPrintable(m.captured(0)));
    }
    QCOMPARE(cells.size(), std::size_t{6}); // every cell has one record, run or skipped
    int skipped = 0;
    double bestSeconds = 0.0;
    int bestBatch = 0;
    for (const auto &[order, j] : cells) {
        // Every record keeps what the model predicted for the cell.
        QVERIFY2(j.at("predicted").at("wall_seconds").get<double>() > 0.0, j.dump().c_str());
        const int batch = j.at("values").at(1).get<int>();
        if (j.at("state") == "skipped") {
            ++skipped;
            QVERIFY(j.at("summary").is_null());
            QVERIFY(!j.contains("trace"));
            continue;
        }
        QCOMPARE(j.at("state").get<std::string>(), std::string("finished"));
        QVERIFY2(batch != 8, "a cell of 64 steps ran against one of 8");
        const double seconds = j.at("summary").at("wall_seconds").get<double>();
        if (bestBatch == 0 || seconds < bestSeconds) {
            bestSeconds = seconds;
            bestBatch = batch;
        }
    }
    QVERIFY(skipped >= 2);
    QCOMPARE(skipLines, skipped);
    QCOMPARE(bestBatch, 64);
    QVERIFY2(r.err.contains(QStringLiteral("skipped %1,").arg(skipped)), qPrintable(r.err));
    const QString predictFirstBest = recommended(r.out);
    QVERIFY2(predictFirstBest.endsWith(QStringLiteral("batch 64")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("skipped  (")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("skipped: %1 cells not run").arg(skipped)),
             qPrintable(r.out));

    // The folder says so to `sweep report` too.
    r = runLoaderlab({QStringLiteral("sweep"), QStringLiteral("report"), out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains(QStringLiteral("skipped: %1 cells not run").arg(skipped)),
             qPrintable(r.out));

    // A plain resume (--retry-failed included) runs nothing: skipped is not failed.
    r = runLoaderlab(
        {QStringLiteral("sweep"), QStringLiteral("--out"), out, QStringLiteral("--retry-failed")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("ran 0 cells")), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("(%1 skipped by --predict-first").arg(skipped)),
             qPrintable(r.err));
    // --predict-first again: the same choice from the folder, nothing to run.
    r = runLoaderlab(
        {QStringLiteral("sweep"), QStringLiteral("--out"), out, QStringLiteral("--predict-first")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("ran 0 cells")), qPrintable(r.err));
    QCOMPARE(sweepRecords(out).size(), std::size_t{6});

    // --run-skipped completes the full sweep and recommends the measured best of all
    // six cells: the one --predict-first chose, or a skipped cell that measured faster
    // (a prediction that missed, which the machine's load can cause: not checked here).
    std::vector<std::string> skippedCells;
    for (const auto &[order, j] : cells) {
        if (j.at("state") == "skipped")
            skippedCells.push_back(cellText(j).toStdString());
    }
    r = runLoaderlab(
        {QStringLiteral("sweep"), QStringLiteral("--out"), out, QStringLiteral("--run-skipped")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("ran %1 cells").arg(skipped)), qPrintable(r.err));
    const auto full = sweepRecords(out);
    QCOMPARE(full.size(), std::size_t{6});
    const nlohmann::json *fullBest = nullptr;
    for (const auto &[order, j] : full) {
        QCOMPARE(j.at("state").get<std::string>(), std::string("finished"));
        if (!fullBest
            || j.at("summary").at("wall_seconds").get<double>()
                   < fullBest->at("summary").at("wall_seconds").get<double>())
            fullBest = &j;
    }
    const QString fullBestName = cellText(*fullBest);
    QCOMPARE(recommended(r.out), fullBestName);
    QVERIFY2(fullBestName == predictFirstBest
                 || std::find(skippedCells.begin(), skippedCells.end(), fullBestName.toStdString())
                        != skippedCells.end(),
             qPrintable(r.out));
    QVERIFY(!r.out.contains(QStringLiteral("skipped")));
}

void TestCliSweepPredictFirst::saysHowBusyTheMachineWas()
{
    if (!QFileInfo(QStringLiteral("/proc/stat")).isFile())
        QSKIP("no /proc/stat here: the cells' load is unknown");
    const QString out = m_dir.filePath(QStringLiteral("load"));
    const Result r = runLoaderlab(sweepArgs(out, kPredictFirstSweep)
                                  << QStringLiteral("--predict-first"));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto cells = sweepRecords(out);
    const nlohmann::json &calibration = cellOf(cells, 1, 32); // the cell nearest the base
    const auto lines = linesByCell(r.err);
    int measured = 0;
    for (const auto &[order, j] : cells) {
        if (j.at("state") != "finished") {
            QVERIFY2(!j.contains("machine_load"), j.dump().c_str());
            continue;
        }
        ++measured;
        // Every measured cell recorded its load, as a run's summary does.
        const nlohmann::json &load = j.at("machine_load");
        QVERIFY2(load.at("cores").get<int>() >= 1, j.dump().c_str());
        QVERIFY2(load.at("seconds").get<double>() > 0.0, j.dump().c_str());
        const QString cell = cellText(j);
        QVERIFY2(lines.count(cell), qPrintable(cell + QStringLiteral(" in\n") + r.err));
        const QStringList &said = lines.at(cell);
        const double taken = takenCores(j);
        const QString ofCores = QStringLiteral(" of %1 cores").arg(load.at("cores").get<int>());
        if (j == calibration) {
            // How busy the calibration run was, as its record says.
            const QString others = load.at("steal_cores").get<double>() >= 0.05
                                       ? QStringLiteral("other programs and the hypervisor")
                                       : QStringLiteral("other programs");
            const QString busy = QStringLiteral("  During the calibration run ") + others
                                 + QStringLiteral(" used ") + cores1(taken) + ofCores;
            const bool saidBusy = std::any_of(said.begin(), said.end(),
                                              [&](const QString &l) { return l.startsWith(busy); });
            QVERIFY2(saidBusy == (taken >= 0.1),
                     qPrintable(busy + QStringLiteral(" in\n") + r.err));
            continue;
        }
        // Flagged when other programs' load differed from the calibration's by more
        // than a quarter of a core.
        const double then = takenCores(calibration);
        const QString flag = QStringLiteral("  other programs used ") + cores1(taken) + ofCores
                             + QStringLiteral(" during this cell, ") + cores1(then)
                             + QStringLiteral(" during the calibration run: its prediction and "
                                              "measurement are not like for like");
        QVERIFY2(said.contains(flag) == (std::abs(taken - then) > 0.25),
                 qPrintable(flag + QStringLiteral(" in\n") + r.err));
    }
    QVERIFY(measured >= 2);
}

void TestCliSweepPredictFirst::aResumeSaysHowBusyTheKeptRunWas()
{
    const QString out = m_dir.filePath(QStringLiteral("kept"));
    Result r = runLoaderlab(sweepArgs(out, kPredictFirstSweep)
                            << QStringLiteral("--predict-first"));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("skipped")), qPrintable(r.err));
    // The kept run of the calibration cell (1 worker, batch 32: order 4), recorded as if
    // other programs in another session had used one core all along.
    const std::string kept =
        QDir(out).filePath(QStringLiteral("traces/cell-000004.json")).toStdString();
    nlohmann::json summary;
    std::ifstream(kept) >> summary;
    const int cores = summary.at("machine").at("logical_cores").get<int>();
    if (cores < 2)
        QSKIP("one core: no core left to the run beside a busy one");
    summary["machine_load"] = {{"cores", cores},
                               {"seconds", 1.0},
                               {"own_busy_cores", 0.5},
                               {"other_busy_cores", 1.0},
                               {"group_busy_cores", 0.0},
                               {"steal_cores", 0.0},
                               {"available_cores", cores - 1.0}};
    std::ofstream(kept) << summary.dump() << '\n';

    // --predict-first again weighs the skipped cells again, calibrated from that run.
    r = runLoaderlab(
        {QStringLiteral("sweep"), QStringLiteral("--out"), out, QStringLiteral("--predict-first")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString calibrated = QStringLiteral(
                                   "1 worker, batch 32: the model is calibrated from the kept run "
                                   "of this cell (%1 cores)\n  During the calibration run other "
                                   "programs used 1.0 of %1 cores; predicted for the %2 cores that "
                                   "were free.\n")
                                   .arg(cores)
                                   .arg(cores1(cores - 1.0));
    QVERIFY2(r.err.contains(calibrated), qPrintable(r.err));
}

void TestCliSweepPredictFirst::refusesWhatItCannotPredict()
{
    const QString out = m_dir.filePath(QStringLiteral("refused"));
    const auto refused = [&](const QStringList &extra, const QString &why) {
        const Result r = runLoaderlab(sweepArgs(out, kPredictFirstSweep) << extra);
        QVERIFY2(r.exitCode == 2, qPrintable(r.err));
        QVERIFY2(r.err.contains(why), qPrintable(r.err));
        QVERIFY2(!QDir(out).exists(), "a refused sweep created its folder");
    };
    refused({QStringLiteral("--predict-first"), QStringLiteral("--axis"),
             QStringLiteral("dataset.kind=synthetic,tensor")},
            QStringLiteral("axis dataset.kind: the model cannot predict dataset.kind"));
    refused({QStringLiteral("--predict-first"), QStringLiteral("--shard"), QStringLiteral("1/2")},
            QStringLiteral("does not run a shard"));
    refused({QStringLiteral("--predict-first"), QStringLiteral("--run-skipped")},
            QStringLiteral("give one of the two"));
    refused({QStringLiteral("--predict-margin"), QStringLiteral("0.2")},
            QStringLiteral("--predict-margin: goes with --predict-first"));
    refused({QStringLiteral("--predict-first"), QStringLiteral("--predict-margin"),
             QStringLiteral("-1")},
            QStringLiteral("--predict-margin: '-1' is not a fraction"));
}

void TestCliSweepPredictFirst::namesTheStragglersOfTheRanksItSweeps()
{
    // A devices axis: the calibration cell's waits give the slowest of 2 and 4 ranks.
    const QString out = m_dir.filePath(QStringLiteral("ranks"));
    const Result r = runLoaderlab(
        {QStringLiteral("sweep"), QStringLiteral("--dataset"), QStringLiteral("synthetic"),
         QStringLiteral("--shape"), QStringLiteral("1x8x8"), QStringLiteral("--sleep-batch-ms"),
         QStringLiteral("2"), QStringLiteral("--axis"), QStringLiteral("devices=1,2,4"),
         QStringLiteral("--budget-samples"), QStringLiteral("512"), QStringLiteral("--out"), out,
         QStringLiteral("--predict-first")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    static const QRegularExpression line(
        QStringLiteral("\\nstragglers: a step waits for the slowest rank's data; from the "
                       "calibration cell's [0-9]+ steady waits \\(mean [0-9.]+ ms\\), taken as "
                       "independent draws, the slowest of 2 ranks waits [0-9.]+ ms \\([0-9.]+x\\), "
                       "4 ranks waits [0-9.]+ ms \\([0-9.]+x\\)\\n"));
    QVERIFY2(line.match(r.out).hasMatch(), qPrintable(r.out));
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliSweepPredictFirst)
#include "test_cli_sweep_predict_first.moc"
