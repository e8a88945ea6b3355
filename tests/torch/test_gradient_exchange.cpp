// The ranks' gradient exchange over c10d's ProcessGroupGloo: rank threads that meet
// and average a real float32 gradient over loopback TCP, the backends refused with
// their reason, and LoaderLab's data-parallel runs that exchange after every
// synchronised step, recording the wait for the slowest rank and the exchange apart.

#include "core/consumer/gradient_exchange.h"
#include "core/run/run_controller.h"
#include "core/torch/torch_consumer_registration.h"
#include "tests/support/probe_dataset.h"
#include "tests/support/test_main.h"
#include "tests/support/thread_count.h"

#include <QtTest>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace loaderlab;

namespace {

constexpr std::chrono::milliseconds kTimeout{30'000};

// Every rank of a group of `ranks` joins and exchanges `bytes`, `times` times; returns
// each rank's values: before the first exchange, after each exchange.
std::vector<std::vector<double>> exchangeInThreads(int ranks, std::int64_t bytes, int times)
{
    auto group = makeExchangeGroup(ranks, "gloo", kTimeout);
    std::vector<std::vector<double>> values(static_cast<std::size_t>(ranks));
    std::vector<std::string> errors(static_cast<std::size_t>(ranks));
    {
        std::vector<std::jthread> threads;
        for (int r = 0; r < ranks; ++r)
            threads.emplace_back([&, r] {
                auto &mine = values[static_cast<std::size_t>(r)];
                try {
                    auto exchange = group->join(r);
                    mine.push_back(exchange->sampleValue());
                    for (int i = 0; i < times; ++i) {
                        // The second exchange of each pair uses a new size: a new
                        // buffer, refilled with rank + 1 before it is averaged.
                        exchange->allReduce(i % 2 == 0 ? bytes : bytes / 2);
                        mine.push_back(exchange->sampleValue());
                    }
                } catch (const std::exception &e) {
                    errors[static_cast<std::size_t>(r)] = e.what();
                }
            });
    }
    for (const std::string &e : errors)
        if (!e.empty())
            throw std::runtime_error(e);
    return values;
}

RunConfig exchangingRun(int devices, double gradientMb)
{
    RunConfig c;
    c.devices = devices;
    c.gradientMb = gradientMb;
    c.loader.numWorkers = 1;
    c.loader.batchSize = 8;
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 1.0;
    c.warmupBatches = 0;
    return c;
}

} // namespace

class TestGradientExchange : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void ranksAverageTheirGradients_data();
    void ranksAverageTheirGradients();
    void backendsThatCannotRunAreRefused();
    void aRunExchangesAfterEverySynchronisedStep();
    void withoutAGradientTheRanksOnlyWait();
    void aRefusedBackendFailsTheRunWithItsReason();
    void stopDuringExchangesJoinsEveryRank();
    void aFailingRankEndsTheRunWithoutHangingTheOthers();
};

void TestGradientExchange::initTestCase()
{
    registerTorchConsumer();
}

void TestGradientExchange::ranksAverageTheirGradients_data()
{
    QTest::addColumn<int>("ranks");
    QTest::newRow("2 ranks") << 2;
    QTest::newRow("3 ranks") << 3;
    QTest::newRow("4 ranks") << 4;
}

void TestGradientExchange::ranksAverageTheirGradients()
{
    QFETCH(int, ranks);
    // Rank r starts with r + 1 everywhere; the average over N ranks is (N + 1) / 2,
    // which no rank holds unless the ranks exchanged (for N = 3 rank 1 holds 2, the
    // average, from the start: the other ranks' values show the exchange there).
    const auto values = exchangeInThreads(ranks, 4'000'000, 4);
    const double average = (ranks + 1) / 2.0;
    for (int r = 0; r < ranks; ++r) {
        const auto &mine = values[static_cast<std::size_t>(r)];
        QCOMPARE(mine.size(), std::size_t{5});
        QCOMPARE(mine[0], r + 1.0);
        for (std::size_t i = 1; i < mine.size(); ++i)
            QCOMPARE(mine[i], average);
    }
}

void TestGradientExchange::backendsThatCannotRunAreRefused()
{
    try {
        makeExchangeGroup(2, "nccl", kTimeout);
        QFAIL("NCCL was accepted by a LibTorch without CUDA");
    } catch (const std::exception &e) {
        QVERIFY2(std::string(e.what()).find("CUDA") != std::string::npos, e.what());
        QVERIFY2(std::string(e.what()).find("gloo") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeExchangeGroup(2, "mpi", kTimeout));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeExchangeGroup(1, "gloo", kTimeout));
    // Without LibTorch's factory: the reason says what is missing.
    const ExchangeGroupFactory registered = exchangeGroupFactory();
    setExchangeGroupFactory(nullptr);
    try {
        makeExchangeGroup(2, "gloo", kTimeout);
        setExchangeGroupFactory(registered);
        QFAIL("a group was made without a factory");
    } catch (const std::runtime_error &e) {
        setExchangeGroupFactory(registered);
        QVERIFY2(std::string(e.what()).find("no LibTorch") != std::string::npos, e.what());
    }
}

