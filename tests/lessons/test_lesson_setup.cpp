// A lesson set up on the chosen data (core/lessons/lesson_setup.h): the rule that
// picks the step and batch size from given measured costs, the figures read from a
// measuring run's records, the set-up's text and JSON figures word for word, the
// user's --set winning over the preset and the set-up, the verdict saying whether
// the user's step allowed the pattern, and one set-up measured through the real
// loader (its structure; what it measured depends on the machine).

#include "core/lessons/lesson_setup.h"
#include "tests/support/image_folder.h"
#include "tests/support/lesson_traces.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <QTemporaryDir>

using namespace loaderlab;

namespace {

RunConfig photos()
{
    RunConfig c;
    c.dataset.kind = DatasetKind::ImageFolder;
    c.dataset.path = "/data/photos";
    return c;
}

const Lesson &lesson(const char *name)
{
    const Lesson *l = findLesson(name);
    if (!l)
        qFatal("no lesson %s", name);
    return *l;
}

LessonSetup spikesSetup(const ConfigSettings &user = {}, double loadMs = 13.0)
{
    return lessonSetupFromRun(lesson("spikes-every-w"), photos(), user,
                              lessontrace::measuringRun(13, 3, 32, loadMs), 0.5);
}

} // namespace

class TestLessonSetup : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ruleLoaderLimits();
    void ruleStepHides();
    void ruleBatchForPeriods();
    void figuresFromRecords();
    void whichLessonsMeasure();
    void whenTheMeasuringRunHasEnough();
    void textAndFiguresOfASetUp();
    void shortEpochsMakeBatchesSmaller();
    void stepThatHidesLoading();
    void userSettingsWin();
    void verdictSaysWhetherTheUserStepAllowedIt();
    void failedMeasuringKeepsThePreset();
    void doesNotApplyWhereTheSetUpSaidSo();
    void lessonsOnATensorFile();
    void measuredThroughTheLoader();
};

void TestLessonSetup::ruleLoaderLimits()
{
    // A batch of 32 in 13 ms per worker, 2 workers: a batch every 6.5 ms, the step a
    // quarter of that, rounded down to 0.1 ms.
    LoaderMeasurement m;
    m.batchSize = 32;
    m.sampleLoadMs = 13.0 / 32;
    m.batchLoadMs = 13.0;
    StepChoice c = chooseLessonStep(StepNeed::LoaderLimits, false, 2, m, false);
    QCOMPARE(c.batchSize, 32);
    QVERIFY(!c.batchChanged);
    QCOMPARE(c.batchLoadMs, 13.0);
    QCOMPARE(c.intervalMs, 6.5);
    QCOMPARE(c.stepMs, 1.6);
    QVERIFY(c.readable);
    // 3 workers: a batch every 4.33 ms, a 1 ms step.
    QCOMPARE(chooseLessonStep(StepNeed::LoaderLimits, false, 3, m, false).stepMs, 1.0);
    // Never no step at all: 0.1 ms when the loader is faster than that.
    m.sampleLoadMs = 0.001;
    m.batchLoadMs = 0.032;
    QCOMPARE(chooseLessonStep(StepNeed::LoaderLimits, false, 2, m, false).stepMs, 0.1);
}

void TestLessonSetup::ruleStepHides()
{
    // A batch of 16 in 32 ms, 1 worker: three times that, in whole milliseconds.
    LoaderMeasurement m;
    m.batchSize = 16;
    m.sampleLoadMs = 2.0;
    m.batchLoadMs = 32.0;
    StepChoice c = chooseLessonStep(StepNeed::StepHides, false, 1, m, false);
    QCOMPARE(c.intervalMs, 32.0);
    QCOMPARE(c.stepMs, 96.0);
    // 2 workers, a batch of 32 in 3.2 ms: 4.8 ms rounded up.
    m.batchSize = 32;
    m.sampleLoadMs = 0.1;
    m.batchLoadMs = 3.2;
    QCOMPARE(chooseLessonStep(StepNeed::StepHides, false, 2, m, false).stepMs, 5.0);
    // No set-up: no step.
    QCOMPARE(chooseLessonStep(StepNeed::None, false, 2, m, false).stepMs, 0.0);
    // The slowest batch took 74 ms (2.3125 ms a sample) at a run's start: the step
    // hides that one too, three times 37 ms with 2 workers.
    m.slowestSampleLoadMs = 2.3125;
    const StepChoice slow = chooseLessonStep(StepNeed::StepHides, false, 2, m, false);
    QCOMPARE(slow.intervalMs, 1.6);
    QCOMPARE(slow.slowestIntervalMs, 37.0);
    QCOMPARE(slow.stepMs, 111.0);
    // A loader-limited step stays a quarter of the median's interval.
    QCOMPARE(chooseLessonStep(StepNeed::LoaderLimits, false, 2, m, false).stepMs, 0.4);
}

