// The gradient exchange in the loader model, on known answers: the ring all-reduce's
// time on a named or measured link, the host-sharing factor of ranks that need more
// cores than there are, the presets and their refusal, and the simulation's step
// cycle of synchronised ranks that exchange after every step; across nodes, the
// two-level all-reduce, each node's own cores, and the scaling it predicts.

#include "core/predict/loader_model.h"
#include "core/predict/network_link.h"
#include "core/predict/node_scaling.h"
#include "core/predict/processor_sharing.h"
#include "tests/support/predicted_rate.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <stdexcept>

using namespace loaderlab;
using predictedrate::constantCosts;

class TestExchangeModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ringAllreduceOnANamedLink();
    void linkMeasuredFromARun();
    void ranksThatShareAHostsCores();
    void presetsAndRefusals();
    void synchronisedRanksPayTheExchangeEveryStep();
    void allreduceInTwoLevelsAcrossNodes();
    void eachHostHasItsOwnCores();
    void nodesAddCoresAndPayTheLinkBetweenThem();
    void nodeScalingAgainstOneRank();
};

void TestExchangeModel::ringAllreduceOnANamedLink()
{
    const NetworkLink link = networkLinkNamed("100gbe"); // 12.5 GB/s, 10 us a step
    QCOMPARE(link.bytesPerSecond, 12.5e9);
    QCOMPARE(link.latencySeconds, 10e-6);
    // 100 MB among 4 ranks: 6 steps of 10 us, and 2 x 3/4 x 100 MB at 12.5 GB/s = 12 ms.
    QCOMPARE(ringAllreduceSeconds(link, 100e6, 4), 6 * 10e-6 + 0.012);
    // 2 ranks: 2 steps, and the gradient once: 8 ms.
    QCOMPARE(ringAllreduceSeconds(link, 100e6, 2), 2 * 10e-6 + 0.008);
    // One rank, or nothing to send, or no link: nothing.
    QCOMPARE(ringAllreduceSeconds(link, 100e6, 1), 0.0);
    QCOMPARE(ringAllreduceSeconds(link, 0.0, 4), 0.0);
    QCOMPARE(ringAllreduceSeconds(NetworkLink{}, 100e6, 4), 0.0);
    // A figure in GB/s has no latency.
    QCOMPARE(ringAllreduceSeconds(networkLinkNamed("12.5GB/s"), 100e6, 4), 0.012);
}

void TestExchangeModel::linkMeasuredFromARun()
{
    // 102.2 MB among 2 ranks in 100 ms: each rank sent the gradient once, 1.022 GB/s.
    const NetworkLink link = networkLinkMeasured(0.1, 102.2e6, 2);
    QCOMPARE(link.bytesPerSecond, 1.022e9);
    QCOMPARE(link.latencySeconds, 0.0);
    QVERIFY2(link.description.find("1.02 GB/s") != std::string::npos, link.description.c_str());
    // Predicted back, the same 100 ms; 4 ranks send 3/2 of it: 150 ms.
    QCOMPARE(ringAllreduceSeconds(link, 102.2e6, 2), 0.1);
    QCOMPARE(ringAllreduceSeconds(link, 102.2e6, 4), 0.15);
    // 4 ranks in 150 ms: 2 x 3/4 x 102.2 MB / 0.15 s, the same link.
    QCOMPARE(networkLinkMeasured(0.15, 102.2e6, 4).bytesPerSecond, 1.022e9);
    QVERIFY(!networkLinkMeasured(0.1, 102.2e6, 1).known());
    QVERIFY(!networkLinkMeasured(0.0, 102.2e6, 2).known());
}

