// Loader semantics: the PyTorch DataLoader behaviours users rely on.

#include "tests/support/probe_dataset.h"
#include "tests/support/thread_count.h"

#include "core/loader/loader.h"
#include "core/system/clock.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <numeric>

using namespace loaderlab;
using namespace std::chrono_literals;

namespace {

struct Delivered
{
    std::vector<std::int64_t> ordinals; // position of the batch's first sample / batch size
    std::vector<std::int64_t> samples;  // dataset indices in delivery order
    std::vector<TraceRecord> traces;
};

Delivered drain(Loader &loader)
{
    Delivered out;
    while (BatchPtr batch = loader.next()) {
        out.traces.push_back(batch->trace);
        out.samples.insert(out.samples.end(), batch->sampleIndices.begin(),
                           batch->sampleIndices.end());
        // The payload must be the sample itself, in slot order.
        const auto *values = reinterpret_cast<const float *>(batch->data().data());
        for (int i = 0; i < batch->size(); ++i) {
            if (values[i] != static_cast<float>(batch->sampleIndices[static_cast<std::size_t>(i)])
                || batch->labels[static_cast<std::size_t>(i)]
                       != batch->sampleIndices[static_cast<std::size_t>(i)])
                throw std::runtime_error("payload does not match its sample index");
        }
    }
    return out;
}

LoaderConfig config(int workers, int batch, Strategy strategy = Strategy::PerWorkerBatch)
{
    LoaderConfig c;
    c.numWorkers = workers;
    c.batchSize = batch;
    c.strategy = strategy;
    return c;
}

std::shared_ptr<ProbeDataset> probe(std::int64_t size)
{
    return std::make_shared<ProbeDataset>(size);
}

// Samples of 4 MiB (1x1024x1024 floats) that are never written, so their pages are
// never touched; every load waits at a gate until open() is called.
class GatedLargeDataset final : public Dataset
{
public:
    std::string description() const override { return "gated"; }
    std::int64_t size() const override { return 64; }
    SampleShape sampleShape() const override { return {1, 1024, 1024}; }
    DType dtype() const override { return DType::Float32; }
    std::int64_t load(std::int64_t index, std::span<std::byte>, SampleContext &) const override
    {
        std::unique_lock lock(m_mutex);
        m_waiting = true;
        m_cv.notify_all();
        m_cv.wait(lock, [this] { return m_open; });
        return index;
    }
    void waitForALoad() const
    {
        std::unique_lock lock(m_mutex);
        m_cv.wait(lock, [this] { return m_waiting; });
    }
    void open()
    {
        {
            std::lock_guard lock(m_mutex);
            m_open = true;
        }
        m_cv.notify_all();
    }

private:
    mutable std::mutex m_mutex;
    mutable std::condition_variable m_cv;
    mutable bool m_waiting = false;
    bool m_open = false;
};

// A dataset bug outside the sample load: a load fails with an ordinary exception,
// and describing the dataset (for the warning that names the sample) throws too.
class BrokenDescriptionDataset final : public Dataset
{
public:
    std::string description() const override
    {
        throw std::runtime_error("description table corrupt");
    }
    std::int64_t size() const override { return 40; }
    SampleShape sampleShape() const override { return {1, 1, 1}; }
    DType dtype() const override { return DType::Float32; }
    std::int64_t load(std::int64_t index, std::span<std::byte> out, SampleContext &) const override
    {
        if (index == 13)
            throw std::runtime_error("decoder state lost");
        const auto value = static_cast<float>(index);
        std::memcpy(out.data(), &value, sizeof value);
        return index;
    }
};

// This process's address space now, in bytes (/proc/self/statm's first field).
// Unused in the sanitizer builds, which skip the test that needs it.
[[maybe_unused]] std::uint64_t addressSpaceBytes()
{
    std::ifstream statm("/proc/self/statm");
    std::uint64_t pages = 0;
    statm >> pages;
    return pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

// Calls next() until it throws, with a watchdog that stops the loader after
// `limit`: a loader that waits for batches that never come ends in LoaderStopped.
std::string nextUntilItFails(Loader &loader, std::chrono::milliseconds limit)
{
    std::mutex mutex;
    std::condition_variable_any done;
    bool finished = false;
    std::jthread watchdog([&](std::stop_token) {
        std::unique_lock lock(mutex);
        if (!done.wait_for(lock, limit, [&] { return finished; }))
            loader.stop();
    });
    std::string outcome;
    try {
        while (loader.next()) { }
        outcome = "the epoch ended";
    } catch (const LoaderThreadError &e) {
        outcome = std::string("LoaderThreadError: ") + e.what();
    } catch (const LoaderStopped &) {
        outcome = "still waiting after the watchdog's limit (LoaderStopped)";
    }
    {
        std::lock_guard lock(mutex);
        finished = true;
    }
    done.notify_all();
    return outcome;
}

} // namespace

class TestLoader : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void inOrderDelivery_data();
    void inOrderDelivery();
    void everySampleOncePerEpoch_data();
    void everySampleOncePerEpoch();
    void batchGoesToWorkerModW();
    void zeroWorkersLoadOnConsumerThread();
    void inFlightNeverExceedsWindow();
    void dropLast();
    void shuffleIsSeededPermutation();
    void outOfOrderDeliversFirstReady();
    void skipPolicyCountsEverySample();
    void failPolicyStopsWithFileAndReason();
    void stopMidBatchIsPromptAndJoinsThreads();
    void resumeEpochAfterPartialDelivery();
    void pinMemoryCopiesIntoPinnedBuffers();
    void nonPersistentWorkersEndWithEpoch();
    void aFailedPinFailsNext();
    void aWorkerThatDiesFailsNext();
};