void TestLessonSetup::ruleBatchForPeriods()
{
    LoaderMeasurement m;
    m.batchSize = 32;
    m.sampleLoadMs = 2.0;
    m.batchLoadMs = 64.0;
    // 50 samples: 2 batches of 32 per epoch; a period of 3 needs 13: batch 4
    // (13 batches), 8 ms per batch, a batch every 2.67 ms, a 0.6 ms step.
    m.epochSamples = 50;
    StepChoice c = chooseLessonStep(StepNeed::LoaderLimits, true, 3, m, false);
    QCOMPARE(c.batchSize, 4);
    QVERIFY(c.batchChanged);
    QCOMPARE(c.epochBatches, std::int64_t(13));
    QCOMPARE(c.batchLoadMs, 8.0);
    QCOMPARE(c.stepMs, 0.6);
    QVERIFY(c.readable);
    // 48 samples: batch 3 at most, and 3 samples of 0.2 ms are too little for spikes:
    // the batch is kept, and the choice says why the period may not show.
    m.epochSamples = 48;
    m.sampleLoadMs = 0.2;
    m.batchLoadMs = 6.4;
    c = chooseLessonStep(StepNeed::LoaderLimits, true, 3, m, false);
    QCOMPARE(c.batchSize, 32);
    QVERIFY(!c.readable);
    QCOMPARE(c.problem, std::string("an epoch of 48 samples makes the 13 batches a period of 3 "
                                    "needs only at batch 3 or less, and such a batch loads in "
                                    "0.60 ms, too little for spikes to stand out"));
    // The user's batch is kept.
    m.epochSamples = 50;
    m.sampleLoadMs = 2.0;
    m.batchLoadMs = 64.0;
    c = chooseLessonStep(StepNeed::LoaderLimits, true, 3, m, true);
    QCOMPARE(c.batchSize, 32);
    QVERIFY(!c.readable);
    QCOMPARE(c.problem, std::string("at batch 32 an epoch of 50 samples holds 2 batches, fewer "
                                    "than the 13 a period of 3 needs"));
    // 10 samples cannot make 13 batches.
    m.epochSamples = 10;
    c = chooseLessonStep(StepNeed::LoaderLimits, true, 3, m, false);
    QVERIFY(!c.readable);
    QCOMPARE(c.problem,
             std::string("an epoch of 10 samples cannot make the 13 batches a period of 3 needs"));
    // Long epochs of small samples: a batch of 32 in 1 ms is made larger, to 64
    // (2 ms), a batch every 1 ms with 2 workers, a 0.2 ms step.
    m.epochSamples = 0;
    m.sampleLoadMs = 0.03125;
    m.batchLoadMs = 1.0;
    c = chooseLessonStep(StepNeed::LoaderLimits, true, 2, m, false);
    QCOMPARE(c.batchSize, 64);
    QCOMPARE(c.batchLoadMs, 2.0);
    QCOMPARE(c.stepMs, 0.2);
    // Only a period lesson's batch changes.
    QCOMPARE(chooseLessonStep(StepNeed::LoaderLimits, false, 2, m, false).batchSize, 32);
    // No epoch ended in the measuring run, which read 416 samples (13 batches of 32,
    // 3 workers): an epoch may hold no more, and 13 batches of 64 need 769. Batch 34
    // at most, too small for spikes: the batch is kept, and the choice says why.
    m.samplesSeen = 416;
    c = chooseLessonStep(StepNeed::LoaderLimits, true, 3, m, false);
    QCOMPARE(c.batchSize, 32);
    QVERIFY(!c.readable);
    QCOMPARE(c.problem, std::string("a batch of 32 loads in 1.00 ms, too little for spikes to "
                                    "stand out, and a batch of 64 that would (2.00 ms) may leave "
                                    "an epoch fewer than the 13 batches a period of 3 needs (the "
                                    "measuring run read 416 samples and no epoch ended)"));
    // An epoch of 432 samples, known: the same, said of the epoch.
    m.epochSamples = 432;
    c = chooseLessonStep(StepNeed::LoaderLimits, true, 3, m, false);
    QCOMPARE(c.batchSize, 32);
    QCOMPARE(c.problem, std::string("a batch of 32 loads in 1.00 ms, too little for spikes to "
                                    "stand out, and a batch of 64 that would (2.00 ms) leaves an "
                                    "epoch of 432 samples fewer than the 13 batches a period of 3 "
                                    "needs"));
    // A run that read 832 samples without an epoch's end leaves room for batch 64.
    m.epochSamples = 0;
    m.samplesSeen = 832;
    c = chooseLessonStep(StepNeed::LoaderLimits, true, 3, m, false);
    QCOMPARE(c.batchSize, 64);
    QVERIFY(c.readable);
}

