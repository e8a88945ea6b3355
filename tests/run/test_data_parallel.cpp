// Data-parallel runs (RunConfig::devices): DistributedSampler's sharding, one loader
// per rank, the ranks sharing one trace, and what the summary says about each rank.

#include "tests/support/probe_dataset.h"
#include "tests/support/thread_count.h"

#include "core/config/rank_config.h"
#include "core/engine/pytorch/pytorch_run.h"
#include "core/io/trace_csv.h"
#include "core/loader/loader.h"
#include "core/run/run_controller.h"
#include "core/system/clock.h"
#include "tests/support/test_main.h"

#include <QProcess>
#include <QtTest>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>

using namespace loaderlab;

namespace {

std::vector<std::int64_t> iota(std::int64_t n)
{
    std::vector<std::int64_t> v(static_cast<std::size_t>(n));
    std::iota(v.begin(), v.end(), 0);
    return v;
}

// DistributedSampler.__iter__ (drop_last=False), written as PyTorch writes it:
// indices += (indices * ceil(padding / len))[:padding]; indices[rank::ranks].
std::vector<std::int64_t> distributedSampler(std::vector<std::int64_t> indices, int rank, int ranks)
{
    const std::size_t n = indices.size();
    const std::size_t total = (n + ranks - 1) / ranks * ranks;
    const std::size_t padding = total - n;
    std::vector<std::int64_t> repeated;
    const std::size_t copies = (padding + n - 1) / n;
    for (std::size_t c = 0; c < copies; ++c)
        repeated.insert(repeated.end(), indices.begin(), indices.end());
    indices.insert(indices.end(), repeated.begin(), repeated.begin() + padding);
    std::vector<std::int64_t> out;
    for (std::size_t p = static_cast<std::size_t>(rank); p < total; p += ranks)
        out.push_back(indices[p]);
    return out;
}

std::vector<std::int64_t> delivered(Loader &loader)
{
    std::vector<std::int64_t> out;
    while (BatchPtr batch = loader.next())
        out.insert(out.end(), batch->sampleIndices.begin(), batch->sampleIndices.end());
    return out;
}

RunConfig dataParallel(int devices, int workers, int batch)
{
    RunConfig c;
    c.devices = devices;
    c.loader.numWorkers = workers;
    c.loader.batchSize = batch;
    c.warmupBatches = 0;
    return c;
}

} // namespace

class TestDataParallel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void shardsCoverEverySampleOnceWithPadding_data();
    void shardsCoverEverySampleOnceWithPadding();
    void shardsMatchPyTorchsDistributedSampler();
    void shardOfInvalidRankIsRefused();
    void loaderDeliversItsRanksShardInOrder();
    void shuffledShardsAreDisjointAndChangeWithTheEpoch();
    void runGivesEveryRankItsShard();
    void ranksShareOneTraceInTurn();
    void reconfigureReachesEveryRank();
    void stopIsPromptAndJoinsEveryRank();
    void failingRankStopsTheRunWithItsReason();
    void summaryHasEveryRank();
    void csvKeepsTheRankAndReadsOldFiles();
    void consumerGoesToTheRanksDevice();
};

void TestDataParallel::shardsCoverEverySampleOnceWithPadding_data()
{
    QTest::addColumn<int>("samples");
    QTest::addColumn<int>("ranks");
    QTest::newRow("divisible") << 12 << 3;
    QTest::newRow("padded by 2") << 10 << 3;
    QTest::newRow("padded by 3") << 101 << 4;
    QTest::newRow("more ranks than samples") << 3 << 8;
    QTest::newRow("one rank") << 7 << 1;
}

void TestDataParallel::shardsCoverEverySampleOnceWithPadding()
{
    QFETCH(int, samples);
    QFETCH(int, ranks);
    const auto order = epochOrder(samples, true, 42, 0);
    const std::size_t perRank = (static_cast<std::size_t>(samples) + ranks - 1) / ranks;
    std::map<std::int64_t, int> seen;
    for (int r = 0; r < ranks; ++r) {
        const auto part = shardOrder(order, {r, ranks});
        QCOMPARE(part.size(), perRank); // every rank the same number of steps
        for (auto i : part)
            ++seen[i];
    }
    // Every sample at least once; the padding repeats the order's head: samples
    // order[0 .. padding) once more (more often when ranks outnumber samples).
    QCOMPARE(seen.size(), static_cast<std::size_t>(samples));
    const std::size_t total = perRank * ranks;
    for (std::size_t p = 0; p < static_cast<std::size_t>(samples); ++p) {
        const std::size_t extra = (total - static_cast<std::size_t>(samples) + (samples - 1 - p))
                                  / static_cast<std::size_t>(samples);
        QCOMPARE(seen[order[p]], 1 + static_cast<int>(extra));
    }
}