void TestLoader::inOrderDelivery_data()
{
    QTest::addColumn<int>("workers");
    QTest::addColumn<int>("strategy");
    QTest::newRow("per-worker 3") << 3 << int(Strategy::PerWorkerBatch);
    QTest::newRow("sample-parallel 3") << 3 << int(Strategy::SampleParallel);
    QTest::newRow("no workers") << 0 << int(Strategy::PerWorkerBatch);
}

void TestLoader::inOrderDelivery()
{
    QFETCH(int, workers);
    QFETCH(int, strategy);
    auto dataset = probe(200);
    // Uneven costs so batches finish out of order inside the workers.
    dataset->delay = [](std::int64_t i) { return std::chrono::microseconds((i * 37) % 5 * 150); };
    Loader loader(dataset, config(workers, 8, Strategy(strategy)), steadyNowNs());
    loader.startEpoch(0);
    const Delivered out = drain(loader);
    std::vector<std::int64_t> expected(200);
    std::iota(expected.begin(), expected.end(), 0);
    QCOMPARE(out.samples, expected);
    QCOMPARE(out.traces.size(), std::size_t{25});
}

void TestLoader::everySampleOncePerEpoch_data()
{
    inOrderDelivery_data();
}

void TestLoader::everySampleOncePerEpoch()
{
    QFETCH(int, workers);
    QFETCH(int, strategy);
    auto dataset = probe(1000);
    LoaderConfig c = config(workers, 32, Strategy(strategy));
    c.shuffle = true;
    c.seed = 7;
    c.persistentWorkers = true;
    Loader loader(dataset, c, steadyNowNs());
    for (int epoch = 0; epoch < 3; ++epoch) {
        loader.startEpoch(epoch);
        Delivered out = drain(loader);
        std::sort(out.samples.begin(), out.samples.end());
        QCOMPARE(out.samples.size(), std::size_t{1000});
        QVERIFY(std::adjacent_find(out.samples.begin(), out.samples.end()) == out.samples.end());
        for (std::int64_t i = 0; i < 1000; ++i)
            QCOMPARE(dataset->loads(i), epoch + 1); // loaded exactly once per epoch
    }
}

