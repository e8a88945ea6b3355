// The Lessons tab setting a lesson up on the chosen data: *Start lesson* first asks
// for the measuring run (no step, the binding phase's workers), shows its progress,
// reads the measuring run's trace written here (load times known), shows what it
// measured and the step it chose (core's words), and asks for the lesson's run with
// that step, whose phases then need it; a folder that is not there keeps the preset
// and says so; Stop lesson during the measuring forgets the lesson; a lesson that
// cannot run on the chosen data (tensors-vs-jpeg on a tensor file) says why and does
// not start.

#include "core/lessons/lesson_setup.h"
#include "core/trace/trace_log.h"
#include "tests/support/lesson_traces.h"
#include "tests/support/run_config_metatype.h"
#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"
#include "widgets/lessons/lesson_panel.h"

#include <QtTest>

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>

using namespace loaderlab;
using SetupState = LessonTracker::State;

namespace {

// `count` more batches of a measuring run of batches of 32 by `workers` workers
// (lessontrace::measuringRun), after those the log has.
void appendMeasured(TraceLog &log, int count, int workers, double loadMs)
{
    const auto have = static_cast<int>(log.size());
    const auto run = lessontrace::measuringRun(have + count, workers, 32, loadMs);
    const std::int64_t shift = have > 0 ? log.records().back().deliveryNs
                                              - run[static_cast<std::size_t>(have - 1)].deliveryNs
                                        : 0;
    for (auto it = run.begin() + have; it != run.end(); ++it) {
        TraceRecord r = *it;
        for (std::int64_t *t : {&r.loadStartNs, &r.loadEndNs, &r.requestNs, &r.deliveryNs,
                                &r.computeStartNs, &r.computeEndNs})
            *t += shift;
        log.append(r);
        log.appendSpan({r.index, r.worker, 0, r.loadStartNs, r.loadEndNs});
    }
}

} // namespace

class TestLessonPanelSetup : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void measuresThenStartsWithTheChosenStep();
    void aMissingFolderKeepsThePreset();
    void stopWhileMeasuring();
    void aLessonForOtherDataIsNotStarted();

private:
    RunConfig folder(const QString &path) const
    {
        RunConfig c;
        c.dataset.kind = DatasetKind::ImageFolder;
        c.dataset.path = path.toStdString();
        return c;
    }

    QTemporaryDir m_dir;
};

void TestLessonPanelSetup::measuresThenStartsWithTheChosenStep()
{
    LessonPanel panel;
    const RunConfig base = folder(m_dir.path());
    panel.setConfigSource([base] { return base; });
    QSignalSpy started(&panel, &LessonPanel::startRequested);
    QSignalSpy step(&panel, &LessonPanel::stepRequested);
    QVERIFY(panel.chooseLesson(QStringLiteral("spikes-every-w")));
    childNamed<QPushButton>(&panel, "startLessonButton")->click();

    // The measuring run: 3 workers (the phase that binds), no step; it runs until the
    // lesson's run replaces it, and what it loaded when it has enough is read.
    QCOMPARE(started.size(), 1);
    const auto measuring = started.at(0).at(0).value<RunConfig>();
    QCOMPARE(measuring.loader.numWorkers, 3);
    QCOMPARE(measuring.loader.batchSize, 32);
    QCOMPARE(measuring.consumer.kind, ConsumerKind::None);
    QCOMPARE(measuring.maxBatches, std::int64_t(0));
    QCOMPARE(measuring.dataset.path, base.dataset.path);
    QCOMPARE(panel.tracker().state(), SetupState::SettingUp);
    QVERIFY(childNamed<QPushButton>(&panel, "stopLessonButton")->isEnabled());
    QCOMPARE(childNamed<QLabel>(&panel, "lessonProgress")->text(),
             QStringLiteral("Set-up: measuring how fast the data loads with 3 workers and no "
                            "step: 0 batches, of at least 13"));

    auto measured = std::make_shared<TraceLog>();
    measured->addConfigVersion({0, 0, 0, measuring});
    panel.setTrace(measured);
    appendMeasured(*measured, 6, 3, 13.0);
    panel.refresh();
    QVERIFY(childNamed<QLabel>(&panel, "lessonProgress")
                ->text()
                .endsWith(QStringLiteral(": 6 batches, of at least 13")));
    QTest::qWait(600); // the panel's checks: 6 of at least 13, still measuring
    QCOMPARE(started.size(), 1);

    // 13 batches, more than 0.3 s after the first: a batch of 32 in 13 ms per worker,
    // so one every 4.33 ms with 3 workers, and a 1 ms step; the lesson's run starts
    // with it, from the panel's timer, not from within the window's refresh.
    appendMeasured(*measured, 7, 3, 13.0);
    panel.refresh();
    QCOMPARE(started.size(), 1);
    QTRY_COMPARE(started.size(), 2);
    const auto first = started.at(1).at(0).value<RunConfig>();
    QCOMPARE(first.loader.numWorkers, 2);
    QCOMPARE(first.consumer.kind, ConsumerKind::Sleep);
    QCOMPARE(first.consumer.sleepPerBatchMs, 1.0);
    QCOMPARE(first.maxBatches, std::int64_t(0));
    QCOMPARE(panel.tracker().state(), SetupState::Running);
    const LessonSetup &setup = panel.tracker().setup();
    QVERIFY(setup.measured);
    QCOMPARE(setup.stepMs, 1.0);
    const QString said = QString::fromStdString(setup.text);
    QVERIFY2(said.startsWith(QStringLiteral("Your images load a batch of 32 in 13.0 ms per worker "
                                            "with 3 workers at once (measured: 10 batches of 32 "
                                            "in ")),
             qPrintable(said));
    QVERIFY2(said.contains(QStringLiteral("so the loader delivers a batch every 4.3 ms. The "
                                          "simulated step is set to 1.0 ms")),
             qPrintable(said));
    QCOMPARE(childNamed<QLabel>(&panel, "lessonSetup")->text(), QStringLiteral("Set-up: ") + said);

    // The lesson's run (a new trace, as the window starts it): the chosen step is one
    // of the phase's settings, and the guided step carries it.
    QVERIFY(panel.tracker().keys().count("consumer.sleep_per_batch_ms"));
    RunConfig preset = first;
    preset.consumer.sleepPerBatchMs = 10.0;
    QVERIFY(!panel.tracker().matchesPhase(preset, 0));
    auto run = std::make_shared<TraceLog>();
    run->addConfigVersion({0, 0, 0, first});
    panel.setTrace(run);
    appendMeasured(*run, 60, 2, 13.0);
    panel.refresh();
    QCOMPARE(panel.tracker().state(), SetupState::WaitingForStep);
    QCOMPARE(childNamed<QLabel>(&panel, "lessonSetup")->text(), QStringLiteral("Set-up: ") + said);
    childNamed<QPushButton>(&panel, "applyStepButton")->click();
    QCOMPARE(step.size(), 1);
    const auto next = step.at(0).at(0).value<RunConfig>();
    QCOMPARE(next.loader.numWorkers, 3);
    QCOMPARE(next.consumer.sleepPerBatchMs, 1.0);
}

