// TraceLog: one writer, concurrent readers that never see a half-written record.

#include "core/trace/trace_log.h"

#include <QtTest>

#include <atomic>
#include <thread>

using namespace loaderlab;

class TestTraceLog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readersSeeCompleteRecordsWhileWriting();
    void spansMarkersAndSkipped();
    void memoryPerBatchIsAsDocumented();
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
    // docs/trace.md and trace_log.h promise these sizes.
    QCOMPARE(sizeof(TraceRecord), std::size_t{160});
    QCOMPARE(sizeof(WorkerSpan), std::size_t{32});
}

QTEST_GUILESS_MAIN(TestTraceLog)
#include "test_trace_log.moc"