void TestLoader::batchGoesToWorkerModW()
{
    constexpr int W = 3;
    auto dataset = probe(24 * 4);
    Loader loader(dataset, config(W, 4), steadyNowNs());
    loader.startEpoch(0);
    const Delivered out = drain(loader);
    QCOMPARE(out.traces.size(), std::size_t{24});
    for (std::size_t i = 0; i < out.traces.size(); ++i)
        QCOMPARE(out.traces[i].worker, static_cast<int>(i % W));
    // Independently of the trace: the thread that loaded each sample.
    for (std::int64_t b = 0; b < 24; ++b) {
        const auto thread = dataset->thread(b * 4);
        for (int s = 1; s < 4; ++s)
            QCOMPARE(dataset->thread(b * 4 + s), thread); // whole batch on one thread
        if (b + W < 24)
            QCOMPARE(dataset->thread((b + W) * 4), thread); // same worker every W batches
        if (b + 1 < 24)
            QVERIFY(dataset->thread((b + 1) * 4) != thread);
    }
}

void TestLoader::zeroWorkersLoadOnConsumerThread()
{
    auto dataset = probe(50);
    Loader loader(dataset, config(0, 8), steadyNowNs());
    loader.startEpoch(0);
    const Delivered out = drain(loader);
    QCOMPARE(out.traces.size(), std::size_t{7});
    for (const auto &t : out.traces)
        QCOMPARE(t.worker, kConsumerThread);
    for (std::int64_t i = 0; i < 50; ++i)
        QCOMPARE(dataset->thread(i), std::this_thread::get_id());
    QCOMPARE(loader.liveThreads(), 0);
}

void TestLoader::inFlightNeverExceedsWindow()
{
    constexpr int W = 3, B = 5, PF = 2;
    auto dataset = probe(1000);
    LoaderConfig c = config(W, B);
    c.prefetchFactor = PF;
    Loader loader(dataset, c, steadyNowNs());
    loader.startEpoch(0);
    // Nothing consumed yet: workers may build exactly W x PF batches, no more.
    QTRY_COMPARE(dataset->totalLoads(), std::int64_t{W * PF * B});
    QTest::qWait(100);
    QCOMPARE(dataset->totalLoads(), std::int64_t{W * PF * B});
    // Each delivered batch lets exactly one more batch in.
    for (int taken = 1; taken <= 4; ++taken) {
        QVERIFY(loader.next() != nullptr);
        QTRY_COMPARE(dataset->totalLoads(), std::int64_t{(W * PF + taken) * B});
    }
    QTest::qWait(50);
    QCOMPARE(dataset->totalLoads(), std::int64_t{(W * PF + 4) * B});
    QCOMPARE(loader.maxInFlight(), W * PF);
}

void TestLoader::dropLast()
{
    auto dataset = probe(10);
    for (bool drop : {false, true}) {
        LoaderConfig c = config(2, 3);
        c.dropLast = drop;
        Loader loader(dataset, c, steadyNowNs());
        loader.startEpoch(0);
        const Delivered out = drain(loader);
        QCOMPARE(out.traces.size(), std::size_t(drop ? 3 : 4));
        QCOMPARE(out.samples.size(), std::size_t(drop ? 9 : 10));
        QCOMPARE(out.traces.back().samples, drop ? 3 : 1);
    }
}

void TestLoader::shuffleIsSeededPermutation()
{
    const auto a = epochOrder(500, true, 42, 0);
    QCOMPARE(epochOrder(500, true, 42, 0), a);  // same seed, same epoch: same order
    QVERIFY(epochOrder(500, true, 43, 0) != a); // another seed
    QVERIFY(epochOrder(500, true, 42, 1) != a); // another epoch
    auto sorted = a;
    std::sort(sorted.begin(), sorted.end());
    QCOMPARE(sorted, epochOrder(500, false, 42, 0)); // a permutation of 0..n-1
    QVERIFY(a != sorted);
    // The loader delivers exactly that order.
    auto dataset = probe(500);
    LoaderConfig c = config(2, 16);
    c.shuffle = true;
    c.seed = 42;
    Loader loader(dataset, c, steadyNowNs());
    loader.startEpoch(0);
    QCOMPARE(drain(loader).samples, a);
}