void TestExchangeModel::ranksThatShareAHostsCores()
{
    NetworkLink link = networkLinkMeasured(0.1, 100e6, 2);
    link.cpuShare = 0.75;
    // 2 ranks need 1.5 of 2 cores: as the ring says. 4 need 3: 1.5 times as long.
    QCOMPARE(ringAllreduceSeconds(link, 100e6, 2, 2.0), 0.1);
    QCOMPARE(ringAllreduceSeconds(link, 100e6, 4, 2.0), 0.15 * 1.5);
    // 3 ranks need 2.25 cores: 1.125 times the ring's 4/3 x 100 ms.
    QVERIFY(qFuzzyCompare(ringAllreduceSeconds(link, 100e6, 3, 2.0), 0.1 * 4.0 / 3.0 * 1.125));
    // No cores given, or a network link (no CPU share): the ring alone.
    QCOMPARE(ringAllreduceSeconds(link, 100e6, 4), 0.15);
    link.cpuShare = 0.0;
    QCOMPARE(ringAllreduceSeconds(link, 100e6, 4, 2.0), 0.15);
}

void TestExchangeModel::presetsAndRefusals()
{
    QCOMPARE(networkLinkNamed("10gbe").bytesPerSecond, 1.25e9);
    QCOMPARE(networkLinkNamed("ib-hdr").bytesPerSecond, 25e9);
    QCOMPARE(networkLinkNamed("nvlink").bytesPerSecond, 300e9);
    QCOMPARE(networkLinkNamed("3").bytesPerSecond, 3e9);
    QVERIFY(networkLinkNamed("25gbe").description.find("(assumed)") != std::string::npos);
    for (const char *bad : {"", "fast", "-2", "0", "12.5 Gb"}) {
        try {
            networkLinkNamed(bad);
            QFAIL(bad);
        } catch (const std::invalid_argument &e) {
            QVERIFY2(std::string(e.what()).find("10gbe, 25gbe, 100gbe, ib-hdr, nvlink")
                         != std::string::npos,
                     e.what());
        }
    }
}

void TestExchangeModel::synchronisedRanksPayTheExchangeEveryStep()
{
    // Loading is near free (1 us a sample), the step 10 ms; 2 ranks all-reduce 100 MB
    // on 10 GB/s after every step: the ring's 10 ms. Each rank's cycle is 20 ms: 50
    // batches a second a rank, 100 together.
    ModelCosts costs = constantCosts(1e-6, 0.010);
    costs.gradientBytes = 100e6;
    costs.network = networkLinkNamed("10");
    ModelSetting s;
    s.workers = 1;
    s.batchSize = 1;
    s.cores = 4;
    s.devices = 2;
    s.samplesPerEpoch = 400;
    s.epochs = 1;
    const Prediction exchanging = predictLoader(costs, s);
    QVERIFY(std::abs(predictedrate::steadyRate(exchanging, 20, 2) - 100.0) < 0.5);
    // Without the exchange: 10 ms cycles, 200 batches a second.
    costs.gradientBytes = 0.0;
    const Prediction barrierOnly = predictLoader(costs, s);
    QVERIFY(std::abs(predictedrate::steadyRate(barrierOnly, 20, 2) - 200.0) < 1.0);
    // One rank exchanges nothing, whatever the gradient.
    costs.gradientBytes = 100e6;
    s.devices = 1;
    QVERIFY(std::abs(predictedrate::steadyRate(predictLoader(costs, s), 20, 1) - 100.0) < 0.5);
}

void TestExchangeModel::allreduceInTwoLevelsAcrossNodes()
{
    const NetworkLink within = networkLinkNamed("100");     // 100 GB/s, no latency
    const NetworkLink between = networkLinkNamed("100gbe"); // 12.5 GB/s, 10 us a step
    // 4 nodes x 4 ranks, 100 MB: within a node the ring of 4 moves 2 x 3/4 x 100 MB at
    // 100 GB/s (1.5 ms); between nodes each node's link carries 2 x 3/4 of the gradient
    // at 12.5 GB/s (12 ms) in 6 steps of 10 us.
    QVERIFY(qFuzzyCompare(hierarchicalAllreduceSeconds(within, between, 100e6, 4, 4),
                          0.0015 + 6 * 10e-6 + 0.012));
    // One rank a node: the ring between nodes alone, as a flat ring of 4 on that link.
    QVERIFY(qFuzzyCompare(hierarchicalAllreduceSeconds(within, between, 100e6, 1, 4),
                          ringAllreduceSeconds(between, 100e6, 4)));
    // One node: the ring within it; the link between nodes is not crossed.
    QCOMPARE(hierarchicalAllreduceSeconds(within, between, 100e6, 4, 1),
             ringAllreduceSeconds(within, 100e6, 4));
    // 2 nodes: the gradient once through each node's link, 8 ms, 2 steps.
    QVERIFY(qFuzzyCompare(hierarchicalAllreduceSeconds(within, between, 100e6, 1, 2),
                          2 * 10e-6 + 0.008));
}

