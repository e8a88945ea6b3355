// LessonPanel and its LessonTracker on traces written here, whose phases and
// waits are known: which batches make each phase, when the panel waits for a step,
// what it asks the window to apply, and the verdict shown, word for word, as worked
// out by hand from the batches written; predict-then-watch's prediction on screen
// once its first phase ended, before the step is made; each phase's load on the
// machine from CPU samples the test scripts, taken when the phase is first seen
// running and when it is seen ended, and the verdict's re-prediction for it.

#include "core/lessons/lesson.h"
#include "core/system/cpu_load.h"
#include "core/trace/trace_log.h"
#include "tests/support/run_config_metatype.h"
#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"
#include "widgets/lessons/lesson_panel.h"

#include <QtTest>

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>

#include <cmath>

using namespace loaderlab;
using State = LessonTracker::State;

namespace {

RunConfig lessonConfig()
{
    RunConfig c;
    c.dataset.kind = DatasetKind::ImageFolder;
    c.dataset.path = "/data/images";
    c.loader.numWorkers = 5;
    c.loader.batchSize = 8;
    return c;
}

// Batches `count` more batches: a 10 ms step, and a wait that spikes (8 ms) on every
// `period`-th batch, ~0.1 ms otherwise; the first batch of a run waits 50 ms.
void appendBatches(TraceLog &log, int count, int period, std::int32_t version)
{
    static std::int64_t now = 0;
    for (int i = 0; i < count; ++i) {
        TraceRecord r;
        r.index = static_cast<std::int64_t>(log.size());
        r.worker = static_cast<std::int32_t>(r.index % std::max(period, 1));
        r.samples = 32;
        r.configVersion = version;
        const std::int64_t wait = r.index == 0            ? 50'000'000
                                  : r.index % period == 0 ? 8'000'000
                                                          : 100'000 + 1'000 * (r.index % 7);
        r.loadStartNs = now;
        r.loadEndNs = now + 20'000'000;
        r.requestNs = now;
        r.deliveryNs = now + wait;
        r.computeStartNs = r.deliveryNs;
        r.computeEndNs = r.deliveryNs + 10'000'000;
        now = r.computeEndNs;
        log.append(r);
        log.appendSpan({r.index, r.worker, 0, r.loadStartNs, r.loadEndNs});
    }
}

void addVersion(TraceLog &log, std::int32_t version, const RunConfig &config)
{
    log.addConfigVersion({version, static_cast<std::int64_t>(log.size()), 0, config});
}

// A 2-core machine whose CPU counters the test moves on (100 ticks a second a core):
// the samples the lesson tracker takes read its counters as they are.
struct FakeMachine
{
    CpuSample now;

    FakeMachine() { now.machine = ProcStatTimes{0, 0, 0, 0, 0, 0, 0, 0, 2}; }
    // `seconds` go by with this process busy `own` cores and other programs `other`.
    void advance(double seconds, double own, double other)
    {
        const auto ticks = [seconds](double cores) {
            return static_cast<std::uint64_t>(std::llround(cores * seconds * 100.0));
        };
        now.machine->user += ticks(own + other);
        now.machine->idle += ticks(2.0 - own - other);
        now.ownCpuSeconds += own * seconds;
        now.wallSeconds += seconds;
    }
};

} // namespace

class TestLessonPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<loaderlab::RunConfig>(); }
    void choosingShowsTheLesson();
    void phasesFollowTheTraceAndTheSteps();
    void aWrongStepKeepsWaiting();
    void aNewRunRestartsThePhase();
    void modelLessonNeedsAModel();
    void predictionShownOncePhaseOneEnded();
    void loadOfEachPhaseSampled();
};