void TestDataParallel::shardsMatchPyTorchsDistributedSampler()
{
    // The in-test transcription above, and PyTorch itself where it is installed.
    const auto order = iota(10);
    for (int r = 0; r < 3; ++r)
        QCOMPARE(shardOrder(order, {r, 3}), distributedSampler(order, r, 3));
    for (int r = 0; r < 8; ++r)
        QCOMPARE(shardOrder(iota(3), {r, 8}), distributedSampler(iota(3), r, 8));

#if defined(__SANITIZE_THREAD__)
    // QProcess's fork leaves TSan refusing every later thread of this process.
    QSKIP("ThreadSanitizer build: compared with the transcription only");
#endif
    const std::string problem = pytorchEngineProblem();
    if (!problem.empty())
        QSKIP(qPrintable(QStringLiteral("compared with the transcription only: ")
                         + QString::fromStdString(problem)));
    const QString python = QString::fromStdString(pytorchEnginePython());
    QProcess p;
    p.start(python, {QStringLiteral("-c"),
                     QStringLiteral("from torch.utils.data.distributed import DistributedSampler\n"
                                    "for r in range(3):\n"
                                    "    s = DistributedSampler(range(10), num_replicas=3, "
                                    "rank=r, shuffle=False)\n"
                                    "    print(' '.join(map(str, s)))\n")});
    QVERIFY(p.waitForFinished(120'000));
    QCOMPARE(p.exitCode(), 0);
    const QStringList lines = QString::fromUtf8(p.readAllStandardOutput()).trimmed().split(u'\n');
    QCOMPARE(lines.size(), 3);
    for (int r = 0; r < 3; ++r) {
        std::vector<std::int64_t> theirs;
        for (const QString &v : lines[r].split(u' '))
            theirs.push_back(v.toLongLong());
        QCOMPARE(shardOrder(order, {r, 3}), theirs);
    }
}

void TestDataParallel::shardOfInvalidRankIsRefused()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, shardOrder(iota(5), {3, 3}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, shardOrder(iota(5), {-1, 2}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, shardOrder(iota(5), {0, 0}));
}

void TestDataParallel::loaderDeliversItsRanksShardInOrder()
{
    auto dataset = std::make_shared<ProbeDataset>(100);
    // Uneven costs, so batches finish out of order inside the workers.
    dataset->delay = [](std::int64_t i) { return std::chrono::microseconds((i * 37) % 5 * 100); };
    LoaderConfig c;
    c.numWorkers = 3;
    c.batchSize = 8;
    for (int r = 0; r < 3; ++r) {
        Loader loader(dataset, c, steadyNowNs());
        loader.startEpoch(0, {r, 3});
        QCOMPARE(delivered(loader), shardOrder(iota(100), {r, 3}));
    }
}

void TestDataParallel::shuffledShardsAreDisjointAndChangeWithTheEpoch()
{
    auto dataset = std::make_shared<ProbeDataset>(90);
    LoaderConfig c;
    c.numWorkers = 2;
    c.batchSize = 7;
    c.shuffle = true;
    c.seed = 11;
    c.persistentWorkers = true;
    std::vector<std::vector<std::int64_t>> firstEpoch;
    for (int epoch = 0; epoch < 2; ++epoch) {
        std::vector<std::int64_t> all;
        for (int r = 0; r < 3; ++r) {
            Loader loader(dataset, c, steadyNowNs());
            loader.startEpoch(epoch, {r, 3});
            auto part = delivered(loader);
            // The same seed on every rank: one permutation, split.
            QCOMPARE(part, shardOrder(epochOrder(90, true, 11, epoch), {r, 3}));
            if (epoch == 0)
                firstEpoch.push_back(part);
            else
                QVERIFY(part != firstEpoch[static_cast<std::size_t>(r)]); // reshuffled
            all.insert(all.end(), part.begin(), part.end());
        }
        std::sort(all.begin(), all.end());
        QCOMPARE(all, iota(90)); // 90 = 3 x 30: no padding, every sample exactly once
    }
}

void TestDataParallel::runGivesEveryRankItsShard()
{
    // 100 samples over 3 ranks: 34 each, the padding loads samples 0 and 1 twice.
    auto dataset = std::make_shared<ProbeDataset>(100);
    RunController run;
    RunConfig c = dataParallel(3, 2, 5);
    c.epochs = 2;
    run.start(c, dataset);
    QVERIFY(run.waitForEnd(20'000));
    QCOMPARE(run.state(), RunState::Finished);
    for (std::int64_t i = 0; i < 100; ++i)
        QCOMPARE(dataset->loads(i), i < 2 ? 4 : 2);
    std::map<int, std::int64_t> samplesOf;
    std::map<int, int> batchesOf;
    for (const auto &r : run.trace()->records()) {
        samplesOf[r.rank] += r.samples;
        ++batchesOf[r.rank];
    }
    QCOMPARE(samplesOf.size(), std::size_t{3});
    for (int r = 0; r < 3; ++r) {
        QCOMPARE(samplesOf[r], std::int64_t{68}); // 2 epochs x 34
        QCOMPARE(batchesOf[r], 14);               // 2 x ceil(34 / 5)
    }
}

void TestDataParallel::ranksShareOneTraceInTurn()
{
    RunController run;
    RunConfig c = dataParallel(2, 1, 4);
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 1.0;
    run.start(c, std::make_shared<ProbeDataset>(64));
    QVERIFY(run.waitForEnd(20'000));
    const auto records = run.trace()->records();
    QCOMPARE(records.size(), std::size_t{16});
    std::map<int, int> count;
    for (std::size_t i = 0; i < records.size(); ++i) {
        QCOMPARE(records[i].index, static_cast<std::int64_t>(i)); // one index space
        // With synchronised steps no rank gets more than one batch ahead of another.
        ++count[records[i].rank];
        QVERIFY2(std::abs(count[0] - count[1]) <= 1, qPrintable(QString::number(i)));
    }
    QCOMPARE(count[0], 8);
    QCOMPARE(count[1], 8);
    // Worker spans carry their rank and the batch they belong to.
    for (const auto &span : run.trace()->spans())
        QCOMPARE(span.rank, records[static_cast<std::size_t>(span.batch)].rank);
}

void TestDataParallel::reconfigureReachesEveryRank()
{
    auto dataset = std::make_shared<ProbeDataset>(3000);
    RunController run;
    RunConfig c = dataParallel(3, 1, 10);
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 1.0;
    run.start(c, dataset);
    QTRY_VERIFY(run.trace()->size() >= 12);
    LoaderConfig changed = c.loader;
    changed.numWorkers = 2;
    changed.batchSize = 5;
    run.reconfigure(changed, c.consumer);
    QVERIFY(run.waitForEnd(30'000));
    QCOMPARE(run.state(), RunState::Finished);
    const auto markers = run.trace()->markers();
    QCOMPARE(markers.size(), std::size_t{1});
    QCOMPARE(markers[0].configVersion, 1);
    // Every rank switched: each rank's batches are version 0, then version 1, and
    // no sample was lost (3000 = 3 x 1000, no padding).
    std::map<int, int> lastVersion;
    std::map<int, std::int64_t> samplesOf;
    for (const auto &r : run.trace()->records()) {
        QVERIFY(r.configVersion >= lastVersion[r.rank]);
        lastVersion[r.rank] = r.configVersion;
        QVERIFY(r.samples <= (r.configVersion == 1 ? 5 : 10));
        samplesOf[r.rank] += r.samples;
    }
    for (int r = 0; r < 3; ++r) {
        QCOMPARE(lastVersion[r], 1);
        QCOMPARE(samplesOf[r], std::int64_t{1000});
    }
    for (std::int64_t i = 0; i < 3000; ++i)
        QCOMPARE(dataset->loads(i) >= 1, true);
    QCOMPARE(run.config().loader.numWorkers, 2);
}

void TestDataParallel::stopIsPromptAndJoinsEveryRank()
{
    const int before = processThreadCount();
    {
        RunController run;
        RunConfig c = dataParallel(4, 2, 4);
        c.epochs = 0;
        c.consumer.kind = ConsumerKind::Sleep;
        c.consumer.sleepPerBatchMs = 10'000.0; // every rank deep in a long step
        run.start(c, std::make_shared<ProbeDataset>(1000));
        QTRY_VERIFY(run.liveThreads() >= 4 + 4 * 2);
        QElapsedTimer timer;
        timer.start();
        run.stop();
        QVERIFY(run.waitForEnd(5'000));
        QVERIFY2(timer.elapsed() < 2'000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(run.state(), RunState::Stopped);
        QTRY_COMPARE(run.liveThreads(), 0);
    }
    QTRY_COMPARE(processThreadCount(), before);
}

void TestDataParallel::failingRankStopsTheRunWithItsReason()
{
    // Sample 50 belongs to rank 2 of 3 (50 mod 3); the fail policy ends the run.
    auto dataset = std::make_shared<ProbeDataset>(300);
    dataset->badIndices = {50};
    RunController run;
    RunConfig c = dataParallel(3, 1, 4);
    c.epochs = 0;
    c.loader.badSamples = BadSamplePolicy::Fail;
    run.start(c, dataset);
    QVERIFY(run.waitForEnd(20'000));
    QCOMPARE(run.state(), RunState::Failed);
    QVERIFY2(run.error().starts_with("rank 2: "), run.error().c_str());
    QVERIFY2(run.error().find("sample-50.jpg") != std::string::npos, run.error().c_str());
    QTRY_COMPARE(run.liveThreads(), 0);
}

void TestDataParallel::summaryHasEveryRank()
{
    RunController run;
    RunConfig c = dataParallel(3, 1, 8);
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 2.0;
    run.start(c, std::make_shared<ProbeDataset>(600));
    QVERIFY(run.waitForEnd(20'000));
    const RunSummary s = run.trace()->summary();
    QCOMPARE(s.ranks.size(), std::size_t{3});
    QCOMPARE(s.samples, std::int64_t{600});
    double total = 0.0;
    for (int r = 0; r < 3; ++r) {
        const auto &rank = s.ranks[static_cast<std::size_t>(r)];
        QCOMPARE(rank.rank, r);
        QCOMPARE(rank.samples, std::int64_t{200});
        QCOMPARE(rank.batches, std::int64_t{25});
        QVERIFY(rank.samplesPerSecMean > 0.0);
        QVERIFY(rank.inputBoundShare >= 0.0 && rank.inputBoundShare <= 1.0);
        total += rank.samplesPerSecMean;
    }
    // The run's throughput is every rank's steady samples over the window from the
    // first steady request of any rank to the last compute end of any rank; each
    // rank's own window lies inside it, so the ranks' rates add up to at least it.
    std::vector<int> seen(3, 0);
    std::int64_t steadySamples = 0;
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    std::int64_t last = std::numeric_limits<std::int64_t>::min();
    for (const auto &r : run.trace()->records()) {
        if (seen[static_cast<std::size_t>(r.rank)]++ < s.warmupBatches / 3)
            continue;
        steadySamples += r.samples;
        first = std::min(first, r.requestNs);
        last = std::max(last, r.computeEndNs);
    }
    const double expected = static_cast<double>(steadySamples)
                            / (static_cast<double>(last - first) / 1e9);
    QVERIFY2(std::abs(expected - s.samplesPerSecMean) < 1e-9 * expected,
             qPrintable(QStringLiteral("%1 vs %2").arg(expected).arg(s.samplesPerSecMean)));
    QVERIFY2(total >= s.samplesPerSecMean * (1.0 - 1e-12),
             qPrintable(QStringLiteral("%1 vs %2").arg(total).arg(s.samplesPerSecMean)));
    // One lane per rank's worker, rank-major.
    QCOMPARE(s.workerUtilisation.size(), std::size_t{3});

    // A one-device run has no per-rank part.
    RunController single;
    single.start(dataParallel(1, 1, 8), std::make_shared<ProbeDataset>(64));
    QVERIFY(single.waitForEnd(20'000));
    QVERIFY(single.trace()->summary().ranks.empty());
}

void TestDataParallel::csvKeepsTheRankAndReadsOldFiles()
{
    TraceRecord a;
    a.index = 0;
    a.samples = 4;
    a.rank = 2;
    a.requestNs = 10;
    a.deliveryNs = 25;
    a.syncStartNs = 30;
    a.syncEndNs = 42;
    a.exchangeEndNs = 57;
    std::stringstream out;
    writeTraceCsv(out, {a});
    const std::string text = out.str();
    QVERIFY(text.substr(0, text.find('\n'))
                .ends_with(",rank,sync_start_ns,sync_end_ns,exchange_end_ns"));
    const auto back = readTraceCsv(out, "round trip");
    QCOMPARE(back.size(), std::size_t{1});
    QCOMPARE(back[0].rank, 2);
    QCOMPARE(back[0].waitNs(), a.waitNs());
    QCOMPARE(back[0].syncWaitNs(), std::int64_t{12});
    QCOMPARE(back[0].exchangeNs(), std::int64_t{15});

    const auto withoutLast = [](std::string line, int columns) {
        for (int i = 0; i < columns; ++i)
            line.resize(line.rfind(','));
        return line;
    };
    const std::string header = text.substr(0, text.find('\n'));
    std::string row = text.substr(text.find('\n') + 1);
    row = row.substr(0, row.find('\n'));
    // A file from before the gradient exchange: 24 columns, no synchronisation.
    std::stringstream beforeSync(withoutLast(header, 3) + '\n' + withoutLast(row, 3) + '\n');
    const auto syncBack = readTraceCsv(beforeSync, "before-sync.csv");
    QCOMPARE(syncBack.size(), std::size_t{1});
    QCOMPARE(syncBack[0].rank, 2);
    QCOMPARE(syncBack[0].syncWaitNs(), std::int64_t{0});
    QCOMPARE(syncBack[0].exchangeNs(), std::int64_t{0});
    // A file from before data-parallel runs: 23 columns, every batch rank 0.
    std::stringstream old(withoutLast(header, 4) + '\n' + withoutLast(row, 4) + '\n');
    const auto oldBack = readTraceCsv(old, "old.csv");
    QCOMPARE(oldBack.size(), std::size_t{1});
    QCOMPARE(oldBack[0].rank, 0);
    QCOMPARE(oldBack[0].samples, 4);
    // An exchange that ends before its synchronisation is no batch LoaderLab measured.
    std::string bad = row;
    bad.replace(bad.rfind(','), std::string::npos, ",41");
    std::stringstream badFile(header + '\n' + bad + '\n');
    try {
        readTraceCsv(badFile, "bad.csv");
        QFAIL("an exchange ending before its synchronisation was read");
    } catch (const std::runtime_error &e) {
        QVERIFY2(std::string(e.what()).find("not in order") != std::string::npos, e.what());
    }
}

void TestDataParallel::consumerGoesToTheRanksDevice()
{
    ConsumerConfig cuda;
    cuda.kind = ConsumerKind::Model;
    cuda.model.device = "cuda";
    QCOMPARE(consumerForRank(cuda, 2, 4).model.device, std::string("cuda:2"));
    cuda.model.device = "cuda:1";
    QCOMPARE(consumerForRank(cuda, 2, 4).model.device, std::string("cuda:3"));
    ConsumerConfig cpu;
    cpu.kind = ConsumerKind::Model;
    cpu.model.device = "cpu";
    cpu.model.threads = 8;
    QCOMPARE(consumerForRank(cpu, 1, 4).model.threads, 2);
    cpu.model.threads = 2;
    QCOMPARE(consumerForRank(cpu, 1, 4).model.threads, 1); // at least one
    QCOMPARE(consumerForRank(cpu, 0, 1).model.threads, 2); // one rank: as configured
    ConsumerConfig sleep;
    sleep.kind = ConsumerKind::Sleep;
    sleep.sleepPerBatchMs = 7.0;
    QVERIFY(consumerForRank(sleep, 3, 4) == sleep);
}

LOADERLAB_GUILESS_TEST_MAIN(TestDataParallel)
#include "test_data_parallel.moc"