void TestLessonSetup::figuresFromRecords()
{
    // W = 2: the first round (100 ms each) left out; then 10 ms for 16 samples (the
    // epoch's last batch), 12 and 14 ms for 32, and a batch of unreadable files.
    std::vector<TraceRecord> records(6);
    const double loads[] = {100, 100, 10, 12, 14, 50};
    const int samples[] = {32, 32, 16, 32, 32, 0};
    const int epochs[] = {0, 0, 0, 1, 1, 1};
    std::int64_t now = 0;
    for (std::size_t i = 0; i < records.size(); ++i) {
        TraceRecord &r = records[i];
        r.index = static_cast<std::int64_t>(i);
        r.epoch = epochs[i];
        r.samples = samples[i];
        r.skipped = samples[i] == 0 ? 32 : 0;
        r.loadStartNs = now;
        r.loadEndNs = now + static_cast<std::int64_t>(loads[i] * 1e6);
        r.computeStartNs = r.loadEndNs;
        r.computeEndNs = r.loadEndNs + (i < 2 ? 0 : 2'000'000);
        now = r.computeEndNs;
    }
    const LoaderMeasurement m = measureLoader(records, 2, 32);
    QCOMPARE(m.workers, 2);
    QCOMPARE(m.batchSize, 32);
    // Per sample: 0.625, 0.375, 0.4375 ms; the unreadable batch left out.
    QCOMPARE(m.batches, std::int64_t(3));
    QCOMPARE(m.sampleLoadMs, 0.4375);
    QCOMPARE(m.batchLoadMs, 14.0);
    QCOMPARE(m.slowestSampleLoadMs, 0.625);
    QCOMPARE(m.epochSamples, std::int64_t(80));
    QCOMPARE(m.samplesSeen, std::int64_t(176)); // the unreadable batch's 32 too
    QCOMPARE(m.ownStepMs, 2.0);
    // Only the first round: read from it.
    records.resize(2);
    QCOMPARE(measureLoader(records, 2, 32).batchLoadMs, 100.0);
    QCOMPARE(measureLoader({}, 2, 32).batches, std::int64_t(0));
    QCOMPARE(setupBatches(1), std::int64_t(7));
    QCOMPARE(setupBatches(2), std::int64_t(9));
    QCOMPARE(setupBatches(3), std::int64_t(13));
}

void TestLessonSetup::whichLessonsMeasure()
{
    for (const char *name : {"spikes-every-w", "sample-parallel", "zero-vs-one-worker",
                             "slow-model", "predict-then-watch"})
        QVERIFY2(lessonMeasuresData(lesson(name)), name);
    for (const char *name : {"first-batch", "bigger-batches", "tensors-vs-jpeg",
                             "more-workers-than-cores", "model-trade", "more-devices"})
        QVERIFY2(!lessonMeasuresData(lesson(name)), name);
    // The measuring run: the phase that binds the condition (3 workers), no step,
    // batch per worker, at most 8 x setupBatches() batches for a lesson that reads
    // the median batch.
    const RunConfig m = lessonSetupRunConfig(lesson("spikes-every-w"), photos(), {});
    QCOMPARE(m.loader.numWorkers, 3);
    QCOMPARE(m.loader.batchSize, 32);
    QCOMPARE(m.consumer.kind, ConsumerKind::None);
    QCOMPARE(m.consumer.sleepPerBatchMs, 0.0);
    QCOMPARE(m.maxBatches, std::int64_t(8 * 13));
    QCOMPARE(m.dataset.path, std::string("/data/photos"));
    const RunConfig p = lessonSetupRunConfig(lesson("sample-parallel"), photos(), {});
    QCOMPARE(p.loader.numWorkers, 2);
    QCOMPARE(p.loader.strategy, Strategy::PerWorkerBatch);
    // A lesson whose step hides the loading measures setupBatches() only.
    const RunConfig z = lessonSetupRunConfig(lesson("zero-vs-one-worker"), photos(), {});
    QCOMPARE(z.loader.numWorkers, 1);
    QCOMPARE(z.maxBatches, std::int64_t(7));
}