void TestLessonPanel::choosingShowsTheLesson()
{
    LessonPanel panel;
    QVERIFY(!childNamed<QPushButton>(&panel, "startLessonButton")->isEnabled());
    QVERIFY(!panel.chooseLesson(QStringLiteral("no-such-lesson")));
    QVERIFY(panel.chooseLesson(QStringLiteral("spikes-every-w")));
    const Lesson *lesson = findLesson("spikes-every-w");
    QCOMPARE(panel.chosenLesson(), lesson);
    QCOMPARE(childNamed<QLabel>(&panel, "lessonTitle")->text(),
             QString::fromStdString(lesson->title));
    QCOMPARE(childNamed<QLabel>(&panel, "lessonExplanation")->text(),
             QString::fromStdString(lesson->explanation));
    QVERIFY(childNamed<QLabel>(&panel, "lessonExpected")
                ->text()
                .contains(QString::fromStdString(lesson->expected)));
    QVERIFY(childNamed<QLabel>(&panel, "lessonSteps")
                ->text()
                .contains(QStringLiteral("Now set workers to 3.")));
    QVERIFY(childNamed<QPushButton>(&panel, "startLessonButton")->isEnabled());
    QVERIFY(!childNamed<QPushButton>(&panel, "applyStepButton")->isEnabled());
    QCOMPARE(panel.tracker().state(), State::Idle);
}

void TestLessonPanel::phasesFollowTheTraceAndTheSteps()
{
    LessonPanel panel;
    panel.setConfigSource(lessonConfig);
    QSignalSpy started(&panel, &LessonPanel::startRequested);
    QSignalSpy step(&panel, &LessonPanel::stepRequested);
    QSignalSpy finished(&panel, &LessonPanel::finished);
    QVERIFY(panel.chooseLesson(QStringLiteral("spikes-every-w")));
    childNamed<QPushButton>(&panel, "startLessonButton")->click();

    // The preset over the side panel's settings, to run until the lesson ends.
    QCOMPARE(started.size(), 1);
    const auto preset = started.at(0).at(0).value<RunConfig>();
    QCOMPARE(preset.loader.numWorkers, 2);
    QCOMPARE(preset.loader.batchSize, 32);
    QCOMPARE(preset.consumer.sleepPerBatchMs, 10.0);
    QCOMPARE(preset.maxBatches, std::int64_t(0));
    QCOMPARE(preset.dataset.path, std::string("/data/images")); // the user's folder kept
    QCOMPARE(panel.tracker().state(), State::Running);

    auto log = std::make_shared<TraceLog>();
    addVersion(*log, 0, preset);
    panel.setTrace(log);
    appendBatches(*log, 30, 2, 0);
    panel.refresh();
    QCOMPARE(panel.tracker().phase(), std::size_t(0));
    QCOMPARE(panel.tracker().phaseBatches(), std::int64_t(30));
    QVERIFY(
        childNamed<QLabel>(&panel, "lessonProgress")->text().contains(QStringLiteral("30 of 60")));
    QVERIFY(panel.verdictText().isEmpty()); // no verdict before the last phase

    appendBatches(*log, 40, 2, 0); // 10 more than the phase needs
    panel.refresh();
    QCOMPARE(panel.tracker().state(), State::WaitingForStep);
    QCOMPARE(panel.tracker().phase(), std::size_t(1));
    QCOMPARE(panel.tracker().finishedPhases().size(), std::size_t(1));
    QCOMPARE(panel.tracker().finishedPhases()[0].records.size(), std::size_t(60));
    QCOMPARE(panel.tracker().finishedPhases()[0].waits.period, 2);
    QVERIFY(childNamed<QLabel>(&panel, "lessonProgress")
                ->text()
                .contains(QStringLiteral("Now set workers to 3.")));
    QVERIFY(childNamed<QPushButton>(&panel, "applyStepButton")->isEnabled());
    childNamed<QPushButton>(&panel, "applyStepButton")->click();
    QCOMPARE(step.size(), 1);
    QCOMPARE(step.at(0).at(0).value<RunConfig>().loader.numWorkers, 3);

    // The step made (as the window does: a new config version), then a change of
    // another setting mid-phase: the phase starts again there.
    RunConfig three = preset;
    three.loader.numWorkers = 3;
    addVersion(*log, 1, three);
    appendBatches(*log, 20, 3, 1);
    panel.refresh();
    QCOMPARE(panel.tracker().state(), State::Running);
    QCOMPARE(panel.tracker().phaseBatches(), std::int64_t(20));
    three.consumer.sleepPerBatchMs = 12.0;
    const std::size_t restart = log->size();
    addVersion(*log, 2, three);
    appendBatches(*log, 10, 3, 2);
    panel.refresh();
    QCOMPARE(panel.tracker().phaseBatches(), std::int64_t(10));
    // The last phase running: the verdict over what there is so far. Its 10 batches,
    // less the first round of 3, cannot show a period of 3.
    QCOMPARE(panel.verdictText(),
             QStringLiteral("Verdict so far: No data: in the phase \"3 workers\" the epochs are "
                            "too short to show a period of 3 batches (about 10 batches per "
                            "epoch; the period is read within each epoch, after its first 3 "
                            "batches, and needs at least three periods there). Use a folder "
                            "with more images or a smaller batch."));
    QCOMPARE(finished.size(), 0);

    appendBatches(*log, 55, 3, 2);
    panel.refresh();
    QCOMPARE(panel.tracker().state(), State::Done);
    QCOMPARE(finished.size(), 1);
    const auto &phases = panel.tracker().finishedPhases();
    QCOMPARE(phases.size(), std::size_t(2));
    QCOMPARE(phases[1].records.front().index, static_cast<std::int64_t>(restart));
    QCOMPARE(phases[1].records.size(), std::size_t(60));
    QCOMPARE(phases[1].config.loader.numWorkers, 3);
    // The spikes written: every 2 batches in batches 0..59, every 3 in 90..149 (8 ms
    // over about 0.1 ms). Their autocorrelations, after each phase's first round:
    // 0.9655 at lag 2 (batches 2..59) and 0.9474 at lag 3 (batches 93..149).
    QCOMPARE(panel.verdictText(),
             QStringLiteral("Verdict: Seen: 2 workers: the wait spikes every 2 batches "
                            "(autocorrelation 0.97); 3 workers: the wait spikes every 3 batches "
                            "(autocorrelation 0.95). Each worker builds whole batches, and the "
                            "workers started together, so a round of W batches arrives almost "
                            "at once: the consumer takes them one after another, then waits for "
                            "the next round."));
    panel.refresh(); // done: nothing more
    QCOMPARE(finished.size(), 1);
}

