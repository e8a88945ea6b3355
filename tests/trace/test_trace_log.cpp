// TraceLog: one writer, concurrent readers that never see a half-written record.

#include "core/trace/trace_log.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

using namespace loaderlab;

class TestTraceLog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readersSeeCompleteRecordsWhileWriting();
    void spansMarkersAndSkipped();
    void memoryPerBatchIsAsDocumented();
    void retentionKeepsTheLastBatchesAndTheWholeSummary();
    void retentionReadersNeverSeeFreedChunks();
    void retentionRunsPastTheCapacity();
    void heldLogWaitsForItsReaderWithinBounds();
    void holdLetsAReaderIndexWhileTheWriterFrees();
    void retentionBoundsTheMarkers();
};

void TestTraceLog::readersSeeCompleteRecordsWhileWriting()
{
    TraceLog log;
    constexpr std::int64_t kCount = 200'000; // spans many chunks
    std::atomic<bool> done{false};
    std::atomic<std::int64_t> badReads{0};
    std::atomic<std::int64_t> reads{0};
    std::thread reader([&] {
        std::size_t seen = 0;
        while (!done.load() || seen < log.size()) {
            const std::size_t n = log.size();
            for (std::size_t i = seen; i < n; ++i) {
                const TraceRecord &r = log[i];
                // Every field of record i was written from i: a torn read would differ.
                if (r.index != static_cast<std::int64_t>(i) || r.requestNs != r.index * 3
                    || r.computeEndNs != r.index * 7)
                    ++badReads;
                ++reads;
            }
            seen = n;
        }
    });
    for (std::int64_t i = 0; i < kCount; ++i) {
        TraceRecord r;
        r.index = i;
        r.requestNs = i * 3;
        r.computeEndNs = i * 7;
        log.append(r);
    }
    done = true;
    reader.join();
    QCOMPARE(badReads.load(), std::int64_t{0});
    QCOMPARE(reads.load(), kCount);
    QCOMPARE(log.records(10, 13).size(), std::size_t{3});
    QCOMPARE(log.records(10, 13)[2].index, std::int64_t{12});
    QCOMPARE(log.records(kCount - 1).size(), std::size_t{1});
}