void TestGradientExchange::aRunExchangesAfterEverySynchronisedStep()
{
    // 3 ranks over 240 samples, batch 8: 10 steps each, every one followed by the
    // wait for the slowest rank and then the exchange of 2 MB.
    RunController run;
    run.start(exchangingRun(3, 2.0), std::make_shared<ProbeDataset>(240));
    QVERIFY(run.waitForEnd(60'000));
    QCOMPARE(run.state(), RunState::Finished);
    const auto trace = run.trace();
    const auto records = trace->records(0, trace->size());
    QCOMPARE(records.size(), std::size_t{30});
    for (const TraceRecord &r : records) {
        QVERIFY(r.syncStartNs >= r.computeEndNs && r.computeEndNs > 0);
        QVERIFY(r.syncEndNs >= r.syncStartNs);
        QVERIFY2(r.exchangeEndNs > r.syncEndNs, qPrintable(QString::number(r.index)));
    }
}

void TestGradientExchange::withoutAGradientTheRanksOnlyWait()
{
    RunController run;
    run.start(exchangingRun(2, 0.0), std::make_shared<ProbeDataset>(160));
    QVERIFY(run.waitForEnd(60'000));
    QCOMPARE(run.state(), RunState::Finished);
    const auto trace = run.trace();
    for (const TraceRecord &r : trace->records(0, trace->size())) {
        QVERIFY(r.syncEndNs >= r.syncStartNs && r.syncStartNs > 0);
        QCOMPARE(r.exchangeEndNs, std::int64_t{0});
    }
    // One device: nothing to wait for, nothing recorded.
    RunController single;
    single.start(exchangingRun(1, 2.0), std::make_shared<ProbeDataset>(40));
    QVERIFY(single.waitForEnd(60'000));
    const auto one = single.trace();
    for (const TraceRecord &r : one->records(0, one->size()))
        QVERIFY(r.syncStartNs == 0 && r.syncEndNs == 0 && r.exchangeEndNs == 0);
}

void TestGradientExchange::aRefusedBackendFailsTheRunWithItsReason()
{
    RunController run;
    RunConfig c = exchangingRun(2, 2.0);
    c.commBackend = "nccl";
    run.start(c, std::make_shared<ProbeDataset>(160));
    QVERIFY(run.waitForEnd(60'000));
    QCOMPARE(run.state(), RunState::Failed);
    QVERIFY2(run.error().starts_with("the gradient exchange: "), run.error().c_str());
    QVERIFY2(run.error().find("CUDA") != std::string::npos, run.error().c_str());
    QTRY_COMPARE(run.liveThreads(), 0);
    // Independent ranks exchange nothing: a gradient for them is refused at the start.
    c.commBackend = "gloo";
    c.syncDevices = false;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             run.start(c, std::make_shared<ProbeDataset>(160)));
}

void TestGradientExchange::stopDuringExchangesJoinsEveryRank()
{
    const int before = processThreadCount();
    {
        RunController run;
        RunConfig c = exchangingRun(3, 20.0);
        c.epochs = 0;
        run.start(c, std::make_shared<ProbeDataset>(10'000));
        QTRY_VERIFY_WITH_TIMEOUT(run.trace()->size() >= 12, 60'000);
        run.stop();
        QVERIFY(run.waitForEnd(60'000));
        QCOMPARE(run.state(), RunState::Stopped);
        QTRY_COMPARE(run.liveThreads(), 0);
        // Every step recorded before the stop was exchanged by all three ranks.
        const auto trace = run.trace();
        for (const TraceRecord &r : trace->records(0, trace->size()))
            QVERIFY(r.exchangeEndNs > 0 || r.syncEndNs == 0);
    }
    QTRY_COMPARE(processThreadCount(), before);
}

void TestGradientExchange::aFailingRankEndsTheRunWithoutHangingTheOthers()
{
    // Sample 50 belongs to rank 2 of 3 (50 mod 3); the fail policy ends that rank. The
    // others, waiting for it at the step's barrier, must not start an exchange it
    // will never join.
    auto dataset = std::make_shared<ProbeDataset>(300);
    dataset->badIndices = {50};
    RunController run;
    RunConfig c = exchangingRun(3, 2.0);
    c.epochs = 0;
    c.loader.badSamples = BadSamplePolicy::Fail;
    run.start(c, dataset);
    QVERIFY(run.waitForEnd(60'000));
    QCOMPARE(run.state(), RunState::Failed);
    QVERIFY2(run.error().starts_with("rank 2: "), run.error().c_str());
    QTRY_COMPARE(run.liveThreads(), 0);
}

LOADERLAB_GUILESS_TEST_MAIN(TestGradientExchange)
#include "test_gradient_exchange.moc"