void TestLessonPanel::aWrongStepKeepsWaiting()
{
    LessonPanel panel;
    panel.setConfigSource(lessonConfig);
    QSignalSpy started(&panel, &LessonPanel::startRequested);
    panel.chooseLesson(QStringLiteral("spikes-every-w"));
    panel.startLesson();
    const auto preset = started.at(0).at(0).value<RunConfig>();
    auto log = std::make_shared<TraceLog>();
    addVersion(*log, 0, preset);
    panel.setTrace(log);
    appendBatches(*log, 60, 2, 0);
    panel.refresh();
    QCOMPARE(panel.tracker().state(), State::WaitingForStep);
    RunConfig four = preset;
    four.loader.numWorkers = 4; // not the step's 3
    addVersion(*log, 1, four);
    appendBatches(*log, 80, 4, 1);
    panel.refresh();
    QCOMPARE(panel.tracker().state(), State::WaitingForStep);
    QCOMPARE(panel.tracker().phase(), std::size_t(1));
    // Stopping the lesson forgets it; the chosen lesson stays on screen.
    childNamed<QPushButton>(&panel, "stopLessonButton")->click();
    QCOMPARE(panel.tracker().state(), State::Idle);
    QVERIFY(childNamed<QLabel>(&panel, "lessonProgress")->text().isEmpty());
    QCOMPARE(panel.chosenLesson(), findLesson("spikes-every-w"));
}