void TestTraceLog::spansMarkersAndSkipped()
{
    TraceLog log;
    log.appendSpan({3, 1, 0, 10, 20});
    log.addMarker({5, 100, MarkerKind::Reconfigure, 1, {{"loader.num_workers", "2", "4"}}, {}});
    for (int i = 0; i < 12'000; ++i)
        log.addSkipped({i, i, "f.jpg", "empty file"});
    QCOMPARE(log.spanCount(), std::size_t{1});
    QCOMPARE(log.spans()[0].worker, 1);
    QCOMPARE(log.markers()[0].changes[0].after, std::string("4"));
    log.addMarker({9, 200, MarkerKind::Epoch, 1, {}, "1"});
    QCOMPARE(log.markerCount(), std::size_t{2});
    QCOMPARE(log.markers(1).size(), std::size_t{1});
    QCOMPARE(log.markers(1)[0].kind, MarkerKind::Epoch);
    QVERIFY(log.markers(2).empty());
    // Every skipped sample counts; the detailed list is capped.
    QCOMPARE(log.skippedCount(), std::int64_t{12'000});
    QCOMPARE(log.skipped().size(), std::size_t{10'000});
}

void TestTraceLog::memoryPerBatchIsAsDocumented()
{
    // docs/architecture.md ("The trace log") and trace_log.h promise these sizes.
    QCOMPARE(sizeof(TraceRecord), std::size_t{184});
    QCOMPARE(sizeof(WorkerSpan), std::size_t{32});
}

namespace {

TraceRecord recordOf(std::int64_t i)
{
    TraceRecord r;
    r.index = i;
    r.samples = 2;
    r.requestNs = i * 10;
    r.deliveryNs = i * 10 + 4;
    r.computeStartNs = r.deliveryNs;
    r.computeEndNs = i * 10 + 10;
    return r;
}

} // namespace

void TestTraceLog::retentionKeepsTheLastBatchesAndTheWholeSummary()
{
    constexpr std::size_t kKeep = 10'000;
    constexpr std::int64_t kCount = 100'000;
    TraceLog kept(kKeep);
    TraceLog all;
    RunConfig config;
    config.warmupBatches = 3;
    config.loader.numWorkers = 1;
    kept.addConfigVersion({0, 0, 0, config});
    all.addConfigVersion({0, 0, 0, config});
    for (std::int64_t i = 0; i < kCount; ++i) {
        kept.appendSpan({i, 0, 0, i * 10, i * 10 + 5});
        kept.append(recordOf(i));
        all.appendSpan({i, 0, 0, i * 10, i * 10 + 5});
        all.append(recordOf(i));
    }
    QVERIFY(kept.retains());
    QCOMPARE(kept.size(), std::size_t{kCount});
    // At least the last kKeep batches, and no more than one chunk (4096) beyond them.
    QVERIFY(kept.firstKept() <= kCount - kKeep);
    QVERIFY(kept.firstKept() >= kCount - kKeep - 2 * 4096);
    const auto records = kept.records();
    QCOMPARE(records.size(), kCount - kept.firstKept());
    QCOMPARE(records.front().index, static_cast<std::int64_t>(kept.firstKept()));
    QCOMPARE(records.back().index, kCount - 1);
    QCOMPARE(kept.droppedRecords(), std::int64_t{0});
    // The summary covers every batch, the same as the log that kept them all.
    const RunSummary a = kept.summary();
    const RunSummary b = all.summary();
    QCOMPARE(a.batches, kCount);
    QCOMPARE(a.samples, 2 * kCount);
    QCOMPARE(a.samplesPerSecMean, b.samplesPerSecMean);
    QCOMPARE(a.waitP95Ms, b.waitP95Ms);
    QCOMPARE(a.meanWorkerUtilisation, b.meanWorkerUtilisation);
    QCOMPARE(a.warmupBatches, std::int64_t{3});
    QCOMPARE(b.samplesPerSecMean, summarize(all.records(), all.spans(), 1, 3, 0).samplesPerSecMean);
    QCOMPARE(all.firstKept(), std::size_t{0});
    QCOMPARE(all.records().size(), std::size_t{kCount});
}

// Readers copy while the writer frees old chunks: every copied record is whole.
void TestTraceLog::retentionReadersNeverSeeFreedChunks()
{
    TraceLog log(5'000);
    constexpr std::int64_t kCount = 300'000;
    std::atomic<bool> done{false};
    std::atomic<std::int64_t> badReads{0};
    std::atomic<std::int64_t> copies{0};
    std::thread reader([&] {
        while (!done.load()) {
            const std::size_t n = log.size();
            const auto tail = log.records(n > 3'000 ? n - 3'000 : 0, n);
            for (const TraceRecord &r : tail) {
                if (r.requestNs != r.index * 10 || r.computeEndNs != r.index * 10 + 10)
                    ++badReads;
            }
            ++copies;
        }
    });
    for (std::int64_t i = 0; i < kCount; ++i)
        log.append(recordOf(i));
    done = true;
    reader.join();
    QCOMPARE(badReads.load(), std::int64_t{0});
    QVERIFY(copies.load() > 0);
    QCOMPARE(log.size(), std::size_t{kCount});
}

// Indices go on past what a log without retention can hold: chunk slots are reused.
void TestTraceLog::retentionRunsPastTheCapacity()
{
    ChunkedLog<std::int64_t, 4, 8> ring(10);
    ChunkedLog<std::int64_t, 4, 8> bounded;
    for (std::int64_t i = 0; i < 1'000; ++i) {
        QVERIFY(ring.append(i));
        bounded.append(i);
    }
    QCOMPARE(ring.size(), std::size_t{1'000});
    QCOMPARE(bounded.size(), std::size_t{32});
    QVERIFY(ring.firstKept() <= 990);
    std::vector<std::int64_t> tail;
    ring.copyRange(0, 1'000, tail);
    QVERIFY(tail.size() >= 10 && tail.size() <= 16);
    for (std::size_t k = 0; k < tail.size(); ++k)
        QCOMPARE(tail[k], static_cast<std::int64_t>(ring.firstKept() + k));
}

// A log held for a reader (the CSV during a run) frees nothing the reader has not
// read, until the reader lags by more than `keepLast` beyond the kept elements.
void TestTraceLog::heldLogWaitsForItsReaderWithinBounds()
{
    ChunkedLog<std::int64_t, 4, 64> held(8, true);
    std::vector<std::int64_t> seen;
    std::size_t next = 0;
    for (std::int64_t i = 0; i < 1'000; ++i) {
        held.append(i);
        if (i % 13 == 12) { // a reader that falls behind the 8 kept, then catches up
            const std::size_t before = seen.size();
            held.copyRange(next, held.size(), seen);
            next += seen.size() - before;
            held.holdFrom(next);
        }
    }
    held.copyRange(next, held.size(), seen);
    QCOMPARE(seen.size(), std::size_t{1'000});
    for (std::size_t k = 0; k < seen.size(); ++k)
        QCOMPARE(seen[k], static_cast<std::int64_t>(k));

    // A reader that never moves: the oldest go anyway once it lags past 2 x 8.
    ChunkedLog<std::int64_t, 4, 64> stuck(8, true);
    for (std::int64_t i = 0; i < 1'000; ++i)
        stuck.append(i);
    QVERIFY(stuck.firstKept() > 0);
    QVERIFY2(stuck.size() - stuck.firstKept() <= 2 * 8 + 4,
             qPrintable(QString::number(stuck.size() - stuck.firstKept())));
}

// A view (the window's plots) reads the live log in place under hold(): every
// record from firstKept() on is whole while the writer frees older chunks, and the
// log still stays within about twice its keep.
void TestTraceLog::holdLetsAReaderIndexWhileTheWriterFrees()
{
    TraceLog log(5'000);
    constexpr std::int64_t kCount = 400'000;
    std::atomic<bool> done{false};
    std::atomic<std::int64_t> badReads{0};
    std::atomic<std::int64_t> reads{0};
    std::thread reader([&] {
        while (!done.load()) {
            auto hold = log.hold();
            const std::size_t n = log.size();
            for (std::size_t i = log.firstKept(); i < n; i += 97) {
                const TraceRecord &r = log[i];
                if (r.index != static_cast<std::int64_t>(i) || r.requestNs != r.index * 10
                    || r.computeEndNs != r.index * 10 + 10)
                    ++badReads;
                ++reads;
            }
            if (log.spanCount() > log.firstSpanKept()) {
                const WorkerSpan &span = log.span(log.firstSpanKept());
                if (span.startNs != span.batch * 10)
                    ++badReads;
            }
            hold = {};
            // A view reads between frames; this one reads far more often than 30 Hz.
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
    });
    for (std::int64_t i = 0; i < kCount; ++i) {
        log.appendSpan({i, 0, 0, i * 10, i * 10 + 5});
        log.append(recordOf(i));
    }
    done = true;
    reader.join();
    QCOMPARE(badReads.load(), std::int64_t{0});
    QVERIFY(reads.load() > 0);
    // The writer freed chunks all the same: the log stayed within twice its keep.
    QVERIFY2(log.size() - log.firstKept() <= 2 * 5'000 + 4'096,
             qPrintable(QString::number(log.size() - log.firstKept())));
    QVERIFY(log.spanCount() - log.firstSpanKept() <= 2 * 5'000 + 4'096);
}

// A dataset of a few samples marks an epoch every batch: a log with retention keeps
// the newest markers, counts all, and a reader that asks from an older index gets
// the held ones and where to go on.
void TestTraceLog::retentionBoundsTheMarkers()
{
    TraceLog log(kMinKeepBatches);
    TraceLog all;
    const std::size_t count = TraceLog::kKeptMarkers * 3 + 7;
    for (std::size_t i = 0; i < count; ++i) {
        TraceMarker marker;
        marker.batch = static_cast<std::int64_t>(i);
        marker.kind = MarkerKind::Epoch;
        log.addMarker(marker);
        all.addMarker(marker);
    }
    QCOMPARE(log.markerCount(), count);
    QCOMPARE(all.markerCount(), count);
    QCOMPARE(all.markers().size(), count);
    std::size_t next = 0;
    const std::vector<TraceMarker> held = log.markers(5, &next);
    QCOMPARE(held.size(), TraceLog::kKeptMarkers);
    QCOMPARE(held.front().batch, static_cast<std::int64_t>(count - TraceLog::kKeptMarkers));
    QCOMPARE(held.back().batch, static_cast<std::int64_t>(count - 1));
    QCOMPARE(next, count);
    QVERIFY(log.markers(next, &next).empty());
    QCOMPARE(log.markers(count - 2).size(), std::size_t{2});
}

LOADERLAB_GUILESS_TEST_MAIN(TestTraceLog)
#include "test_trace_log.moc"
