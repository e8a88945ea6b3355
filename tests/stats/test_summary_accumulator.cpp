// SummaryAccumulator against the summary computed from the whole stored trace
// (reference_summary.cpp), on random traces with live reconfigurations, worker
// spans and warm-ups longer than the run; and QuantileSketch's bounds once it
// stops keeping values.

#include "core/stats/quantile_sketch.h"
#include "core/stats/summary_accumulator.h"
#include "reference_summary.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace loaderlab;

namespace {

struct Trace
{
    std::vector<TraceRecord> records;
    std::vector<WorkerSpan> spans;
    std::vector<int> workersByVersion;
};

// A run of `batches` batches whose config changes at random points (new worker
// count each time), with waits that spike every W batches as a real loader's do.
Trace randomTrace(std::mt19937_64 &rng, int batches)
{
    Trace t;
    std::uniform_int_distribution<int> workers(0, 6);
    std::uniform_int_distribution<std::int64_t> us(1, 20'000);
    std::uniform_int_distribution<int> percent(0, 99);
    t.workersByVersion.push_back(workers(rng));
    std::int32_t version = 0;
    std::int64_t now = 1'000;
    for (int i = 0; i < batches; ++i) {
        if (i > 0 && percent(rng) < 4) {
            ++version;
            t.workersByVersion.push_back(workers(rng));
        }
        const int w = t.workersByVersion.back();
        TraceRecord r;
        r.index = i;
        r.configVersion = version;
        r.samples = 1 + percent(rng) % 32;
        r.worker = w == 0 ? kConsumerThread : i % w;
        r.dispatchNs = now - us(rng) * 1'000;
        r.loadStartNs = r.dispatchNs + us(rng);
        r.loadEndNs = r.loadStartNs + us(rng) * 1'000;
        r.requestNs = now;
        r.deliveryNs = now + (w > 0 && i % w == 0 ? us(rng) * 1'000 : us(rng) * 10);
        if (percent(rng) < 30) {
            r.copyStartNs = r.deliveryNs;
            r.copyEndNs = r.copyStartNs + us(rng) * 100;
        }
        r.computeStartNs = std::max(r.deliveryNs, r.copyEndNs);
        r.computeEndNs = r.computeStartNs + us(rng) * 1'000;
        now = r.computeEndNs + us(rng) * 10;
        const int spans = w == 0 ? 1 : 1 + percent(rng) % w;
        for (int s = 0; s < spans; ++s)
            t.spans.push_back({i, w == 0 ? kConsumerThread : (r.worker + s) % w, 0, r.loadStartNs,
                               r.loadEndNs - s * 1'000});
        t.records.push_back(r);
    }
    return t;
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

#define COMPARE_FIGURE(field)                                                                      \
    QVERIFY2(near(actual.field, expected.field), qPrintable(QStringLiteral("%1: %2 vs %3 (%4)")    \
                                                                .arg(QLatin1String(#field))        \
                                                                .arg(actual.field, 0, 'g', 17)     \
                                                                .arg(expected.field, 0, 'g', 17)   \
                                                                .arg(context)))

void compareSegment(const SegmentSummary &actual, const SegmentSummary &expected,
                    const QString &context)
{
    QCOMPARE(actual.configVersion, expected.configVersion);
    QCOMPARE(actual.firstBatch, expected.firstBatch);
    QCOMPARE(actual.batches, expected.batches);
    QCOMPARE(actual.samples, expected.samples);
    QCOMPARE(actual.numWorkers, expected.numWorkers);
    COMPARE_FIGURE(seconds);
    COMPARE_FIGURE(samplesPerSecMean);
    COMPARE_FIGURE(samplesPerSecMedian);
    COMPARE_FIGURE(waitMeanMs);
    COMPARE_FIGURE(waitP95Ms);
    COMPARE_FIGURE(inputBoundShare);
    COMPARE_FIGURE(meanWorkerUtilisation);
    QCOMPARE(actual.workerUtilisation.size(), expected.workerUtilisation.size());
    for (std::size_t k = 0; k < actual.workerUtilisation.size(); ++k)
        QVERIFY(near(actual.workerUtilisation[k], expected.workerUtilisation[k]));
}

void compareSummary(const RunSummary &actual, const RunSummary &expected, const QString &context)
{
    QCOMPARE(actual.batches, expected.batches);
    QCOMPARE(actual.samples, expected.samples);
    QCOMPARE(actual.skippedSamples, expected.skippedSamples);
    QCOMPARE(actual.warmupBatches, expected.warmupBatches);
    QCOMPARE(actual.band, expected.band);
    COMPARE_FIGURE(wallSeconds);
    COMPARE_FIGURE(samplesPerSecMean);
    COMPARE_FIGURE(samplesPerSecMedian);
    COMPARE_FIGURE(firstBatchLatencyMs);
    COMPARE_FIGURE(waitP50Ms);
    COMPARE_FIGURE(waitP95Ms);
    COMPARE_FIGURE(waitP99Ms);
    COMPARE_FIGURE(waitMaxMs);
    COMPARE_FIGURE(waitMeanMs);
    COMPARE_FIGURE(computeMeanMs);
    COMPARE_FIGURE(copyMeanMs);
    COMPARE_FIGURE(inputBoundShare);
    COMPARE_FIGURE(meanWorkerUtilisation);
    QCOMPARE(actual.workerUtilisation.size(), expected.workerUtilisation.size());
    for (std::size_t k = 0; k < actual.workerUtilisation.size(); ++k)
        QVERIFY(near(actual.workerUtilisation[k], expected.workerUtilisation[k]));
    QCOMPARE(actual.segments.size(), expected.segments.size());
    for (std::size_t k = 0; k < actual.segments.size(); ++k)
        compareSegment(actual.segments[k], expected.segments[k],
                       context + QStringLiteral(", segment %1").arg(k));
}

} // namespace

class TestSummaryAccumulator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void matchesTheStoredTraceSummary();
    void everyPrefixMatches();
    void sketchIsExactUpToItsLimit();
    void sketchStaysWithinItsErrorPastTheLimit();
    void sketchMergeKeepsCountsAndBounds();
    void absurdRankIsBounded();
};

void TestSummaryAccumulator::matchesTheStoredTraceSummary()
{
    std::mt19937_64 rng(20261123);
    int checked = 0;
    for (int run = 0; run < 300; ++run) {
        const int batches = 1 + static_cast<int>(rng() % 400);
        const Trace t = randomTrace(rng, batches);
        for (const int warmup : {0, 1, 5, batches - 1, batches, batches + 7}) {
            const QString context =
                QStringLiteral("run %1, %2 batches, warm-up %3").arg(run).arg(batches).arg(warmup);
            const RunSummary expected = referenceSummarize(t.records, t.spans, t.workersByVersion,
                                                           warmup, 3);
            compareSummary(summarize(t.records, t.spans, t.workersByVersion, warmup, 3), expected,
                           context);
            if (QTest::currentTestFailed())
                return;
            ++checked;
        }
    }
    QCOMPARE(checked, 1800);
}

// The live summary after every batch is the summary of the trace so far: what the
// window and the headless progress see while the run goes on.
void TestSummaryAccumulator::everyPrefixMatches()
{
    std::mt19937_64 rng(7);
    const Trace t = randomTrace(rng, 120);
    SummaryAccumulator accumulator(4);
    std::size_t k = 0;
    for (std::size_t i = 0; i < t.records.size(); ++i) {
        const TraceRecord &r = t.records[i];
        accumulator.setWorkers(r.configVersion, t.workersByVersion[r.configVersion]);
        while (k < t.spans.size() && t.spans[k].batch == r.index)
            accumulator.addSpan(t.spans[k++]);
        accumulator.addRecord(r);
        const std::vector<TraceRecord> prefix(t.records.begin(),
                                              t.records.begin() + static_cast<long>(i) + 1);
        compareSummary(accumulator.summary(),
                       referenceSummarize(prefix, t.spans, t.workersByVersion, 4, 0),
                       QStringLiteral("after batch %1").arg(i));
        if (QTest::currentTestFailed())
            return;
    }
}

void TestSummaryAccumulator::sketchIsExactUpToItsLimit()
{
    std::mt19937_64 rng(1);
    std::lognormal_distribution<double> waits(1.0, 1.5);
    QuantileSketch sketch(1000);
    std::vector<double> values;
    for (int i = 0; i < 1000; ++i) {
        values.push_back(waits(rng));
        sketch.add(values.back());
    }
    QVERIFY(sketch.exact());
    for (const double q : {0.0, 1.0, 50.0, 95.0, 99.0, 100.0})
        QCOMPARE(sketch.quantile(q), percentile(values, q));
    sketch.add(1.0);
    QVERIFY(!sketch.exact());
}

void TestSummaryAccumulator::sketchStaysWithinItsErrorPastTheLimit()
{
    std::mt19937_64 rng(2);
    std::lognormal_distribution<double> waits(0.0, 2.0);
    QuantileSketch sketch(4096);
    std::vector<double> values;
    for (int i = 0; i < 200'000; ++i) {
        values.push_back(i % 97 == 0 ? 0.0 : waits(rng));
        sketch.add(values.back());
    }
    QVERIFY(!sketch.exact());
    QCOMPARE(sketch.count(), std::int64_t{200'000});
    QCOMPARE(sketch.max(), *std::max_element(values.begin(), values.end()));
    for (const double q : {0.5, 1.0, 10.0, 50.0, 90.0, 95.0, 99.0, 99.9, 100.0}) {
        const double exact = percentile(values, q);
        const double estimate = sketch.quantile(q);
        QVERIFY2(std::abs(estimate - exact) <= QuantileSketch::kRelativeError * exact + 1e-6,
                 qPrintable(QStringLiteral("p%1: %2 vs exact %3").arg(q).arg(estimate).arg(exact)));
    }
}

void TestSummaryAccumulator::sketchMergeKeepsCountsAndBounds()
{
    QuantileSketch a(10);
    QuantileSketch b(10);
    std::vector<double> values;
    for (int i = 1; i <= 30; ++i) {
        (i % 2 ? a : b).add(i * 1.5);
        values.push_back(i * 1.5);
    }
    a.merge(b);
    QCOMPARE(a.count(), std::int64_t{30});
    QCOMPARE(a.max(), 45.0);
    QCOMPARE(a.sum(), 697.5);
    for (const double q : {0.0, 50.0, 95.0, 100.0}) {
        const double exact = percentile(values, q);
        QVERIFY(std::abs(a.quantile(q) - exact) <= QuantileSketch::kRelativeError * exact);
    }
}

void TestSummaryAccumulator::absurdRankIsBounded()
{
    // A record's rank sizes the per-rank tallies: a corrupt one (a file read back)
    // must neither index past them nor allocate per rank it names.
    SummaryAccumulator acc(0, {1});
    for (const std::int32_t rank : {0, 1'000'000'000, INT32_MAX, -5, 1}) {
        TraceRecord r;
        r.index = acc.batches();
        r.worker = 0;
        r.samples = 4;
        r.rank = rank;
        r.requestNs = 1'000 * (r.index + 1);
        r.deliveryNs = r.requestNs + 10;
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.deliveryNs + 100;
        acc.addSpan({r.index, 0, rank, r.requestNs - 500, r.requestNs});
        acc.addRecord(r);
    }
    const RunSummary s = acc.summary();
    QCOMPARE(s.batches, std::int64_t{5});
    QCOMPARE(s.samples, std::int64_t{20});
    QCOMPARE(s.ranks.size(), std::size_t{64});
}

LOADERLAB_GUILESS_TEST_MAIN(TestSummaryAccumulator)
#include "test_summary_accumulator.moc"