void TestLessonPanel::aNewRunRestartsThePhase()
{
    LessonPanel panel;
    panel.setConfigSource(lessonConfig);
    QSignalSpy started(&panel, &LessonPanel::startRequested);
    panel.chooseLesson(QStringLiteral("first-batch"));
    panel.startLesson();
    const auto preset = started.at(0).at(0).value<RunConfig>();
    auto first = std::make_shared<TraceLog>();
    addVersion(*first, 0, preset);
    panel.setTrace(first);
    appendBatches(*first, 20, 2, 0);
    panel.refresh();
    QCOMPARE(panel.tracker().phaseBatches(), std::int64_t(20));
    // Started again (Start pressed): the phase counts on the new run only.
    auto second = std::make_shared<TraceLog>();
    addVersion(*second, 0, preset);
    panel.setTrace(second);
    appendBatches(*second, 5, 2, 0);
    panel.refresh();
    QCOMPARE(panel.tracker().phaseBatches(), std::int64_t(5));
    appendBatches(*second, 25, 2, 0);
    panel.refresh();
    QCOMPARE(panel.tracker().state(), State::Done);
    // The second run's 30 batches: 50 ms first, then 8 ms on the even batches (the
    // first at batch 2) and 0.100..0.106 ms on the odd ones (median 0.106 ms).
    QCOMPARE(panel.verdictText(),
             QStringLiteral("Verdict: Seen: the first batch waited 50.0 ms, 6.2x the longest "
                            "wait after it (8.0 ms at batch 2; median 0.11 ms). Every worker "
                            "starts with an empty queue: the first batch needs a whole batch "
                            "read, decoded and transformed before the step can start, while "
                            "later batches were built during earlier steps."));
}

void TestLessonPanel::modelLessonNeedsAModel()
{
    LessonPanel panel;
    QVERIFY(panel.chooseLesson(QStringLiteral("model-trade")));
    QVERIFY(!childNamed<QPushButton>(&panel, "startLessonButton")->isEnabled());
    QVERIFY(!childNamed<QLabel>(&panel, "lessonUnavailable")->text().isEmpty());
    panel.setModelAvailable(true);
    QVERIFY(childNamed<QPushButton>(&panel, "startLessonButton")->isEnabled());
    QVERIFY(childNamed<QLabel>(&panel, "lessonUnavailable")->text().isEmpty());
}

void TestLessonPanel::predictionShownOncePhaseOneEnded()
{
    LessonPanel panel;
    panel.setConfigSource(lessonConfig);
    QSignalSpy started(&panel, &LessonPanel::startRequested);
    QVERIFY(panel.chooseLesson(QStringLiteral("predict-then-watch")));
    panel.startLesson();
    const auto preset = started.at(0).at(0).value<RunConfig>();
    QCOMPARE(preset.loader.numWorkers, 1);
    auto *briefing = panel.findChild<QLabel *>(QStringLiteral("lessonBriefing"));
    QVERIFY(briefing);
    auto log = std::make_shared<TraceLog>();
    addVersion(*log, 0, preset);
    panel.setTrace(log);
    // Phase 1 running: nothing predicted yet.
    appendBatches(*log, 30, 1, 0);
    panel.refresh();
    QCOMPARE(panel.tracker().state(), State::Running);
    QVERIFY(briefing->isHidden());
    QVERIFY(briefing->text().isEmpty());

    // Phase 1 has its 40 batches: the prediction for 2 workers is on screen with
    // the next step, before the step is made.
    appendBatches(*log, 15, 1, 0);
    panel.refresh();
    QCOMPARE(panel.tracker().state(), State::WaitingForStep);
    QCOMPARE(panel.tracker().phase(), std::size_t(1));
    QVERIFY(childNamed<QLabel>(&panel, "lessonProgress")
                ->text()
                .contains(QStringLiteral("Now set workers to 2.")));
    QVERIFY(!briefing->isHidden());
    const auto &done = panel.tracker().finishedPhases();
    QCOMPARE(done.size(), std::size_t(1));
    const LessonBriefing expected = predictionBriefing(done, panel.tracker().phaseConfig(1));
    QVERIFY(expected.figures.contains("samples_per_sec"));
    QCOMPARE(briefing->text(),
             QStringLiteral("Before phase 2: ") + QString::fromStdString(expected.text));
    QVERIFY2(briefing->text().contains(QStringLiteral("predicts for 2 workers, batch 32")),
             qPrintable(briefing->text()));
    QVERIFY(panel.verdictText().isEmpty());

    // The step made: phase 2 runs and ends; the prediction stays beside the verdict,
    // which compares it with what phase 2 measured.
    RunConfig two = preset;
    two.loader.numWorkers = 2;
    addVersion(*log, 1, two);
    appendBatches(*log, 40, 2, 1);
    panel.refresh();
    QCOMPARE(panel.tracker().state(), State::Done);
    QCOMPARE(briefing->text(),
             QStringLiteral("Before phase 2: ") + QString::fromStdString(expected.text));
    const auto &phases = panel.tracker().finishedPhases();
    QCOMPARE(phases[1].briefing.text, expected.text);
    const LessonVerdict verdict = predictionVerdict(phases);
    QCOMPARE(panel.verdictText(),
             QStringLiteral("Verdict: ") + QString::fromStdString(verdict.text));
    QCOMPARE(verdict.figures.at("predicted_samples_per_sec").get<double>(),
             expected.figures.at("samples_per_sec").get<double>());
    // Stopping forgets it.
    panel.stopLesson();
    QVERIFY(briefing->isHidden());
}

