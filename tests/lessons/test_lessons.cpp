// Lessons: the wait pattern (dominant period, first batch) on traces built with a
// known answer, each verdict saying "seen" where the pattern is in the trace and
// "not seen" with the reason where it is not, the catalogue's presets and guided
// steps, and one lesson run for real through the loader.

#include "core/lessons/lesson.h"
#include "core/lessons/lesson_runner.h"

#include "core/tools/imagenette_generator.h"
#include "tests/support/image_folder.h"
#include "tests/support/lesson_traces.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <cmath>
#include <cstdio>
#include <random>
#include <set>

using namespace loaderlab;
using lessontrace::modelPhase;
using lessontrace::trace;

namespace {

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

// Epochs of `perEpoch` batches as non-persistent workers give them: each epoch's
// first batch waits `restartMs` (the workers start again), then a spike of 40 ms
// every `period` batches of the epoch over a noisy floor of about 1 ms.
std::vector<TraceRecord> epochTrace(int period, int perEpoch, int batches, double restartMs,
                                    unsigned seed = 1)
{
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> noise(0.5, 1.5);
    auto records = trace(batches, [&](int i) {
        const int inEpoch = i % perEpoch;
        if (inEpoch == 0)
            return restartMs;
        return (inEpoch % period == 0 ? 40.0 : 0.0) + noise(random);
    });
    for (auto &r : records)
        r.epoch = static_cast<std::int32_t>(r.index / perEpoch);
    return records;
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
    void periodIsReadWithinEpochs();
    void steadyFiguresLeaveTheFirstFillOut();
    void verdictsOverNoDataSayNoData();
    void modelTradeVerdictNeedsTheTrade();
    void catalogueIsComplete();
    void guidedStepsApplyOverThePreset();
    void lessonRunsThroughTheLoader();
    void storedPixelsAreTheDataAsStored();
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

void TestLessons::periodIsReadWithinEpochs()
{
    // 432 images at batch 32: 14 batches per epoch (the last one short). The restart
    // of each epoch is the strongest regular wait of all; read across epochs it made
    // the period 14 ("spikes every 14 batches"). Within epochs it is W.
    for (const int w : {2, 3}) {
        const WaitPattern p = analyzeWaits(epochTrace(w, 14, 60, 150.0), w);
        QCOMPARE(p.period, w);
        QCOMPARE(p.epochs, 5);
        QCOMPARE(p.epochStartMaxMs, 150.0);
        QVERIFY(p.laterMaxMs < 45.0); // the epoch starts are not later waits
        QCOMPARE(p.longestPeriod, (14 - w) / 3);
    }
    LessonVerdict v = periodVerdict(
        {phaseOf(2, epochTrace(2, 14, 60, 150.0)), phaseOf(3, epochTrace(3, 14, 60, 150.0, 5))});
    QVERIFY2(v.observed, v.text.c_str());
    QVERIFY2(!QString::fromStdString(v.text).contains(QStringLiteral("14 batches")),
             v.text.c_str());
    v = sampleParallelVerdict(
        {phaseOf(2, epochTrace(2, 14, 60, 150.0)), phaseOf(2, epochTrace(1, 14, 60, 150.0))});
    QVERIFY2(v.figures["per_worker_period"].get<int>() == 2, v.text.c_str());
    // The first batch against later waits: a later epoch's start is the same
    // restart, not "something slowed the loader mid-run".
    v = loaderlab::firstBatchVerdict({phaseOf(2, epochTrace(2, 14, 30, 150.0))});
    QVERIFY2(v.observed, v.text.c_str());
    QVERIFY(QString::fromStdString(v.text).contains(QStringLiteral("spans 3 epochs")));
    // Epochs of 4 batches cannot show a period of 2 (after the first round, 2
    // batches an epoch): the data's epochs, so the finding does not apply, and why.
    v = periodVerdict(
        {phaseOf(2, epochTrace(2, 4, 60, 150.0)), phaseOf(3, epochTrace(3, 4, 60, 150.0))});
    QVERIFY(!v.observed);
    QVERIFY(!v.applies);
    QCOMPARE(v.text, std::string("Does not apply to this data: in the phase \"2 workers\" the "
                                 "epochs are too short to show a period of 2 batches (about 4 "
                                 "batches per epoch; the period is read within each epoch, after "
                                 "its first 2 batches, and needs at least three periods there). "
                                 "Use a folder with more images or a smaller batch."));
    v = sampleParallelVerdict(
        {phaseOf(2, epochTrace(2, 4, 60, 150.0)), phaseOf(2, epochTrace(1, 4, 60, 150.0))});
    QVERIFY(!v.applies);
    QVERIFY2(v.text.starts_with("Does not apply to this data: in the phase \"2 workers\""),
             v.text.c_str());
    // A phase of 6 batches within one epoch is too short itself: no data, and the
    // finding may still apply to the data.
    v = periodVerdict({phaseOf(2, spiky(2, 6)), phaseOf(3, spiky(3))});
    QVERIFY(v.applies);
    QVERIFY2(v.text.starts_with("No data: in the phase \"2 workers\" the epochs are too short"),
             v.text.c_str());
    // Seen and not seen both apply.
    QVERIFY(periodVerdict({phaseOf(2, spiky(2)), phaseOf(3, spiky(3))}).applies);
    QVERIFY(periodVerdict({phaseOf(2, spiky(2)), phaseOf(3, spiky(2))}).applies);
}

void TestLessons::steadyFiguresLeaveTheFirstFillOut()
{
    // What a slow start looks like with 3 workers (prefetch 2): a new loader's first
    // fill (3 x 2 + 1 = 7 batches) waits 6-40 ms with no pattern, then the rounds
    // spike 5 ms every 3 batches over 0.5 ms.
    static constexpr double kFill[] = {100.0, 6.0, 18.0, 34.0, 40.0, 7.0, 25.0};
    const auto records = trace(60, [](int i) {
        if (i < 7)
            return kFill[i];
        return (i % 3 == 0 ? 5.0 : 0.0) + 0.5;
    });
    QCOMPARE(loaderFirstFillBatches(3, 2), std::int64_t{7});
    QCOMPARE(loaderFirstFillBatches(0, 2), std::int64_t{1});
    const WaitPattern p = analyzeWaits(records, 3, loaderFirstFillBatches(3, 2));
    // The steady figures are those of the rounds (batches 7..59); the later waits keep
    // the fill (batches 1..59), whose waits of 18-40 ms make their 95th percentile.
    QCOMPARE(p.steadyMedianMs, 0.5);
    QCOMPARE(p.steadyP95Ms, 5.5);
    QVERIFY(p.p95Ms > 15.0);
    // Without a fill to leave out, the steady figures start after the first round,
    // and batches 3..6 of the fill (34, 40, 7, 25 ms) are in them.
    QVERIFY(analyzeWaits(records, 3).steadyP95Ms > 7.0);
    // Only the records' first epoch holds the fill: a later epoch leaves out its
    // start-up round alone (here 30 ms at batches 31 and 32, after the restart).
    auto epochs = trace(60, [](int i) {
        if (i < 7)
            return kFill[i];
        if (i == 31 || i == 32)
            return 30.0;
        return (i % 3 == 0 ? 5.0 : 0.0) + 0.5;
    });
    for (auto &r : epochs)
        r.epoch = r.index < 30 ? 0 : 1;
    const WaitPattern twoEpochs = analyzeWaits(epochs, 3, 7);
    QCOMPARE(twoEpochs.steadyP95Ms, 5.5);
    // The lesson's phases read it so: the phase's loader settings say the fill.
    QCOMPARE(phaseOf(3, records).waits.steadyP95Ms, 5.5);
}

void TestLessons::verdictsOverNoDataSayNoData()
{
    // A folder of corrupt images: batches arrive, empty, every sample skipped.
    auto empty = spiky(2);
    for (auto &r : empty) {
        r.skipped = r.samples;
        r.samples = 0;
    }
    for (const Lesson &l : lessons()) {
        std::vector<LessonPhaseResult> phases;
        for (std::size_t i = 0; i < l.phases.size(); ++i)
            phases.push_back(phaseOf(2, empty));
        const LessonVerdict v = l.verdict(phases);
        QVERIFY2(!v.observed, l.name.c_str());
        QVERIFY2(QString::fromStdString(v.text).startsWith(QStringLiteral("No data: ")),
                 (l.name + ": " + v.text).c_str());
        QVERIFY2(QString::fromStdString(v.text).contains(QStringLiteral("skipped")),
                 v.text.c_str());
        QVERIFY2(!QString::fromStdString(v.text).contains(QStringLiteral("every 0")),
                 v.text.c_str());
    }
    // A phase with no batches at all, and one with too few.
    LessonVerdict v = periodVerdict({phaseOf(2, {}), phaseOf(3, spiky(3))});
    QVERIFY2(QString::fromStdString(v.text).startsWith(QStringLiteral("No data: ")),
             v.text.c_str());
    v = loaderlab::firstBatchVerdict({phaseOf(2, spiky(2, 2))});
    QVERIFY2(QString::fromStdString(v.text).startsWith(QStringLiteral("No data: ")),
             v.text.c_str());
    // A phase that failed before delivering a sample.
    LessonPhaseResult failed = phaseOf(2, {});
    failed.error = "the run delivered nothing";
    v = loaderlab::firstBatchVerdict({failed});
    QVERIFY2(QString::fromStdString(v.text).startsWith(QStringLiteral("No data: ")),
             v.text.c_str());
    QVERIFY(QString::fromStdString(v.text).contains(QStringLiteral("the run delivered nothing")));
}

namespace {

// The model lesson's four phases, of 8 batches each.
std::vector<LessonPhaseResult> trade(double checkpointStepMs, double checkpointPeakMiB)
{
    return {modelPhase("float32", false, 1000.0, 2000.0, 8),
            modelPhase("bf16", false, 1500.0, 1900.0, 8),
            modelPhase("channels-last", false, 1100.0, 2100.0, 8),
            modelPhase("checkpointing", true, checkpointStepMs, checkpointPeakMiB, 8)};
}

} // namespace

void TestLessons::modelTradeVerdictNeedsTheTrade()
{
    // As measured for resnet50 training at 3x128x128, batch 32: 1.56x the time for
    // 0.73x the memory. Seen.
    LessonVerdict v = modelTradeVerdict(trade(1560.0, 1460.0));
    QVERIFY2(v.observed, v.text.c_str());
    QVERIFY2(QString::fromStdString(v.text).startsWith(
                 QStringLiteral("Seen: activation checkpointing took 1.56x the fp32 step time "
                                "for 0.73x its peak memory")),
             v.text.c_str());
    QCOMPARE(v.figures["checkpointing_peak_memory_ratio"].get<double>(), 0.73);
    // As measured for resnet18 at 3x64x64, batch 16: 1.37x *more* memory. Not seen.
    v = modelTradeVerdict(trade(1450.0, 2740.0));
    QVERIFY(!v.observed);
    QVERIFY2(QString::fromStdString(v.text).startsWith(QStringLiteral("Not seen: ")),
             v.text.c_str());
    QVERIFY(QString::fromStdString(v.text).contains(QStringLiteral("1.37x its peak memory")));
    QVERIFY(QString::fromStdString(v.text).contains(QStringLiteral("it saved no memory")));
    // Less memory at no cost in time: not the trade either.
    v = modelTradeVerdict(trade(1010.0, 1400.0));
    QVERIFY(!v.observed);
    QVERIFY2(QString::fromStdString(v.text).contains(QStringLiteral("it cost no time")),
             v.text.c_str());
    QVERIFY(!QString::fromStdString(v.text).contains(QStringLiteral("saved no memory")));
    // No checkpointing phase ran: no data.
    auto phases = trade(1560.0, 1460.0);
    phases.pop_back();
    v = modelTradeVerdict(phases);
    QVERIFY(!v.observed);
    QVERIFY2(QString::fromStdString(v.text).startsWith(QStringLiteral("No data: ")),
             v.text.c_str());
    // The preset is one where the trade shows on a 2-core machine (docs/lessons.md).
    const Lesson *l = findLesson("model-trade");
    const RunConfig c = lessonPhaseConfig(*l, RunConfig{}, 3);
    QCOMPARE(c.consumer.model.name, std::string("resnet50"));
    QVERIFY(c.consumer.model.checkpointing);
    QCOMPARE(c.consumer.model.mode, ModelMode::Train);
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
          "zero-vs-one-worker", "more-workers-than-cores", "sample-parallel", "model-trade",
          "predict-then-watch", "more-devices", "what-limits"})
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
    // Whether the pattern shows depends on the machine (the verdict's thresholds are
    // checked on scripted traces in test_lesson_verdicts); what the verdict says must
    // be this trace's figures, read here from the records themselves.
    const LessonVerdict v = l->verdict(phases);
    const auto &records = phases[0].records;
    double stepMs = 0.0;
    for (const TraceRecord &r : records)
        stepMs += static_cast<double>(r.computeNs()) / 1e6;
    stepMs /= static_cast<double>(records.size());
    const QString text = QString::fromStdString(v.text);
    const auto fixed = [](double value, int digits) { // as printf writes it
        char out[64];
        std::snprintf(out, sizeof out, "%.*f", digits, value);
        return QString::fromLatin1(out);
    };
    const QString step = QStringLiteral(" against a %1 ms step").arg(fixed(stepMs, 0));
    QVERIFY2(text.contains(step), v.text.c_str());
    if (v.observed) {
        const double firstMs = static_cast<double>(records.front().waitNs()) / 1e6;
        QVERIFY2(
            text.startsWith(
                QStringLiteral("Seen: only the first batch waited (%1 ms)").arg(fixed(firstMs, 1))),
            v.text.c_str());
    } else {
        QVERIFY2(text.startsWith(QStringLiteral("Not seen: later batches still wait")),
                 v.text.c_str());
    }
    // A stop before the first phase runs nothing.
    std::stop_source stop;
    stop.request_stop();
    QVERIFY(runLesson(*l, RunConfig{}, stop.get_token()).empty());
}