void TestLessonSetup::whenTheMeasuringRunHasEnough()
{
    const Lesson &spikes = lesson("spikes-every-w");
    const RunConfig m = lessonSetupRunConfig(spikes, photos(), {});
    // 13 batches (3 workers) are not enough while they loaded in under 0.3 s: fast
    // data measures on, so that its median is not the start-up's.
    QVERIFY(!setupMeasuringDone(spikes, m, 13, 0.05));
    QVERIFY(!setupMeasuringDone(spikes, m, 12, 1.0));
    QVERIFY(setupMeasuringDone(spikes, m, 13, 0.3));
    // The cap, or the time limit, end it in any case.
    QVERIFY(setupMeasuringDone(spikes, m, 104, 0.05));
    QVERIFY(setupMeasuringDone(spikes, m, 2, kSetupSeconds));
    // A step-hiding lesson reads the slowest batch: its setupBatches() are enough.
    const Lesson &zero = lesson("zero-vs-one-worker");
    const RunConfig z = lessonSetupRunConfig(zero, photos(), {});
    QVERIFY(setupMeasuringDone(zero, z, 7, 0.01));
    QVERIFY(!setupMeasuringDone(zero, z, 6, 0.01));
}

void TestLessonSetup::textAndFiguresOfASetUp()
{
    const LessonSetup s = spikesSetup();
    QVERIFY(s.measured);
    QCOMPARE(s.need, StepNeed::LoaderLimits);
    QCOMPARE(s.text,
             std::string("Your images load a batch of 32 in 13.0 ms per worker with 3 workers at "
                         "once (measured: 10 batches of 32 in 0.5 s), so the loader delivers a "
                         "batch every 4.3 ms. The simulated step is set to 1.0 ms, about a "
                         "quarter of that, so that the loader stays the limit: the step waits "
                         "for each round of batches, and the waits show it."));
    QCOMPARE(s.stepMs, 1.0);
    QCOMPARE(s.chosenStepMs, 1.0);
    QVERIFY(s.conditionMet);
    QVERIFY(!s.userStep);
    const nlohmann::json &f = s.figures;
    QCOMPARE(f.at("need").get<std::string>(), std::string("loader-limits"));
    const nlohmann::json &measured = f.at("measured");
    QCOMPARE(measured.at("engine").get<std::string>(), std::string("loaderlab"));
    QCOMPARE(measured.at("workers").get<int>(), 3);
    QCOMPARE(measured.at("batch_size").get<int>(), 32);
    QCOMPARE(measured.at("batches").get<int>(), 10);
    QCOMPARE(measured.at("batch_load_ms").get<double>(), 13.0);
    QCOMPARE(measured.at("sample_load_ms").get<double>(), 13.0 / 32);
    QCOMPARE(measured.at("epoch_samples").get<int>(), 0);
    QCOMPARE(measured.at("seconds").get<double>(), 0.5);
    QCOMPARE(f.at("batch_size").get<int>(), 32);
    QCOMPARE(f.at("loader_interval_ms").get<double>(), 13.0 / 3);
    QCOMPARE(f.at("step_ms").get<double>(), 1.0);
    QCOMPARE(f.at("chosen"), nlohmann::json({{"consumer.sleep_per_batch_ms", 1.0}}));
    QCOMPARE(f.at("user_set"), nlohmann::json::object());
    QCOMPARE(f.at("condition_met").get<bool>(), true);
    QCOMPARE(f.at("readable").get<bool>(), true);
    // Every phase runs with the chosen step; the guided step is still the lesson's.
    const Lesson &l = lesson("spikes-every-w");
    for (std::size_t i = 0; i < 2; ++i) {
        const RunConfig c = lessonPhaseConfig(l, photos(), i, s);
        QCOMPARE(c.consumer.kind, ConsumerKind::Sleep);
        QCOMPARE(c.consumer.sleepPerBatchMs, 1.0);
        QCOMPARE(c.loader.batchSize, 32);
        QCOMPARE(c.loader.numWorkers, i == 0 ? 2 : 3);
    }
}

void TestLessonSetup::shortEpochsMakeBatchesSmaller()
{
    // 50 images, 2.0 ms a sample: epochs of 2 batches of 32 cannot show a period of 3.
    const LessonSetup s = lessonSetupFromRun(lesson("spikes-every-w"), photos(), {},
                                             lessontrace::measuringRun(13, 3, 32, 64.0, 50), 0.5);
    QCOMPARE(s.text,
             std::string("Your images make 2 batches of 32 per epoch (50 samples), too few to "
                         "show a period of 3: it is read within each epoch and needs 13 "
                         "batches there. The batch size is set to 4 (13 batches per epoch). "
                         "Your images load a batch of 4 in 8.0 ms per worker with 3 workers at "
                         "once (measured: 10 batches of 32 in 0.5 s), so the loader delivers a "
                         "batch every 2.7 ms. The simulated step is set to 0.6 ms, about a "
                         "quarter of that, so that the loader stays the limit: the step waits "
                         "for each round of batches, and the waits show it."));
    QCOMPARE(s.figures.at("chosen"),
             nlohmann::json({{"loader.batch_size", 4}, {"consumer.sleep_per_batch_ms", 0.6}}));
    QCOMPARE(s.figures.at("epoch_batches").get<int>(), 13);
    QCOMPARE(s.figures.at("measured").at("epoch_samples").get<int>(), 50);
    QCOMPARE(lessonPhaseConfig(lesson("spikes-every-w"), photos(), 1, s).loader.batchSize, 4);
}

