// Lessons: the wait pattern (dominant period, first batch) on traces built with a
// known answer, each verdict saying "seen" where the pattern is in the trace and
// "not seen" with the reason where it is not, the catalogue's presets and guided
// steps, and one lesson run for real through the loader.

#include "core/lessons/lesson.h"
#include "core/lessons/lesson_runner.h"

#include <QtTest>

#include <cmath>
#include <random>
#include <set>

using namespace loaderlab;

namespace {

constexpr std::int64_t kMs = 1'000'000;

// Batches whose waits follow `waitMs(i)`, a 10 ms step, delivered back to back.
std::vector<TraceRecord> trace(int batches, const std::function<double(int)> &waitMs)
{
    std::vector<TraceRecord> records;
    std::int64_t t = 0;
    for (int i = 0; i < batches; ++i) {
        TraceRecord r;
        r.index = i;
        r.samples = 32;
        r.requestNs = t;
        r.deliveryNs = t + static_cast<std::int64_t>(waitMs(i) * kMs);
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.deliveryNs + 10 * kMs;
        r.loadStartNs = r.requestNs;
        r.loadEndNs = r.deliveryNs;
        t = r.computeEndNs;
        records.push_back(r);
    }
    return records;
}

// A first wait of 100 ms, then a spike of 40 ms every `period` batches over a noisy
// floor of about 1 ms.
std::vector<TraceRecord> spiky(int period, int batches = 60, unsigned seed = 1)
{
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> noise(0.5, 1.5);
    return trace(batches, [&](int i) {
        if (i == 0)
            return 100.0;
        return (i % period == 0 ? 40.0 : 0.0) + noise(random);
    });
}

LessonPhaseResult phaseOf(int workers, std::vector<TraceRecord> records, double samplesPerSec = 0)
{
    RunConfig c;
    c.loader.numWorkers = workers;
    RunSummary s;
    s.samplesPerSecMean = samplesPerSec;
    return lessonPhaseResult(std::to_string(workers) + " workers", c, std::move(records), s);
}

} // namespace

class TestLessons : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void dominantPeriodFindsWNot2W();
    void flatAndTinyWaitsHaveNoPeriod();
    void firstBatchVerdict();
    void periodVerdictFollowsW();
    void slowModelAndSampleParallelVerdicts();
    void catalogueIsComplete();
    void guidedStepsApplyOverThePreset();
    void lessonRunsThroughTheLoader();
};

void TestLessons::dominantPeriodFindsWNot2W()
{
    for (const int w : {2, 3, 4, 6}) {
        const WaitPattern p = analyzeWaits(spiky(w), w);
        QCOMPARE(p.period, w);
        QVERIFY(p.periodStrength > 0.5);
    }
    // A pure series: a spike every 5 with no noise.
    std::vector<double> series;
    for (int i = 0; i < 50; ++i)
        series.push_back(i % 5 == 0 ? 10.0 : 1.0);
    QCOMPARE(dominantPeriod(series, 16, 0.3), 5);
}

void TestLessons::flatAndTinyWaitsHaveNoPeriod()
{
    std::mt19937 random(7);
    std::uniform_real_distribution<double> noise(0.0, 3.0);
    QCOMPARE(analyzeWaits(trace(60, [&](int) { return noise(random); })).period, 0);
    QCOMPARE(analyzeWaits(trace(60, [](int) { return 2.0; })).period, 0);
    // A regular pattern of 0.1 ms: scheduling noise, not spikes.
    QCOMPARE(analyzeWaits(trace(60, [](int i) { return i % 2 ? 0.1 : 0.0; }), 2).period, 0);
    QCOMPARE(dominantPeriod({1.0, 2.0}, 16, 0.3), 0); // too short
}

void TestLessons::firstBatchVerdict()
{
    LessonVerdict v = loaderlab::firstBatchVerdict({phaseOf(2, spiky(2))});
    QVERIFY2(v.observed, v.text.c_str());
    QVERIFY(QString::fromStdString(v.text).contains(QStringLiteral("waited 100.0 ms")));
    // A later batch waiting longer: not seen, and the batch named.
    v = loaderlab::firstBatchVerdict(
        {phaseOf(2, trace(30, [](int i) { return i == 0 ? 50.0 : (i == 17 ? 80.0 : 1.0); }))});
    QVERIFY(!v.observed);
    QVERIFY2(QString::fromStdString(v.text).contains(QStringLiteral("batch 17 waited 80.0 ms")),
             v.text.c_str());
    // Waits as long as the first all along: only just.
    v = loaderlab::firstBatchVerdict(
        {phaseOf(2, trace(30, [](int i) { return i == 0 ? 50.0 : 45.0; }))});
    QVERIFY(!v.observed);
    QVERIFY(QString::fromStdString(v.text).startsWith(QStringLiteral("Only just")));
}