LOADERLAB_GUILESS_TEST_MAIN(TestLessons)
void TestLessons::storedPixelsAreTheDataAsStored()
{
    // What tensors-vs-jpeg compares (a JPEG's pixels against a sample's): images of
    // short side 40 px and long side up to 4/3 of it, one of them corrupt (skipped);
    // a tensor file of 24x32 samples; nothing for generated data.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString folder = writeImageFolder(dir.filePath(QStringLiteral("photos")), 2, 20, 40, 40);
    QFile corrupt(folder + QStringLiteral("/")
                  + QDir(folder).entryList(QDir::Dirs | QDir::NoDotAndDotDot)[0]
                  + QStringLiteral("/corrupt.jpg"));
    QVERIFY(corrupt.open(QIODevice::WriteOnly));
    corrupt.write("not a JPEG");
    corrupt.close();
    RunConfig config;
    config.dataset.kind = DatasetKind::ImageFolder;
    config.dataset.path = folder.toStdString();
    const double photos = lessonPhaseResult("JPEG folder", config, {}, RunSummary{}).storedPixels;
    QVERIFY2(photos >= 40.0 * 40.0 && photos <= 40.0 * 53.0, std::to_string(photos).c_str());

    const std::string tensor = dir.filePath(QStringLiteral("samples.bin")).toStdString();
    generateTensorFile(tensor, 10, SampleShape{3, 24, 32}, DType::UInt8, 1);
    config.dataset.kind = DatasetKind::TensorFile;
    config.dataset.path = tensor;
    QCOMPARE(lessonPhaseResult("tensor file", config, {}, RunSummary{}).storedPixels, 24.0 * 32.0);

    QCOMPARE(lessonPhaseResult("generated", RunConfig{}, {}, RunSummary{}).storedPixels, 0.0);
}

#include "test_lessons.moc"