void TestExchangeModel::eachHostHasItsOwnCores()
{
    // One core a host, one rank a host: two ranks' 1 s of work each end at 1 s, on
    // their own cores. On one host of one core they share it and end at 2 s.
    ProcessorSharingClock hosts(1.0, 0.0, 0.0, 1);
    hosts.startWork(1.0, 1.0, ActivityTag{0, 0});
    hosts.startWork(1.0, 1.0, ActivityTag{0, 1});
    QCOMPARE(hosts.advance().size(), std::size_t{2});
    QVERIFY(qFuzzyCompare(hosts.now(), 1.0));
    ProcessorSharingClock one(1.0);
    one.startWork(1.0, 1.0, ActivityTag{0, 0});
    one.startWork(1.0, 1.0, ActivityTag{0, 1});
    QCOMPARE(one.advance().size(), std::size_t{2});
    QVERIFY(qFuzzyCompare(one.now(), 2.0));
    // 2 ranks a host: ranks 0 and 1 share host 0, rank 2 has host 1 alone.
    ProcessorSharingClock two(1.0, 0.0, 0.0, 2);
    two.startWork(1.0, 1.0, ActivityTag{0, 0});
    two.startWork(1.0, 1.0, ActivityTag{0, 1});
    two.startWork(1.0, 1.0, ActivityTag{0, 2});
    QCOMPARE(two.advance().size(), std::size_t{1}); // rank 2, alone on its host
    QVERIFY(qFuzzyCompare(two.now(), 1.0));
    QCOMPARE(two.advance().size(), std::size_t{2});
    QVERIFY(qFuzzyCompare(two.now(), 2.0));
}

void TestExchangeModel::nodesAddCoresAndPayTheLinkBetweenThem()
{
    // The consumer loads its own batch (W = 0): 1 ms a sample of CPU work, a 10 ms
    // simulated step, batch 10: a rank's cycle is 20 ms, 500 samples/s. Two ranks on
    // one host of one core load at half speed while the other steps: their loads
    // overlap; on two nodes each has its core: 1,000 samples/s together, exactly.
    ModelCosts costs = constantCosts(0.001, 0.010);
    ModelSetting s;
    s.workers = 0;
    s.batchSize = 10;
    s.cores = 1;
    s.devices = 1;
    s.nodes = 2;
    s.samplesPerEpoch = 4000;
    s.epochs = 1;
    const double twoNodes = predictLoader(costs, s).samplesPerSecond;
    QVERIFY2(std::abs(twoNodes - 1000.0) < 1.0, qPrintable(QString::number(twoNodes)));
    // The exchange between nodes: 100 MB once through a 10 GB/s link a step (2 nodes)
    // adds 10 ms: a 30 ms cycle, 333.3 samples/s a rank. (The summary's window ends
    // at the last step's end, before its exchange: 1 of the 195 steady cycles is
    // 10 ms shorter, so the rate reads 0.17 % high.)
    costs.gradientBytes = 100e6;
    costs.betweenNodes = networkLinkNamed("10");
    const double exchanging = predictLoader(costs, s).samplesPerSecond;
    QVERIFY2(std::abs(exchanging / (2000.0 / 3.0) - 1.0) < 0.003,
             qPrintable(QString::number(exchanging)));
    // Several nodes that exchange need the link between them named.
    costs.betweenNodes = NetworkLink{};
    QVERIFY(modelInputProblem(costs, s).find("link between them") != std::string::npos);
    s.nodes = 1025;
    QVERIFY(modelInputProblem(costs, s).find("1024 ranks at most") != std::string::npos);
}

