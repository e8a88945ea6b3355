// `loaderlab predict` from a data-parallel run whose ranks exchanged a real gradient
// (c10d's gloo): the link it reads is the one the run's own exchange times make (the
// median after each rank's warm-up, worked out here from the CSV), its ring times for
// other rank counts follow from it, `--network` names another link and says so, and
// a link it does not know is refused; `--nodes` adds the link between nodes and says
// what it assumed; `run --baseline` gives the scaling against a recorded run of one
// rank. Checks what the runs recorded and what the model makes of them, never how
// fast a run was.

#include "cli_process.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using clitest::readJson;
using clitest::Result;
using clitest::runLoaderlab;

namespace {

// The median of exchange_end_ns - sync_end_ns over the CSV's rows after each rank's
// first `warmup`, in milliseconds.
double medianExchangeMs(const QString &csv, int warmup)
{
    std::ifstream in(csv.toStdString());
    std::string line;
    std::getline(in, line);
    std::vector<std::string> header;
    for (std::stringstream ss(line); std::getline(ss, line, ',');)
        header.push_back(line);
    const auto column = [&header](const char *name) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name)
                                        - header.begin());
    };
    const std::size_t rank = column("rank"), syncEnd = column("sync_end_ns"),
                      exchangeEnd = column("exchange_end_ns");
    std::map<long long, int> seen;
    std::vector<double> ms;
    while (std::getline(in, line)) {
        std::vector<std::string> cells;
        for (std::stringstream ss(line); std::getline(ss, line, ',');)
            cells.push_back(line);
        if (cells.size() <= std::max({rank, syncEnd, exchangeEnd}))
            continue;
        const long long r = std::stoll(cells[rank]);
        const long long a = std::stoll(cells[syncEnd]);
        const long long b = std::stoll(cells[exchangeEnd]);
        if (seen[r]++ < warmup || b <= a || a <= 0)
            continue;
        ms.push_back(static_cast<double>(b - a) / 1e6);
    }
    if (ms.empty())
        return 0.0;
    std::nth_element(ms.begin(), ms.begin() + static_cast<long>(ms.size() / 2), ms.end());
    return ms[ms.size() / 2];
}

// A run of `devices` ranks that all-reduce 8 MB after a 2 ms step, 40 batches in all,
// written to NAME.csv and NAME.json in `dir`; `extra` options added.
Result recordRun(const QTemporaryDir &dir, const QString &name, int devices,
                 const QStringList &extra = {})
{
    return runLoaderlab(QStringList{QStringLiteral("run"),
                                    QStringLiteral("--dataset"),
                                    QStringLiteral("synthetic"),
                                    QStringLiteral("--shape"),
                                    QStringLiteral("1x8x8"),
                                    QStringLiteral("--devices"),
                                    QString::number(devices),
                                    QStringLiteral("--set"),
                                    QStringLiteral("gradient_mb=8"),
                                    QStringLiteral("--workers"),
                                    QStringLiteral("1"),
                                    QStringLiteral("--batch-size"),
                                    QStringLiteral("8"),
                                    QStringLiteral("--sleep-batch-ms"),
                                    QStringLiteral("2"),
                                    QStringLiteral("--batches"),
                                    QStringLiteral("40"),
                                    QStringLiteral("--epochs"),
                                    QStringLiteral("0"),
                                    QStringLiteral("--csv"),
                                    dir.filePath(name + QStringLiteral(".csv")),
                                    QStringLiteral("--json"),
                                    dir.filePath(name + QStringLiteral(".json"))}
                        + extra);
}

} // namespace

class TestCliPredictExchange : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void linkComesFromTheRunsExchange();
    void nodesAllReduceInTwoLevels();
    void baselineGivesTheScalingAgainstOneRank();
};