void TestLessonPanel::loadOfEachPhaseSampled()
{
    LessonPanel panel;
    panel.setConfigSource(lessonConfig);
    FakeMachine machine;
    panel.setCpuSampler([&machine] { return machine.now; });
    QSignalSpy started(&panel, &LessonPanel::startRequested);
    QVERIFY(panel.chooseLesson(QStringLiteral("predict-then-watch")));
    panel.startLesson();
    const auto preset = started.at(0).at(0).value<RunConfig>();
    auto log = std::make_shared<TraceLog>();
    addVersion(*log, 0, preset);
    panel.setTrace(log); // phase 1 seen running: its start sampled
    // 10 s with other programs on 0.9 of the 2 cores, then phase 1's 40 batches.
    machine.advance(10.0, 1.0, 0.9);
    appendBatches(*log, 40, 1, 0);
    panel.refresh();
    QCOMPARE(panel.tracker().state(), State::WaitingForStep);
    const MachineLoad first = panel.tracker().finishedPhases().at(0).load;
    QCOMPARE(first.cores, 2);
    QCOMPARE(first.otherBusyCores, 0.9);
    QCOMPARE(first.ownBusyCores, 1.0);
    // The briefing counts that load: the prediction assumes it goes on.
    const LessonBriefing &said = panel.tracker().briefing(1);
    QCOMPARE(said.figures.at("calibrated_other_cores").get<double>(), first.otherBusyCores);
    QVERIFY2(QString::fromStdString(said.text).contains(
                 QStringLiteral("Other programs used 0.9 of the ")),
             said.text.c_str());
    // Waiting for the step does not count: phase 2 starts when it is seen running.
    machine.advance(5.0, 0.2, 0.0);
    RunConfig two = preset;
    two.loader.numWorkers = 2;
    addVersion(*log, 1, two);
    appendBatches(*log, 4, 2, 1);
    panel.refresh();
    QCOMPARE(panel.tracker().state(), State::Running);
    // While it runs its load is not known yet: the verdict so far has no re-prediction.
    machine.advance(10.0, 0.4, 1.6);
    appendBatches(*log, 30, 2, 1);
    panel.refresh();
    QVERIFY(panel.tracker().verdict().has_value());
    QVERIFY(panel.tracker().verdict()->figures.at("repredicted_samples_per_sec").is_null());
    appendBatches(*log, 6, 2, 1);
    panel.refresh();
    QCOMPARE(panel.tracker().state(), State::Done);
    const auto &phases = panel.tracker().finishedPhases();
    QCOMPARE(phases.at(1).load.otherBusyCores, 1.6);
    // Other programs took 0.7 of a core more: judged against the re-prediction for
    // the load phase 2 ran under, as the core's verdict on these phases says.
    const LessonVerdict verdict = predictionVerdict(phases);
    QCOMPARE(panel.verdictText(),
             QStringLiteral("Verdict: ") + QString::fromStdString(verdict.text));
    QCOMPARE(verdict.figures.at("judged_against").get<std::string>(), std::string("re-prediction"));
    QVERIFY(verdict.figures.at("repredicted_samples_per_sec").is_number());
    QVERIFY2(panel.verdictText().contains(
                 QStringLiteral("re-predicted for the load measured while it ran (other "
                                "programs used 1.6 of the ")),
             qPrintable(panel.verdictText()));
}

LOADERLAB_TEST_MAIN(TestLessonPanel)
#include "test_lesson_panel.moc"