void TestLoader::outOfOrderDeliversFirstReady()
{
    for (bool inOrder : {true, false}) {
        auto dataset = probe(40);
        // Batch 0 (samples 0..9) is slow; batch 1 is instant.
        dataset->delay = [](std::int64_t i) { return i < 10 ? 30ms : 0ms; };
        LoaderConfig c = config(2, 10);
        c.inOrder = inOrder;
        Loader loader(dataset, c, steadyNowNs());
        loader.startEpoch(0);
        const BatchPtr first = loader.next();
        QCOMPARE(first->sampleIndices.front(), inOrder ? std::int64_t{0} : std::int64_t{10});
        Delivered rest = drain(loader);
        rest.samples.insert(rest.samples.end(), first->sampleIndices.begin(),
                            first->sampleIndices.end());
        std::sort(rest.samples.begin(), rest.samples.end());
        QCOMPARE(rest.samples.size(), std::size_t{40});
    }
}

void TestLoader::skipPolicyCountsEverySample()
{
    auto dataset = probe(100);
    dataset->badIndices = {3, 17, 18, 99};
    for (Strategy strategy : {Strategy::PerWorkerBatch, Strategy::SampleParallel}) {
        Loader loader(dataset, config(2, 10, strategy), steadyNowNs());
        loader.startEpoch(0);
        std::int64_t delivered = 0;
        std::vector<std::string> sources;
        while (BatchPtr batch = loader.next()) {
            delivered += batch->size();
            QCOMPARE(batch->trace.samples + batch->trace.skipped, 10);
            for (const auto &s : batch->skipped) {
                sources.push_back(s.source);
                QCOMPARE(s.reason, std::string("cannot decode (corrupt data)"));
            }
            for (auto i : batch->sampleIndices)
                QVERIFY(!dataset->badIndices.contains(i));
        }
        std::sort(sources.begin(), sources.end());
        QCOMPARE(delivered + static_cast<std::int64_t>(sources.size()), std::int64_t{100});
        QCOMPARE(sources, (std::vector<std::string>{"sample-17.jpg", "sample-18.jpg",
                                                    "sample-3.jpg", "sample-99.jpg"}));
    }
}

void TestLoader::failPolicyStopsWithFileAndReason()
{
    auto dataset = probe(100);
    dataset->badIndices = {25};
    LoaderConfig c = config(2, 10);
    c.badSamples = BadSamplePolicy::Fail;
    Loader loader(dataset, c, steadyNowNs());
    loader.startEpoch(0);
    QVERIFY(loader.next());
    QVERIFY(loader.next());
    try {
        loader.next();
        QFAIL("expected LoadError");
    } catch (const LoadError &e) {
        QVERIFY(std::string(e.what()).find("sample-25.jpg") != std::string::npos);
        QVERIFY(std::string(e.what()).find("corrupt") != std::string::npos);
    }
}

