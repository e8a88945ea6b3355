// `loaderlab predict` from a data-parallel run whose ranks exchanged a real gradient
// (c10d's gloo): the link it reads is the one the run's own exchange times make (the
// median after each rank's warm-up, worked out here from the CSV), its ring times for
// other rank counts follow from it, `--network` names another link and says so, and
// a link it does not know is refused. Checks what the run recorded and what the
// model makes of it, never how fast the run was.

#include "cli_process.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

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

} // namespace

class TestCliPredictExchange : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void linkComesFromTheRunsExchange();
};

void TestCliPredictExchange::linkComesFromTheRunsExchange()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString csv = dir.filePath(QStringLiteral("ranks.csv"));
    const QString json = dir.filePath(QStringLiteral("ranks.json"));
    Result r = runLoaderlab({QStringLiteral("run"),
                             QStringLiteral("--dataset"),
                             QStringLiteral("synthetic"),
                             QStringLiteral("--shape"),
                             QStringLiteral("1x8x8"),
                             QStringLiteral("--devices"),
                             QStringLiteral("2"),
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
                             csv,
                             QStringLiteral("--json"),
                             json});
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

LOADERLAB_GUILESS_TEST_MAIN(TestCliPredictExchange)
#include "test_cli_predict_exchange.moc"