void TestLessonSetup::stepThatHidesLoading()
{
    // 0 vs 1 worker on the default dataset: 1 worker, a batch of 16 in 32 ms.
    const LessonSetup s = lessonSetupFromRun(lesson("zero-vs-one-worker"), RunConfig{}, {},
                                             lessontrace::measuringRun(7, 1, 16, 32.0), 1.0);
    QCOMPARE(s.text,
             std::string("The default dataset's images load a batch of 16 in 32.0 ms per worker "
                         "with 1 worker (measured: 6 batches of 16 in 1.0 s), so the loader "
                         "delivers a batch every 32.0 ms. The simulated step is set to 96 ms, "
                         "about three times that, so that the workers keep ahead of the step "
                         "and loading is hidden behind it."));
    QCOMPARE(s.figures.at("need").get<std::string>(), std::string("step-hides"));
    for (std::size_t i = 0; i < 2; ++i) {
        const RunConfig c = lessonPhaseConfig(lesson("zero-vs-one-worker"), RunConfig{}, i, s);
        QCOMPARE(c.consumer.sleepPerBatchMs, 96.0);
        QCOMPARE(c.loader.numWorkers, static_cast<int>(i));
    }
    // Small images, 2 workers: 4.8 ms a batch of 32, but the three batches after
    // the first round took 74 ms (a run's start): the step hides those, and the
    // text says why it is so long.
    std::vector<TraceRecord> slowStart = lessontrace::measuringRun(9, 2, 32, 4.8);
    for (std::size_t i = 2; i < 5; ++i)
        slowStart[i].loadEndNs = slowStart[i].loadStartNs + 74'000'000;
    const LessonSetup slow = lessonSetupFromRun(lesson("slow-model"), photos(), {}, slowStart, 0.2);
    QCOMPARE(slow.text,
             std::string("Your images load a batch of 32 in 4.8 ms per worker with 2 workers at "
                         "once (measured: 7 batches of 32 in 0.2 s), so the loader delivers a "
                         "batch every 2.4 ms. Its slowest batch after the first round took 74.0 "
                         "ms per worker (the first rounds of a run load slower), a batch every "
                         "37.0 ms: the simulated step is set to 111 ms, about three times that, "
                         "so that the workers keep ahead of the step even then and loading is "
                         "hidden behind it."));
    QCOMPARE(slow.stepMs, 111.0);
    QCOMPARE(slow.figures.at("loader_interval_ms").get<double>(), 2.4);
    QCOMPARE(slow.figures.at("slowest_interval_ms").get<double>(), 37.0);
    QCOMPARE(slow.figures.at("measured").at("slowest_sample_load_ms").get<double>(), 74.0 / 32);
}

void TestLessonSetup::userSettingsWin()
{
    // --set consumer.sleep_per_batch_ms=10 and loader.num_workers=6: the step is the
    // user's, measured against; the workers are the lesson's guided step.
    const ConfigSettings user = {{"consumer.sleep_per_batch_ms", 10.0}, {"loader.num_workers", 6}};
    const LessonSetup s = spikesSetup(user);
    QVERIFY(s.changes.empty());
    QVERIFY(s.userStep);
    QVERIFY(!s.conditionMet);
    QCOMPARE(s.stepMs, 10.0);
    QCOMPARE(s.chosenStepMs, 1.0);
    QCOMPARE(s.text,
             std::string("Your images load a batch of 32 in 13.0 ms per worker with 3 workers at "
                         "once (measured: 10 batches of 32 in 0.5 s), so the loader delivers a "
                         "batch every 4.3 ms. You set the simulated step to 10.0 ms, and the "
                         "lesson keeps it: it is not shorter than the loader's time per batch, "
                         "so the step, not the loader, is the limit and the pattern may not "
                         "show (the lesson would have chosen 1.0 ms). Your --set of "
                         "loader.num_workers is not used: the lesson's guided steps set it."));
    QCOMPARE(s.figures.at("user_set"),
             nlohmann::json({{"consumer.sleep_per_batch_ms", 10.0}, {"loader.num_workers", 6}}));
    QCOMPARE(s.figures.at("user_step").get<bool>(), true);
    QCOMPARE(s.figures.at("chosen"), nlohmann::json::object());
    QCOMPARE(s.figures.at("condition_met").get<bool>(), false);
    const Lesson &l = lesson("spikes-every-w");
    for (std::size_t i = 0; i < 2; ++i) {
        const RunConfig c = lessonPhaseConfig(l, photos(), i, s);
        QCOMPARE(c.consumer.kind, ConsumerKind::Sleep);
        QCOMPARE(c.consumer.sleepPerBatchMs, 10.0);
        QCOMPARE(c.loader.numWorkers, i == 0 ? 2 : 3);
    }
    // Without a set-up the user's settings still win over the preset.
    LessonSetup only;
    only.userSettings = {{"consumer.sleep_per_batch_ms", 5.0}, {"loader.batch_size", 8}};
    const RunConfig first = lessonPhaseConfig(lesson("first-batch"), photos(), 0, only);
    QCOMPARE(first.consumer.sleepPerBatchMs, 5.0);
    QCOMPARE(first.loader.batchSize, 8);
    // The user's batch is measured with and kept, even where epochs are short.
    const ConfigSettings batch = {{"loader.batch_size", 16}};
    QCOMPARE(lessonSetupRunConfig(l, photos(), batch).loader.batchSize, 16);
    const LessonSetup kept = lessonSetupFromRun(
        l, photos(), batch, lessontrace::measuringRun(13, 3, 16, 32.0, 50), 0.5);
    QCOMPARE(lessonPhaseConfig(l, photos(), 0, kept).loader.batchSize, 16);
    QCOMPARE(kept.figures.at("readable").get<bool>(), false);
}