void TestLoader::stopMidBatchIsPromptAndJoinsThreads()
{
    const int before = processThreadCount();
    auto dataset = probe(10'000);
    // A batch of 64 takes 6.4 s on one worker, 3.2 s on two sample-parallel.
    dataset->delay = [](std::int64_t) { return 100ms; };
    for (Strategy strategy : {Strategy::PerWorkerBatch, Strategy::SampleParallel}) {
        auto loader = std::make_unique<Loader>(dataset, config(2, 64, strategy), steadyNowNs());
        loader->startEpoch(0);
        QTRY_VERIFY(dataset->totalLoads() >= 4); // workers are mid-batch
        std::thread stopper([&] {
            std::this_thread::sleep_for(20ms);
            loader->stop();
        });
        QElapsedTimer timer;
        timer.start();
        QVERIFY_THROWS_EXCEPTION(LoaderStopped, loader->next());
        loader.reset(); // joins every thread
        stopper.join();
        // The sample under way (100 ms) and the joins, generous for a busy machine and
        // still far below the rest of a batch (3 s or more): workers abandoned their
        // batch mid-way.
        QVERIFY2(timer.elapsed() < 1'500, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(processThreadCount(), before);
    }
}

void TestLoader::resumeEpochAfterPartialDelivery()
{
    auto dataset = probe(300);
    LoaderConfig c = config(3, 16);
    c.shuffle = true;
    c.inOrder = false;
    std::vector<std::int64_t> seen;
    std::vector<std::int64_t> remaining;
    {
        Loader loader(dataset, c, steadyNowNs());
        loader.startEpoch(0);
        for (int i = 0; i < 5; ++i) {
            BatchPtr batch = loader.next();
            seen.insert(seen.end(), batch->sampleIndices.begin(), batch->sampleIndices.end());
        }
        remaining = loader.remainingIndices();
    }
    c.batchSize = 7;
    c.numWorkers = 1;
    Loader resumed(dataset, c, steadyNowNs());
    resumed.resumeEpoch(0, remaining);
    const Delivered rest = drain(resumed);
    seen.insert(seen.end(), rest.samples.begin(), rest.samples.end());
    std::sort(seen.begin(), seen.end());
    std::vector<std::int64_t> all(300);
    std::iota(all.begin(), all.end(), 0);
    QCOMPARE(seen, all);
}

void TestLoader::pinMemoryCopiesIntoPinnedBuffers()
{
    for (int workers : {0, 2}) {
        auto dataset = probe(64);
        LoaderConfig c = config(workers, 8);
        c.pinMemory = true;
        Loader loader(dataset, c, steadyNowNs());
        loader.startEpoch(0);
        int batches = 0;
        while (BatchPtr batch = loader.next()) {
            QVERIFY(batch->pinned());
            QVERIFY(batch->trace.pinEndNs >= batch->trace.pinStartNs);
            QVERIFY(batch->trace.pinStartNs > 0);
            const auto *values = reinterpret_cast<const float *>(batch->data().data());
            QCOMPARE(values[0], static_cast<float>(batches * 8));
            ++batches;
        }
        QCOMPARE(batches, 8);
    }
}

void TestLoader::nonPersistentWorkersEndWithEpoch()
{
    auto dataset = probe(64);
    for (bool persistent : {false, true}) {
        LoaderConfig c = config(3, 8);
        c.persistentWorkers = persistent;
        Loader loader(dataset, c, steadyNowNs());
        loader.startEpoch(0);
        drain(loader);
        QCOMPARE(loader.liveThreads(), persistent ? 3 : 0);
        loader.startEpoch(1);
        QCOMPARE(drain(loader).samples.size(), std::size_t{64});
    }
}

void TestLoader::aFailedPinFailsNext()
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    QSKIP("the sanitizers' own allocators need address space the limit takes away");
#else
    // Pinned memory that cannot be had: the pin thread's buffer (a batch of 64 x
    // 4 MiB) is mapped after the address space is capped 64 MiB above what the
    // process uses, while the batch it pins was built in a buffer mapped before.
    auto dataset = std::make_shared<GatedLargeDataset>();
    LoaderConfig c = config(1, 64);
    c.prefetchFactor = 1;
    c.pinMemory = true;
    Loader loader(dataset, c, steadyNowNs());
    loader.startEpoch(0); // batch 0 dispatched: its pageable buffer is mapped
    dataset->waitForALoad();
    rlimit old{};
    QCOMPARE(getrlimit(RLIMIT_AS, &old), 0);
    const rlimit tight{addressSpaceBytes() + (64ULL << 20), old.rlim_max};
    QCOMPARE(setrlimit(RLIMIT_AS, &tight), 0);
    dataset->open();
    const std::string outcome = nextUntilItFails(loader, 10s);
    QCOMPARE(setrlimit(RLIMIT_AS, &old), 0);
    QVERIFY2(outcome.starts_with("LoaderThreadError: the loader's pin thread failed: "),
             outcome.c_str());
    QVERIFY2(outcome.find("bad_alloc") != std::string::npos, outcome.c_str());
    // It stays failed: the batch the pin thread held will never arrive.
    QVERIFY_THROWS_EXCEPTION(LoaderThreadError, loader.next());
#endif
}

void TestLoader::aWorkerThatDiesFailsNext()
{
    for (Strategy strategy : {Strategy::PerWorkerBatch, Strategy::SampleParallel}) {
        auto dataset = std::make_shared<BrokenDescriptionDataset>();
        Loader loader(dataset, config(2, 4, strategy), steadyNowNs());
        loader.startEpoch(0);
        const std::string outcome = nextUntilItFails(loader, 10s);
        QVERIFY2(outcome.starts_with("LoaderThreadError: the loader's worker "), outcome.c_str());
        QVERIFY2(outcome.ends_with(" failed: description table corrupt"), outcome.c_str());
    }
}

LOADERLAB_GUILESS_TEST_MAIN(TestLoader)
#include "test_loader.moc"