void TestLessonPanelSetup::aMissingFolderKeepsThePreset()
{
    LessonPanel panel;
    const RunConfig base = folder(m_dir.filePath(QStringLiteral("missing")));
    panel.setConfigSource([base] { return base; });
    QSignalSpy started(&panel, &LessonPanel::startRequested);
    QVERIFY(panel.chooseLesson(QStringLiteral("sample-parallel")));
    panel.startLesson();
    QCOMPARE(started.size(), 1);
    const auto first = started.at(0).at(0).value<RunConfig>();
    QCOMPARE(first.consumer.sleepPerBatchMs, 10.0);
    QCOMPARE(panel.tracker().state(), SetupState::Running);
    QCOMPARE(childNamed<QLabel>(&panel, "lessonSetup")->text(),
             QStringLiteral("Set-up: Your images could not be measured (%1: not found): the "
                            "lesson keeps its preset, a 10.0 ms step.")
                 .arg(QString::fromStdString(base.dataset.path)));
    // A lesson that measures nothing says nothing of a set-up.
    QVERIFY(panel.chooseLesson(QStringLiteral("first-batch")));
    panel.startLesson();
    QCOMPARE(started.size(), 2);
    QVERIFY(childNamed<QLabel>(&panel, "lessonSetup")->text().isEmpty());
}

void TestLessonPanelSetup::stopWhileMeasuring()
{
    LessonPanel panel;
    const RunConfig base = folder(m_dir.path());
    panel.setConfigSource([base] { return base; });
    QSignalSpy started(&panel, &LessonPanel::startRequested);
    QVERIFY(panel.chooseLesson(QStringLiteral("zero-vs-one-worker")));
    panel.startLesson();
    QCOMPARE(started.size(), 1);
    // 0 vs 1 worker measures its 1-worker phase.
    QCOMPARE(started.at(0).at(0).value<RunConfig>().loader.numWorkers, 1);
    QCOMPARE(childNamed<QLabel>(&panel, "lessonProgress")->text(),
             QStringLiteral("Set-up: measuring how fast the data loads with 1 worker and no "
                            "step: 0 batches, of at least 7"));
    childNamed<QPushButton>(&panel, "stopLessonButton")->click();
    QCOMPARE(panel.tracker().state(), SetupState::Idle);
    QVERIFY(childNamed<QLabel>(&panel, "lessonProgress")->text().isEmpty());
    // Its measuring run's batches no longer start anything.
    auto measured = std::make_shared<TraceLog>();
    panel.setTrace(measured);
    appendMeasured(*measured, 7, 1, 20.0);
    panel.refresh();
    QCOMPARE(started.size(), 1);
}

void TestLessonPanelSetup::aLessonForOtherDataIsNotStarted()
{
    LessonPanel panel;
    RunConfig base;
    base.dataset.kind = DatasetKind::TensorFile;
    base.dataset.path = m_dir.filePath(QStringLiteral("photos.u8.tensor")).toStdString();
    panel.setConfigSource([base] { return base; });
    QSignalSpy started(&panel, &LessonPanel::startRequested);
    QVERIFY(panel.chooseLesson(QStringLiteral("tensors-vs-jpeg")));
    auto *start = childNamed<QPushButton>(&panel, "startLessonButton");
    QVERIFY(!start->isEnabled());
    const QString said = childNamed<QLabel>(&panel, "lessonUnavailable")->text();
    QCOMPARE(said, QStringLiteral("This lesson compares an image folder with the tensor file "
                                  "preprocessed from it, so it needs the image folder; %1 is a "
                                  "preprocessed tensor file. Choose the folder as the dataset.")
                       .arg(QString::fromStdString(base.dataset.path)));
    panel.startLesson(); // as a shortcut would: refused all the same
    QCOMPARE(started.size(), 0);
    QCOMPARE(panel.tracker().state(), SetupState::Idle);
    // A lesson that runs on any data starts on the same file.
    QVERIFY(panel.chooseLesson(QStringLiteral("first-batch")));
    QVERIFY(start->isEnabled());
    QVERIFY(childNamed<QLabel>(&panel, "lessonUnavailable")->text().isEmpty());
}

LOADERLAB_TEST_MAIN(TestLessonPanelSetup)
#include "test_lesson_panel_setup.moc"