void TestLessonSetup::verdictSaysWhetherTheUserStepAllowedIt()
{
    LessonVerdict notSeen;
    notSeen.text = "Not seen as expected: no regular spikes.";
    QCOMPARE(
        lessonVerdictWithSetup(notSeen, spikesSetup({{"consumer.sleep_per_batch_ms", 10.0}})).text,
        std::string("Not seen as expected: no regular spikes. Your step of 10.0 ms was not "
                    "shorter than the loader's 4.3 ms per batch as measured before the "
                    "first phase: your setting did not allow the pattern. Without --set "
                    "for the step the lesson would have chosen 1.0 ms."));
    LessonVerdict seen;
    seen.observed = true;
    seen.text = "Seen: spikes.";
    QCOMPARE(lessonVerdictWithSetup(seen, spikesSetup({{"consumer.sleep_per_batch_ms", 2.0}})).text,
             std::string("Seen: spikes. Your step of 2.0 ms was shorter than the loader's 4.3 ms "
                         "per batch as measured before the first phase, as the pattern needs: "
                         "your setting allowed it."));
    QCOMPARE(
        lessonVerdictWithSetup(notSeen, spikesSetup({{"consumer.sleep_per_batch_ms", 2.0}})).text,
        std::string("Not seen as expected: no regular spikes. Your step of 2.0 ms was "
                    "shorter than the loader's 4.3 ms per batch as measured before the "
                    "first phase: your setting allowed the pattern, so something else kept "
                    "it from showing (above)."));
    // The lesson's own choice: said when the pattern did not show; "No data" and a
    // seen pattern are left as they are.
    QCOMPARE(lessonVerdictWithSetup(notSeen, spikesSetup()).text,
             std::string("Not seen as expected: no regular spikes. (The set-up chose a 1.0 ms "
                         "step for the loader's 4.3 ms per batch, measured before the first "
                         "phase.)"));
    QCOMPARE(lessonVerdictWithSetup(seen, spikesSetup()).text, seen.text);
    LessonVerdict noData;
    noData.text = "No data: the phase \"2 workers\" delivered no batches.";
    QCOMPARE(
        lessonVerdictWithSetup(noData, spikesSetup({{"consumer.sleep_per_batch_ms", 10.0}})).text,
        noData.text);
}

void TestLessonSetup::failedMeasuringKeepsThePreset()
{
    const Lesson &l = lesson("spikes-every-w");
    const LessonSetup failed = lessonSetupFromRun(l, photos(), {}, {}, 0.1, "it broke");
    QVERIFY(!failed.measured);
    QVERIFY(failed.changes.empty());
    QCOMPARE(failed.text, std::string("Your images could not be measured (it broke): the lesson "
                                      "keeps its preset, a 10.0 ms step."));
    QCOMPARE(failed.figures.at("error").get<std::string>(), std::string("it broke"));
    QCOMPARE(lessonPhaseConfig(l, photos(), 0, failed).consumer.sleepPerBatchMs, 10.0);
    QCOMPARE(lessonSetupFromRun(l, RunConfig{}, {}, {}, 30.0).text,
             std::string("The default dataset's images could not be measured (no batch was "
                         "loaded within 30 s): the lesson keeps its preset, a 10.0 ms step."));
    // Batches of unreadable files only.
    std::vector<TraceRecord> skipped = lessontrace::measuringRun(13, 3, 32, 13.0);
    for (TraceRecord &r : skipped) {
        r.skipped = r.samples;
        r.samples = 0;
    }
    QCOMPARE(lessonSetupFromRun(l, photos(), {}, skipped, 0.5).text,
             std::string("Your images could not be measured (no sample of its first batches "
                         "could be read): the lesson keeps its preset, a 10.0 ms step."));
    // Nothing measured, nothing added to the verdict.
    LessonVerdict v;
    v.text = "Not seen as expected: no regular spikes.";
    QCOMPARE(lessonVerdictWithSetup(v, failed).text, v.text);
}

