// The gradient exchange in the loader model, on known answers: the ring all-reduce's
// time on a named or measured link, the host-sharing factor of ranks that need more
// cores than there are, the presets and their refusal, and the simulation's step
// cycle of synchronised ranks that exchange after every step.

#include "core/predict/loader_model.h"
#include "core/predict/network_link.h"
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

LOADERLAB_GUILESS_TEST_MAIN(TestExchangeModel)
#include "test_exchange_model.moc"
