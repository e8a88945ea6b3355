// A torch.distributed run recorded rank by rank (core/io/rank_set.h): the ranks'
// files open, or are followed, as one data-parallel run laid out as LoaderLab's own
// `--devices N` runs are: times moved onto one time line by each rank's wall-clock
// start, one batch sequence over all ranks, the per-rank figures each rank's own;
// and a set whose files disagree is refused naming the file.

#include "core/engine/run_service.h"
#include "core/io/rank_set.h"
#include "core/io/run_follow.h"
#include "core/io/run_reader.h"
#include "core/io/trace_csv.h"

#include "tests/support/followed_run.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace loaderlab;
namespace fr = followed_run;
using followed_run::thrown;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

// Moved as a rank's start moves them: the durations stay, a stage not taken stays 0.
TraceRecord shifted(TraceRecord r, std::int64_t ns)
{
    for (std::int64_t *t :
         {&r.dispatchNs, &r.loadStartNs, &r.loadEndNs, &r.readyNs, &r.requestNs, &r.deliveryNs})
        *t += ns;
    for (auto [start, end] : {std::pair{&r.pinStartNs, &r.pinEndNs},
                              {&r.copyStartNs, &r.copyEndNs},
                              {&r.computeStartNs, &r.computeEndNs},
                              {&r.syncStartNs, &r.syncEndNs}}) {
        if (*start != 0 || *end != 0) {
            *start += ns;
            *end += ns;
        }
    }
    if (r.exchangeEndNs != 0)
        r.exchangeEndNs += ns;
    return r;
}

bool sameBatch(const TraceRecord &a, const TraceRecord &b)
{
    return a.epoch == b.epoch && a.worker == b.worker && a.samples == b.samples && a.rank == b.rank
           && a.dispatchNs == b.dispatchNs && a.loadStartNs == b.loadStartNs
           && a.loadEndNs == b.loadEndNs && a.readNs == b.readNs && a.readyNs == b.readyNs
           && a.pinStartNs == b.pinStartNs && a.pinEndNs == b.pinEndNs && a.requestNs == b.requestNs
           && a.deliveryNs == b.deliveryNs && a.computeStartNs == b.computeStartNs
           && a.computeEndNs == b.computeEndNs && a.syncStartNs == b.syncStartNs
           && a.syncEndNs == b.syncEndNs && a.exchangeEndNs == b.exchangeEndNs;
}

} // namespace

class TestRankSet : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void namesOfRanks();
    void setOpensAsADataParallelRun();
    void mergePlacesOnlyWhatIsCertain();
    void disagreeingSetIsRefused();
    void setFollowedWhileWritten();

private:
    QTemporaryDir m_dir;
    std::string path(const std::string &name) const
    {
        return m_dir.filePath(QString::fromStdString(name)).toStdString();
    }
    // A real 2-device run of LoaderLab, and its batches split into two ranks' files
    // as loaderlab_probe writes them (own indices from 0, own time 0).
    RunReport m_written;
    std::vector<TraceRecord> m_records;
};