void TestLessons::periodVerdictFollowsW()
{
    LessonVerdict v = periodVerdict({phaseOf(2, spiky(2)), phaseOf(3, spiky(3))});
    QVERIFY2(v.observed, v.text.c_str());
    QCOMPARE(v.figures["phases"][1]["period"].get<int>(), 3);
    // The second phase still spikes every 2: W did not show.
    v = periodVerdict({phaseOf(2, spiky(2)), phaseOf(3, spiky(2, 60, 9))});
    QVERIFY(!v.observed);
    QVERIFY(QString::fromStdString(v.text).contains(QStringLiteral("3 workers: the wait spikes "
                                                                   "every 2 batches")));
    // A flat phase: no regular spikes, and what to change.
    v = periodVerdict({phaseOf(2, spiky(2)), phaseOf(3, trace(60, [](int) { return 0.01; }))});
    QVERIFY(!v.observed);
    QVERIFY(QString::fromStdString(v.text).contains(QStringLiteral("no regular spikes")));
    QVERIFY(QString::fromStdString(v.text).contains(QStringLiteral("Shorten the step")));
    // Too few phases (stopped) or a failed one.
    QVERIFY(!periodVerdict({phaseOf(2, spiky(2))}).observed);
}

void TestLessons::slowModelAndSampleParallelVerdicts()
{
    const auto hidden = trace(25, [](int i) { return i == 0 ? 90.0 : 0.01; });
    QVERIFY(slowModelVerdict({phaseOf(2, hidden)}).observed);
    QVERIFY(!slowModelVerdict({phaseOf(2, spiky(2))}).observed);

    std::mt19937 random(3);
    std::uniform_real_distribution<double> noise(30.0, 32.0);
    const auto even = trace(60, [&](int i) { return i == 0 ? 100.0 : noise(random); });
    QVERIFY(sampleParallelVerdict({phaseOf(2, spiky(2)), phaseOf(2, even)}).observed);
    QVERIFY(!sampleParallelVerdict({phaseOf(2, spiky(2)), phaseOf(2, spiky(2, 60, 4))}).observed);
}

void TestLessons::catalogueIsComplete()
{
    std::set<std::string> names;
    for (const Lesson &l : lessons()) {
        QVERIFY(names.insert(l.name).second);
        QVERIFY(!l.title.empty() && !l.explanation.empty() && !l.expected.empty());
        QVERIFY(!l.phases.empty() && l.verdict && l.preset);
        QVERIFY(l.phases.front().instruction.empty());
        for (std::size_t i = 1; i < l.phases.size(); ++i)
            QVERIFY2(!l.phases[i].instruction.empty(), l.name.c_str());
        for (std::size_t i = 0; i < l.phases.size(); ++i)
            QVERIFY(lessonPhaseConfig(l, RunConfig{}, i).maxBatches > 0);
        // A verdict on nothing says the lesson was stopped, and never "seen".
        QVERIFY(!l.verdict({}).observed);
    }
    for (const char *name :
         {"first-batch", "spikes-every-w", "slow-model", "bigger-batches", "tensors-vs-jpeg",
          "zero-vs-one-worker", "more-workers-than-cores", "sample-parallel", "model-trade"})
        QVERIFY2(findLesson(name), name);
    QVERIFY(!findLesson("no-such-lesson"));
}

void TestLessons::guidedStepsApplyOverThePreset()
{
    const Lesson *l = findLesson("spikes-every-w");
    RunConfig base;
    base.dataset.kind = DatasetKind::ImageFolder;
    base.dataset.path = "/data/photos";
    const RunConfig first = lessonPhaseConfig(*l, base, 0);
    const RunConfig second = lessonPhaseConfig(*l, base, 1);
    QCOMPARE(first.loader.numWorkers, 2);
    QCOMPARE(second.loader.numWorkers, 3);
    QCOMPARE(second.loader.batchSize, first.loader.batchSize);
    QCOMPARE(second.dataset.path, std::string("/data/photos")); // the user's folder is kept
    // A non-folder base gets the default dataset (its path filled in when run).
    QVERIFY(lessonPhaseConfig(*l, RunConfig{}, 0).dataset.path.empty());
    QCOMPARE(lessonPhaseConfig(*l, RunConfig{}, 0).dataset.kind, DatasetKind::ImageFolder);
}

void TestLessons::lessonRunsThroughTheLoader()
{
    // "slow-model" on a synthetic dataset would not be the lesson; on the default
    // dataset it is: 25 batches under a 150 ms step. The verdict is checked against
    // the trace it came from, so it holds on any machine.
    const Lesson *l = findLesson("slow-model");
    std::vector<std::size_t> started;
    const auto phases = runLesson(*l, RunConfig{}, {}, [&](const LessonProgress &p) {
        if (!p.result && p.note.empty())
            started.push_back(p.phase);
    });
    QCOMPARE(phases.size(), std::size_t{1});
    QCOMPARE(started, std::vector<std::size_t>{0});
    QVERIFY2(phases[0].error.empty(), phases[0].error.c_str());
    QCOMPARE(phases[0].records.size(), std::size_t{25});
    QVERIFY(phases[0].datasetBytes > 0);
    const LessonVerdict v = l->verdict(phases);
    const WaitPattern &w = phases[0].waits;
    QCOMPARE(v.observed,
             w.p95Ms <= 0.05 * w.meanStepMs && w.firstMs > 5.0 * std::max(w.p95Ms, 0.1));
    QVERIFY(!v.text.empty());
    // A stop before the first phase runs nothing.
    std::stop_source stop;
    stop.request_stop();
    QVERIFY(runLesson(*l, RunConfig{}, stop.get_token()).empty());
}

QTEST_GUILESS_MAIN(TestLessons)
#include "test_lessons.moc"