void TestLessonSetup::doesNotApplyWhereTheSetUpSaidSo()
{
    // 48 images of 0.2 ms a sample: 13 batches an epoch only at batch 3 or less,
    // 0.6 ms a batch: no batch size shows a period of 3 here.
    const Lesson &l = lesson("spikes-every-w");
    const LessonSetup s = lessonSetupFromRun(l, photos(), {},
                                             lessontrace::measuringRun(13, 3, 32, 6.4, 48), 0.5);
    QVERIFY(s.measured);
    QCOMPARE(s.figures.at("readable").get<bool>(), false);
    const std::string problem = "an epoch of 48 samples makes the 13 batches a period of 3 needs "
                                "only at batch 3 or less, and such a batch loads in 0.60 ms, too "
                                "little for spikes to stand out";
    QCOMPARE(s.figures.at("problem").get<std::string>(), problem);
    // Not seen: the finding does not apply to this data, and the verdict says why,
    // then what the phases showed.
    LessonVerdict notSeen;
    notSeen.text = "Not seen as expected: 2 workers: no regular spikes.";
    LessonVerdict v = lessonVerdictWithSetup(notSeen, s);
    QVERIFY(!v.observed);
    QVERIFY(!v.applies);
    QCOMPARE(v.text, "Does not apply to this data: the set-up found before the first phase "
                     "that "
                         + problem
                         + "; a folder with more images, or larger ones, shows it. What the "
                           "phases showed: Not seen as expected: 2 workers: no regular spikes.");
    // Seen all the same: it applied after all.
    LessonVerdict seen;
    seen.observed = true;
    seen.text = "Seen: spikes.";
    v = lessonVerdictWithSetup(seen, s);
    QVERIFY(v.applies);
    QCOMPARE(v.text, seen.text);
    // A verdict that already found the epochs too short gets the set-up's reason.
    LessonVerdict shortEpochs;
    shortEpochs.applies = false;
    shortEpochs.text = "Does not apply to this data: in the phase \"2 workers\" the epochs are "
                       "too short.";
    v = lessonVerdictWithSetup(shortEpochs, s);
    QVERIFY(!v.applies);
    QCOMPARE(v.text,
             shortEpochs.text + " The set-up found it before the first phase: " + problem + ".");
    // Phases without data say nothing of it: left as they are.
    LessonVerdict noData;
    noData.text = "No data: the phase \"2 workers\" delivered no batches.";
    v = lessonVerdictWithSetup(noData, s);
    QVERIFY(v.applies);
    QCOMPARE(v.text, noData.text);
    // The user's batch of 32 on 50 images: a smaller batch shows it.
    const ConfigSettings batch = {{"loader.batch_size", 32}};
    const LessonSetup kept = lessonSetupFromRun(
        l, photos(), batch, lessontrace::measuringRun(13, 3, 32, 64.0, 50), 0.5);
    v = lessonVerdictWithSetup(notSeen, kept);
    QVERIFY(!v.applies);
    QCOMPARE(v.text, std::string("Does not apply to this data: the set-up found before the first "
                                 "phase that at batch 32 an epoch of 50 samples holds 2 batches, "
                                 "fewer than the 13 a period of 3 needs; a smaller batch, or a "
                                 "folder with more images, shows it. What the phases showed: Not "
                                 "seen as expected: 2 workers: no regular spikes."));
    // Where the set-up found the data readable, "not seen" stays "not seen".
    v = lessonVerdictWithSetup(notSeen, spikesSetup());
    QVERIFY(v.applies);
    QVERIFY2(v.text.starts_with("Not seen as expected: "), v.text.c_str());
}