void TestCliPredictExchange::linkComesFromTheRunsExchange()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString csv = dir.filePath(QStringLiteral("ranks.csv"));
    const QString json = dir.filePath(QStringLiteral("ranks.json"));
    Result r = recordRun(dir, QStringLiteral("ranks"), 2);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const double exchangeMs = medianExchangeMs(csv, 5);
    QVERIFY2(exchangeMs > 0.0, "the run recorded no exchange");

    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), json,
                      QStringLiteral("--axis"), QStringLiteral("devices=1,2,4")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // The link: 8 MB among 2 ranks in the run's median exchange, each rank sending
    // the gradient once.
    const QString measured = QStringLiteral("8.0 MB all-reduced among 2 ranks in %1 ms a step")
                                 .arg(exchangeMs, 0, 'f', 1);
    QVERIFY2(r.out.contains(measured), qPrintable(measured + QStringLiteral("\n") + r.out));
    QVERIFY2(
        r.out.contains(
            QStringLiteral("after every step takes %1 ms with 2 ranks").arg(exchangeMs, 0, 'f', 1)),
        qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("the gradient exchange as a ring all-reduce")),
             qPrintable(r.out));

    // Another link, named: stated as assumed; 8 MB among 2 ranks on 100 GbE is 2 steps
    // of 10 us and 8 MB at 12.5 GB/s: 0.66 ms.
    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), json,
                      QStringLiteral("--network"), QStringLiteral("100gbe"),
                      QStringLiteral("--axis"), QStringLiteral("devices=2,4")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains(QStringLiteral("crosses 100 GbE: 12.5 GB/s, 10 us a ring step "
                                           "(assumed)")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("takes 0.7 ms with 2 ranks")), qPrintable(r.out));
    // And a gradient of another size.
    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), json,
                      QStringLiteral("--network"), QStringLiteral("100gbe"),
                      QStringLiteral("--gradient-mb"), QStringLiteral("100"),
                      QStringLiteral("--axis"), QStringLiteral("devices=2")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains(QStringLiteral("of 100 MB after every step takes 8.0 ms with 2 ranks")),
             qPrintable(r.out));

    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), json,
                      QStringLiteral("--network"), QStringLiteral("fast")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("--network fast: expected one of 10gbe")),
             qPrintable(r.err));
}

void TestCliPredictExchange::nodesAllReduceInTwoLevels()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Result r = recordRun(dir, QStringLiteral("ranks"), 2);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString json = dir.filePath(QStringLiteral("ranks.json"));

    // 2 ranks a node on 1, 2 and 4 nodes over 100 GbE, NVLink within a node: the
    // assumptions are stated, and each row's exchange is the two levels': 8 MB within
    // a node of 2 at 300 GB/s (2 steps of 2 us, 0.027 ms), between 2 nodes 2 steps of
    // 10 us and 8 MB at 12.5 GB/s (0.66 ms), between 4 nodes 6 steps of 10 us and 2 x
    // 3/4 x 8 MB = 12 MB at 12.5 GB/s (1.02 ms).
    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), json,
                      QStringLiteral("--nodes"), QStringLiteral("4,1,2"),
                      QStringLiteral("--node-link"), QStringLiteral("nvlink"),
                      QStringLiteral("--network"), QStringLiteral("100gbe"),
                      QStringLiteral("--repeats"), QStringLiteral("1")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains(QStringLiteral("assumed: within a node the gradient exchange crosses "
                                           "NVLink (A100, per GPU): 300 GB/s")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("assumed: between nodes it crosses 100 GbE: 12.5 "
                                           "GB/s, 10 us a ring step (assumed), one link a node")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("  one rank: ")), qPrintable(r.out));
    const QStringList rows = {
        QStringLiteral("  1 node x 2 devices = 2 ranks: "),
        QStringLiteral("  2 nodes x 2 devices = 4 ranks: "),
        QStringLiteral("  4 nodes x 2 devices = 8 ranks: "),
    };
    qsizetype at = 0;
    for (const QString &row : rows) {
        const qsizetype found = r.out.indexOf(row, at);
        QVERIFY2(found > at, qPrintable(row + QStringLiteral("\n") + r.out));
        at = found;
    }
    QVERIFY2(r.out.contains(QStringLiteral("all-reduce 0.03 ms a step (0.00 ms of it between "
                                           "nodes)")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("all-reduce 0.69 ms a step (0.66 ms of it between "
                                           "nodes)")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("all-reduce 1.05 ms a step (1.02 ms of it between "
                                           "nodes)")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("stragglers: a step waits for the slowest rank's data")),
             qPrintable(r.out));

    // Several nodes with no link between them named: refused, saying what is missing.
    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), json,
                      QStringLiteral("--nodes"), QStringLiteral("2")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("name the link between nodes")), qPrintable(r.err));
    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), json,
                      QStringLiteral("--nodes"), QStringLiteral("0,2")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("expected node counts 1..1024")), qPrintable(r.err));
    r = runLoaderlab({QStringLiteral("predict"), QStringLiteral("--from"), json,
                      QStringLiteral("--node-link"), QStringLiteral("nvlink")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("give --nodes")), qPrintable(r.err));
}