void TestRankSet::initTestCase()
{
    RunConfig c;
    c.dataset.syntheticShape = {3, 16, 16};
    c.dataset.syntheticSamples = 8 * 80;
    c.loader.numWorkers = 2;
    c.loader.batchSize = 8;
    c.consumer.kind = ConsumerKind::Sleep;
    c.consumer.sleepPerBatchMs = 1.0;
    c.devices = 2;
    RunService service;
    service.start(c, RunOutputs{path("ddp.csv"), path("ddp.json"), {}});
    QVERIFY(service.wait(60'000));
    m_written = service.report();
    QVERIFY(service.writeOutputs(m_written).empty());
    m_records = loadTraceCsv(path("ddp.csv"));
    QCOMPARE(m_written.summary.ranks.size(), std::size_t{2});
}

void TestRankSet::namesOfRanks()
{
    const auto name = rankFileName("/data/runs/run.rank12.csv");
    QVERIFY(name);
    QCOMPARE(name->stem, std::string("/data/runs/run"));
    QCOMPARE(name->rank, 12);
    QCOMPARE(rankFileName("x/run.rank0.json")->rank, 0);
    QVERIFY(!rankFileName("x/run.csv"));
    QVERIFY(!rankFileName("x/run.rank.csv"));
    QVERIFY(!rankFileName("x/run.rank1.txt"));
    QVERIFY(!rankFileName("x/run.rank1x.csv"));
    QCOMPARE(rankCsvPath("x/run", 3), std::string("x/run.rank3.csv"));
}

void TestRankSet::setOpensAsADataParallelRun()
{
    // Rank 0 started 5 s before rank 1 by the wall clock: its own times are 5 s later
    // than the run's (its time 0 was earlier), rank 1's are the run's own.
    const std::int64_t start = 1'790'000'000 * kSecond;
    const std::int64_t own[2] = {5 * kSecond, 0};
    const std::string stem = path("set");
    for (int r = 0; r < 2; ++r) {
        std::vector<TraceRecord> rows;
        for (const TraceRecord &rec : m_records) {
            if (rec.rank != r)
                continue;
            rows.push_back(shifted(rec, own[r]));
            rows.back().index = static_cast<std::int64_t>(rows.size()) - 1;
        }
        saveTraceCsv(rankCsvPath(stem, r), rows);
        fr::writeJson(rankJsonPath(stem, r),
                      fr::summaryJson("finished", 2, r, start - own[r],
                                      static_cast<std::int64_t>(rows.size())));
    }
    // Either rank's file opens the set.
    const OpenedRun opened = openRankSet(rankJsonPath(stem, 1));
    QCOMPARE(openRankSet(rankCsvPath(stem, 0)).trace->size(), m_records.size());
    const TraceLog &trace = *opened.trace;
    QCOMPARE(trace.size(), m_records.size());
    QCOMPARE(opened.report.config.devices, 2);
    QCOMPARE(opened.report.state, std::string("finished"));
    // One batch sequence; each rank's batches in its order, moved by 5 s onto the
    // earliest start (rank 0's): every time is the run's own + 5 s.
    std::vector<std::size_t> next(2, 0);
    std::vector<std::vector<TraceRecord>> byRank(2);
    for (const TraceRecord &rec : m_records)
        byRank[static_cast<std::size_t>(rec.rank)].push_back(shifted(rec, 5 * kSecond));
    for (std::size_t i = 0; i < trace.size(); ++i) {
        const TraceRecord &got = trace[i];
        QCOMPARE(got.index, static_cast<std::int64_t>(i));
        auto &k = next[static_cast<std::size_t>(got.rank)];
        QVERIFY2(sameBatch(got, byRank[static_cast<std::size_t>(got.rank)][k]),
                 qPrintable(QStringLiteral("batch %1 (rank %2)").arg(i).arg(got.rank)));
        ++k;
    }
    QCOMPARE(next[0] + next[1], m_records.size());
    for (std::size_t s = 0; s < trace.spanCount(); ++s)
        QCOMPARE(trace.span(s).rank, trace[static_cast<std::size_t>(trace.span(s).batch)].rank);

    // The per-rank figures: the LoaderLab run's, and each rank's alone.
    const RunSummary &got = opened.report.summary;
    QCOMPARE(got.ranks.size(), std::size_t{2});
    QCOMPARE(got.workerUtilisation.size(), std::size_t{4});
    for (int r = 0; r < 2; ++r) {
        const RankSummary &want = m_written.summary.ranks[static_cast<std::size_t>(r)];
        const RankSummary &mine = got.ranks[static_cast<std::size_t>(r)];
        QCOMPARE(mine.batches, want.batches);
        QCOMPARE(mine.samples, want.samples);
        QCOMPARE(mine.samplesPerSecMean, want.samplesPerSecMean);
        QCOMPARE(mine.waitMeanMs, want.waitMeanMs);
        QCOMPARE(mine.inputBoundShare, want.inputBoundShare);
        const OpenedRun alone = openRun(rankCsvPath(stem, r), rankJsonPath(stem, r));
        const RankSummary &single = alone.report.summary.ranks.at(static_cast<std::size_t>(r));
        QCOMPARE(mine.samplesPerSecMean, single.samplesPerSecMean);
        QCOMPARE(mine.waitMeanMs, single.waitMeanMs);
        QCOMPARE(mine.inputBoundShare, single.inputBoundShare);
    }
    QCOMPARE(got.samples, m_written.summary.samples);
}

void TestRankSet::mergePlacesOnlyWhatIsCertain()
{
    // Rank 0's batches end at 10, 20, 30 ms (+ shift 0), rank 1's at 11, 21 ms in its
    // own time, started 5 ms later: 16, 26 ms on the set's time line.
    RankMerge merge(2);
    merge.setShift(1, 5'000'000);
    auto zero = fr::rows(0, 3, 0);
    auto one = fr::rows(0, 2, 1);
    merge.add(0, {zero[0], zero[1]}, "rank0");
    QVERIFY(merge.take().empty()); // rank 1 may still have a batch before them
    merge.add(1, {one[0]}, "rank1");
    // Up to rank 1's 16 ms every rank has spoken: rank 0's 10 ms and rank 1's 16 ms.
    auto placed = merge.take();
    QCOMPARE(placed.size(), std::size_t{2});
    QCOMPARE(placed[0].rank, 0);
    QCOMPARE(placed[0].index, std::int64_t{0});
    QCOMPARE(placed[1].rank, 1);
    QCOMPARE(placed[1].index, std::int64_t{1});
    QCOMPARE(placed[1].computeEndNs, one[0].computeEndNs + 5'000'000);
    merge.add(1, {one[1]}, "rank1");
    merge.add(0, {zero[2]}, "rank0");
    placed = merge.take(); // 20 (rank 0), 26 (rank 1); 30 waits for rank 1
    QCOMPARE(placed.size(), std::size_t{2});
    QCOMPARE(placed[0].rank, 0);
    QCOMPARE(placed[1].rank, 1);
    merge.end(1);
    placed = merge.take();
    QCOMPARE(placed.size(), std::size_t{1});
    QCOMPARE(placed[0].index, std::int64_t{4});
    QCOMPARE(merge.mergedIndex(1, 1), std::int64_t{3});
    QCOMPARE(merge.mergedIndex(0, 2), std::int64_t{4});
    QCOMPARE(merge.mergedIndex(0, 9), std::int64_t{5});
}

void TestRankSet::disagreeingSetIsRefused()
{
    const std::string stem = path("bad");
    for (int r = 0; r < 2; ++r) {
        fr::append(rankCsvPath(stem, r), traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 3, r)));
        fr::writeJson(rankJsonPath(stem, r), fr::summaryJson("finished", 2, r, 0, 3));
    }
    QCOMPARE(openRankSet(rankCsvPath(stem, 0)).trace->size(), std::size_t{6});
    const auto refused = [](const std::string &file, const std::string &opened, const char *why) {
        const QString what = thrown([&] { openRankSet(opened); });
        QVERIFY2(what.contains(QString::fromStdString(file)) && what.contains(QLatin1String(why)),
                 qPrintable(what));
    };
    // Rank 1 of a world of 3: the set's ranks disagree.
    fr::writeJson(rankJsonPath(stem, 1), fr::summaryJson("finished", 3, 1, 0, 3));
    refused(rankJsonPath(stem, 1), rankCsvPath(stem, 0), "world_size 3");
    refused(rankJsonPath(stem, 0), rankCsvPath(stem, 1), "world_size 2");
    fr::writeJson(rankJsonPath(stem, 1), fr::summaryJson("finished", 2, 1, 0, 3));
    // A third rank's file of another run under the same name.
    fr::writeJson(rankJsonPath(stem, 2), fr::summaryJson("finished", 3, 2, 0, 3));
    refused(rankJsonPath(stem, 2), rankCsvPath(stem, 0), "world_size 3");
    std::filesystem::remove(rankJsonPath(stem, 2));
    // A rank missing; a JSON without the probe; a row of another rank.
    std::filesystem::rename(rankJsonPath(stem, 1), path("aside.json"));
    refused(rankJsonPath(stem, 1), rankCsvPath(stem, 0), "no such file");
    fr::writeJson(rankJsonPath(stem, 1), fr::summaryJson("finished", 2));
    refused(rankJsonPath(stem, 1), rankCsvPath(stem, 0), "no \"probe\"");
    std::filesystem::rename(path("aside.json"), rankJsonPath(stem, 1));
    fr::append(rankCsvPath(stem, 1), fr::csvText(fr::rows(3, 1, 0)));
    refused(rankCsvPath(stem, 1), rankCsvPath(stem, 0), "line 5: rank 0 in the file of rank 1");
}