void TestLessonSetup::lessonsOnATensorFile()
{
    RunConfig tensor;
    tensor.dataset.kind = DatasetKind::TensorFile;
    tensor.dataset.path = "/data/photos.tensor";
    // Every lesson whose phases read the user's data runs them on the tensor file.
    for (const char *name :
         {"first-batch", "spikes-every-w", "slow-model", "bigger-batches", "zero-vs-one-worker",
          "more-workers-than-cores", "sample-parallel", "predict-then-watch"}) {
        const Lesson &l = lesson(name);
        QVERIFY2(lessonDataProblem(l, tensor).empty(), name);
        for (std::size_t i = 0; i < l.phases.size(); ++i) {
            const RunConfig c = lessonPhaseConfig(l, tensor, i);
            QCOMPARE(c.dataset.kind, DatasetKind::TensorFile);
            QCOMPARE(c.dataset.path, tensor.dataset.path);
        }
    }
    // The comparison needs the image folder; the model lesson its own samples.
    QCOMPARE(lessonDataProblem(lesson("tensors-vs-jpeg"), tensor),
             std::string("lesson tensors-vs-jpeg compares an image folder with the tensor file "
                         "preprocessed from it, so it needs the image folder; "
                         "/data/photos.tensor is a preprocessed tensor file"));
    QCOMPARE(lessonDataProblem(lesson("model-trade"), tensor),
             std::string("lesson model-trade runs on synthetic samples of its own (3x128x128), "
                         "not on /data/photos.tensor"));
    // Nor a pipeline file, though the lesson's first phase would read it as it is.
    RunConfig pipeline;
    pipeline.dataset.kind = DatasetKind::Python;
    pipeline.dataset.path = "/code/my_pipeline.py";
    QCOMPARE(lessonDataProblem(lesson("tensors-vs-jpeg"), pipeline),
             std::string("lesson tensors-vs-jpeg compares an image folder with the tensor file "
                         "preprocessed from it, so it needs the image folder; "
                         "/code/my_pipeline.py is a Python pipeline file"));
    QCOMPARE(lessonDataProblem(lesson("model-trade"), photos()),
             std::string("lesson model-trade runs on synthetic samples of its own (3x128x128), "
                         "not on /data/photos"));
    QCOMPARE(lessonDataProblem(lesson("more-devices"), photos()),
             std::string("lesson more-devices runs on synthetic samples of its own (3x64x64), "
                         "not on /data/photos"));
    // An image folder suits every other lesson; no path (the default dataset) all.
    for (const Lesson &l : lessons()) {
        if (l.name != "model-trade" && l.name != "more-devices")
            QVERIFY2(lessonDataProblem(l, photos()).empty(), l.name.c_str());
        QVERIFY2(lessonDataProblem(l, RunConfig{}).empty(), l.name.c_str());
    }
    // The set-up names what it measured.
    const LessonSetup s = lessonSetupFromRun(lesson("slow-model"), tensor, {},
                                             lessontrace::measuringRun(9, 2, 32, 4.0), 0.2);
    QVERIFY2(s.text.starts_with("Your tensor file's samples load a batch of 32 in 4.0 ms per "
                                "worker with 2 workers at once"),
             s.text.c_str());
}

void TestLessonSetup::measuredThroughTheLoader()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    RunConfig base;
    base.dataset.kind = DatasetKind::ImageFolder;
    base.dataset.path =
        writeImageFolder(dir.filePath(QStringLiteral("images")), 2, 40, 96, 160).toStdString();
    const Lesson &l = lesson("sample-parallel");
    const LessonSetup s = setUpLesson(l, base, {});
    QVERIFY2(s.measured, s.text.c_str());
    const nlohmann::json &measured = s.figures.at("measured");
    QCOMPARE(measured.at("workers").get<int>(), 2);
    QCOMPARE(measured.at("engine").get<std::string>(), std::string("loaderlab"));
    QVERIFY(measured.at("batches").get<int>() > 0);
    QVERIFY(measured.at("batch_load_ms").get<double>() > 0.0);
    // The step it chose is the one every phase runs with, and what the text names.
    const double step = s.figures.at("step_ms").get<double>();
    QVERIFY(step > 0.0);
    QCOMPARE(lessonPhaseConfig(l, base, 0, s).consumer.sleepPerBatchMs, step);
    char said[64];
    std::snprintf(said, sizeof said, "The simulated step is set to %.1f ms", step);
    QVERIFY2(s.text.find(said) != std::string::npos, s.text.c_str());
    // A lesson that measures nothing only carries the user's settings, and says which
    // it keeps over its preset.
    const LessonSetup none = setUpLesson(lesson("first-batch"), base,
                                         {{"consumer.sleep_per_batch_ms", 5.0}});
    QVERIFY(!none.measured);
    QCOMPARE(none.text, std::string("Your consumer.sleep_per_batch_ms = 5.0 (--set) is kept over "
                                    "the lesson's preset."));
    QCOMPARE(none.userSettings.size(), std::size_t(1));
    QVERIFY(setUpLesson(lesson("first-batch"), base, {}).text.empty());
}

LOADERLAB_GUILESS_TEST_MAIN(TestLessonSetup)
#include "test_lesson_setup.moc"