void TestCliPredictExchange::baselineGivesTheScalingAgainstOneRank()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Result r = recordRun(dir, QStringLiteral("one"), 1);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString one = dir.filePath(QStringLiteral("one.json"));
    r = recordRun(dir, QStringLiteral("two"), 2, {QStringLiteral("--baseline"), one});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains(QStringLiteral("  against one rank (")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("x with 2 ranks, efficiency ")), qPrintable(r.out));

    // The JSON: the speedup is the two runs' samples/s, the efficiency half of it, and
    // it and the losses make up the whole.
    const nlohmann::json two = readJson(dir.filePath(QStringLiteral("two.json")));
    const nlohmann::json &scaling = two.at("scaling");
    QCOMPARE(QString::fromStdString(scaling.at("baseline").get<std::string>()), one);
    QCOMPARE(scaling.at("ranks").get<int>(), 2);
    const double oneRate = readJson(one).at("summary").at("samples_per_sec_mean").get<double>();
    const double twoRate = two.at("summary").at("samples_per_sec_mean").get<double>();
    const double speedup = scaling.at("speedup").get<double>();
    QVERIFY2(std::abs(speedup - twoRate / oneRate) < 1e-6 * speedup,
             qPrintable(QStringLiteral("%1 vs %2 / %3").arg(speedup).arg(twoRate).arg(oneRate)));
    const double efficiency = scaling.at("efficiency").get<double>();
    QVERIFY(qFuzzyCompare(efficiency, speedup / 2.0));
    double whole = efficiency;
    const nlohmann::json &lost = scaling.at("lost");
    for (const char *part : {"data", "step", "slowest_rank", "exchange", "other"}) {
        QVERIFY2(lost.contains(part), part);
        whole += lost.at(part).get<double>();
    }
    QVERIFY2(std::abs(whole - 1.0) < 1e-9, qPrintable(QString::number(whole)));
    // The ranks exchanged 8 MB after every step: that part is not nothing.
    QVERIFY(lost.at("exchange").get<double>() > 0.0);

    // A baseline of several ranks, or a run of one rank given one: refused.
    r = recordRun(dir, QStringLiteral("three"), 2,
                  {QStringLiteral("--baseline"), dir.filePath(QStringLiteral("two.json"))});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("its run had 2 ranks, not one")), qPrintable(r.err));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("three.json"))));
    r = recordRun(dir, QStringLiteral("four"), 1, {QStringLiteral("--baseline"), one});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("this run has one")), qPrintable(r.err));
    r = recordRun(dir, QStringLiteral("five"), 2,
                  {QStringLiteral("--baseline"), dir.filePath(QStringLiteral("none.json"))});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("--baseline: ")), qPrintable(r.err));
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliPredictExchange)
#include "test_cli_predict_exchange.moc"