void TestExchangeModel::nodeScalingAgainstOneRank()
{
    // A calibrated run as costs: 1 ms a sample, a 10 ms step, batch 10, W = 0, one
    // core, 100 MB of gradient. 2 ranks a node share its core; between nodes a 10 GB/s
    // link, within a node 100 GB/s.
    Calibration cal;
    cal.costs = constantCosts(0.001, 0.010);
    cal.config.loader.numWorkers = 0;
    cal.config.loader.batchSize = 10;
    cal.config.consumer.kind = ConsumerKind::Sleep;
    cal.config.consumer.sleepPerBatchMs = 10.0;
    cal.config.gradientMb = 100.0;
    cal.config.syncDevices = true;
    cal.config.epochs = 1;
    cal.setting.workers = 0;
    cal.setting.batchSize = 10;
    cal.setting.cores = 1;
    cal.setting.samplesPerEpoch = 4000;
    cal.setting.epochs = 1;
    const NodeScaling scaling = predictNodeScaling(cal, {1, 2, 4}, 1, networkLinkNamed("100"),
                                                   networkLinkNamed("10"), 0);
    QVERIFY2(std::abs(scaling.oneRankSamplesPerSecond - 500.0) < 1.0,
             qPrintable(QString::number(scaling.oneRankSamplesPerSecond)));
    QCOMPARE(scaling.rows.size(), std::size_t{3});
    // One node of one rank is the rank itself.
    QVERIFY(std::abs(scaling.rows[0].speedup - 1.0) < 0.01);
    QCOMPARE(scaling.rows[0].exchangeSeconds, 0.0);
    // 2 nodes: 10 ms exchange (100 MB once at 10 GB/s), cycle 30 ms: 2 x 333.3.
    QVERIFY(qFuzzyCompare(scaling.rows[1].exchangeSeconds, 0.010));
    QVERIFY(qFuzzyCompare(scaling.rows[1].betweenNodesSeconds, 0.010));
    QVERIFY2(std::abs(scaling.rows[1].speedup - 4.0 / 3.0) < 0.01,
             qPrintable(QString::number(scaling.rows[1].speedup)));
    QVERIFY(std::abs(scaling.rows[1].efficiency - 2.0 / 3.0) < 0.01);
    // 4 nodes: 2 x 3/4 x 100 MB at 10 GB/s = 15 ms; cycle 35 ms: 4 x 285.7 samples/s.
    QVERIFY(qFuzzyCompare(scaling.rows[2].exchangeSeconds, 0.015));
    QVERIFY2(std::abs(scaling.rows[2].speedup - 4.0 * 20.0 / 35.0) < 0.02,
             qPrintable(QString::number(scaling.rows[2].speedup)));
    // Several nodes with no link between them: refused, saying so.
    try {
        predictNodeScaling(cal, {2}, 1, networkLinkNamed("100"), NetworkLink{}, 0);
        QFAIL("no link between nodes was accepted");
    } catch (const std::invalid_argument &e) {
        QVERIFY2(std::string(e.what()).find("link between nodes") != std::string::npos, e.what());
    }
    // Two ranks a node with no link among them: refused.
    try {
        predictNodeScaling(cal, {1}, 2, NetworkLink{}, networkLinkNamed("10"), 0);
        QFAIL("no link within a node was accepted");
    } catch (const std::invalid_argument &e) {
        QVERIFY2(std::string(e.what()).find("link among a node's 2 devices") != std::string::npos,
                 e.what());
    }
}

LOADERLAB_GUILESS_TEST_MAIN(TestExchangeModel)
#include "test_exchange_model.moc"