void TestRankSet::setFollowedWhileWritten()
{
    const std::string stem = path("live");
    const std::int64_t start = 1'790'000'000 * kSecond;
    // Rank 1 starts first; rank 0's JSON is not there yet.
    fr::writeJson(rankJsonPath(stem, 1), fr::summaryJson("running", 2, 1, start));
    RunFollow follow(rankCsvPath(stem, 1));
    QVERIFY(follow.isRankSet());
    QCOMPARE(follow.ranks(), 2);
    fr::append(rankCsvPath(stem, 1), traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 4, 1)));
    QCOMPARE(follow.poll(), std::int64_t{0}); // rank 0's start is not known yet
    fr::writeJson(rankJsonPath(stem, 0), fr::summaryJson("running", 2, 0, start + 2'000'000));
    fr::append(rankCsvPath(stem, 0), traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 2, 0)));
    // Rank 1's batches end at 11..41 ms, rank 0's at 12, 22 ms (moved by 2 ms): up to
    // 22 ms every rank has spoken.
    QCOMPARE(follow.poll(), std::int64_t{4});
    QVERIFY(follow.running());
    QCOMPARE((*follow.trace())[1].rank, 0);
    QCOMPARE((*follow.trace())[1].computeEndNs, std::int64_t{12'000'000});
    fr::append(rankCsvPath(stem, 0), fr::csvText(fr::rows(2, 3, 0)));
    QCOMPARE(follow.poll(), std::int64_t{3}); // up to rank 1's 41 ms
    QCOMPARE(follow.opened().report.summary.ranks.size(), std::size_t{2});

    // Both end; rank 1 failed.
    fr::writeJson(rankJsonPath(stem, 0), fr::summaryJson("finished", 2, 0, start + 2'000'000, 5));
    nlohmann::json failed = fr::summaryJson("failed", 2, 1, start, 4);
    failed["error"] = "CUDA out of memory";
    fr::writeJson(rankJsonPath(stem, 1), failed);
    QCOMPARE(follow.poll(), std::int64_t{2});
    QVERIFY(!follow.running());
    const OpenedRun run = follow.opened();
    QCOMPARE(run.trace->size(), std::size_t{9});
    QCOMPARE(run.report.state, std::string("failed"));
    QCOMPARE(run.report.error, std::string("rank 1: CUDA out of memory"));
    QCOMPARE(run.report.summary.ranks[0].batches, std::int64_t{5});
    QCOMPARE(run.report.summary.ranks[1].batches, std::int64_t{4});
    QCOMPARE(run.report.config.devices, 2);
}

LOADERLAB_GUILESS_TEST_MAIN(TestRankSet)
#include "test_rank_set.moc"
