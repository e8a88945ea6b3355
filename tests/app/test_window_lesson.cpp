// A lesson end to end in the window: chosen in the Lessons tab, its preset in the
// controls, the run, the guided step applied live, and the verdict on screen equal
// to the one the core computes from the run's trace. Set LOADERLAB_SCREENSHOT_DIR
// to keep a screenshot of the dock.

#include "app/main_window.h"
#include "window_test_support.h"

#include "core/lessons/lesson_runner.h"
#include "core/stats/run_summary.h"
#include "core/tools/imagenette_generator.h"
#include "widgets/control_panel.h"
#include "widgets/lesson_panel.h"
#include "widgets/run_session.h"

#include <QtTest>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

using namespace loaderlab;
using windowtest::child;

namespace {

// The phase as the core reads it: its batches of the trace, their waits and summary.
LessonPhaseResult phaseFromTrace(const TraceLog &trace, const Lesson &lesson, std::size_t phase,
                                 std::size_t from)
{
    const auto versions = trace.configVersions();
    RunConfig config;
    for (const ConfigVersion &v : versions) {
        if (static_cast<std::size_t>(v.firstBatch) <= from)
            config = v.config;
    }
    const std::size_t to = from + static_cast<std::size_t>(lesson.phases[phase].batches);
    auto records = trace.records(from, to);
    const auto spans = trace.spans(trace.firstSpanOfBatch(static_cast<std::int64_t>(from)),
                                   trace.firstSpanOfBatch(static_cast<std::int64_t>(to)));
    const RunSummary summary = summarize(records, spans, config.loader.numWorkers,
                                         config.warmupBatches, 0);
    return lessonPhaseResult(lesson.phases[phase].label, config, std::move(records), summary);
}

} // namespace

class TestWindowLesson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void firstBatchLessonEndToEnd();
    void guidedStepAppliedLive();
    void datasetStepStartsANewRun();

private:
    QTemporaryDir m_dir;
    QString m_images;
};

void TestWindowLesson::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // The tensor file a lesson prepares goes to the cache: the test's own.
    qputenv("LOADERLAB_CACHE_DIR", m_dir.filePath(QStringLiteral("cache")).toUtf8());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("LoaderLabTests"));
    // A small folder of small JPEGs: a lesson's phases take seconds.
    m_images = m_dir.filePath(QStringLiteral("images"));
    ImageFolderSpec spec;
    spec.classes = 2;
    spec.imagesPerClass = 24;
    spec.minShortSide = 40;
    spec.maxShortSide = 60;
    generateImageFolder(m_images.toStdString(), spec);
}

void TestWindowLesson::firstBatchLessonEndToEnd()
{
    MainWindow window;
    RunConfig mine;
    mine.dataset.kind = DatasetKind::ImageFolder;
    mine.dataset.path = m_images.toStdString();
    mine.loader.numWorkers = 1;
    mine.loader.batchSize = 8;
    window.applyConfig(mine);
    window.resize(1400, 900);
    window.show();
    window.showLessons(true);

    LessonPanel *panel = window.lessonPanel();
    QVERIFY(panel->chooseLesson(QStringLiteral("first-batch")));
    const Lesson &lesson = *findLesson("first-batch");
    child<QPushButton>(panel, "startLessonButton")->click();

    // The preset is in the controls, over the user's image folder, and runs.
    ControlPanel *controls = window.controlPanel();
    QCOMPARE(child<QSpinBox>(controls, "workersSpin")->value(), 2);
    QCOMPARE(child<QSpinBox>(controls, "batchSizeSpin")->value(), 32);
    QCOMPARE(child<QDoubleSpinBox>(controls, "sleepBatchSpin")->value(), 60.0);
    QCOMPARE(child<QLineEdit>(controls, "datasetPathEdit")->text(), m_images);
    QVERIFY(window.session()->running());
    QCOMPARE(window.session()->config().loader.numWorkers, 2);

    QTRY_COMPARE_WITH_TIMEOUT(panel->tracker().state(), LessonTracker::State::Done, 60'000);
    // Done: the run is stopped, so the plots stay on the lesson.
    QTRY_VERIFY(!window.session()->running());
    const auto trace = window.session()->trace();
    QVERIFY(trace->size() >= static_cast<std::size_t>(lesson.phases[0].batches));
    const LessonVerdict verdict = lesson.verdict({phaseFromTrace(*trace, lesson, 0, 0)});
    QVERIFY(!verdict.text.empty());
    QCOMPARE(panel->verdictText(),
             QStringLiteral("Verdict: ") + QString::fromStdString(verdict.text));
    const QString dir = qEnvironmentVariable("LOADERLAB_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("lesson-first-batch.png"))));
}

void TestWindowLesson::guidedStepAppliedLive()
{
    MainWindow window;
    RunConfig mine;
    mine.dataset.kind = DatasetKind::ImageFolder;
    mine.dataset.path = m_images.toStdString();
    window.applyConfig(mine);
    window.resize(1400, 900);
    window.show();
    window.showLessons(true);
    LessonPanel *panel = window.lessonPanel();
    QVERIFY(panel->chooseLesson(QStringLiteral("spikes-every-w")));
    const Lesson &lesson = *findLesson("spikes-every-w");
    child<QPushButton>(panel, "startLessonButton")->click();
    QVERIFY(window.session()->running());

    QTRY_COMPARE_WITH_TIMEOUT(panel->tracker().state(), LessonTracker::State::WaitingForStep,
                              60'000);
    auto *apply = child<QPushButton>(panel, "applyStepButton");
    QVERIFY(apply->isEnabled());
    apply->click();
    // The step goes through the controls, live (a reconfiguration, not a new run).
    const auto trace = window.session()->trace();
    QCOMPARE(child<QSpinBox>(window.controlPanel(), "workersSpin")->value(), 3);
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->config().loader.numWorkers, 3, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(panel->tracker().state(), LessonTracker::State::Done, 60'000);
    QCOMPARE(window.session()->trace(), trace);

    const auto &phases = panel->tracker().finishedPhases();
    QCOMPARE(phases.size(), std::size_t(2));
    const auto secondFrom = static_cast<std::size_t>(phases[1].records.front().index);
    QCOMPARE(phases[1].config.loader.numWorkers, 3);
    // The second phase starts where the run switched to 3 workers.
    const auto versions = trace->configVersions();
    QCOMPARE(versions.size(), std::size_t(2));
    QCOMPARE(versions[1].config.loader.numWorkers, 3);
    QCOMPARE(secondFrom, static_cast<std::size_t>(versions[1].firstBatch));
    const LessonVerdict verdict = lesson.verdict(
        {phaseFromTrace(*trace, lesson, 0, 0), phaseFromTrace(*trace, lesson, 1, secondFrom)});
    QCOMPARE(panel->verdictText(),
             QStringLiteral("Verdict: ") + QString::fromStdString(verdict.text));
    const QString dir = qEnvironmentVariable("LOADERLAB_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("lesson-spikes.png"))));
}

void TestWindowLesson::datasetStepStartsANewRun()
{
    MainWindow window;
    RunConfig mine;
    mine.dataset.kind = DatasetKind::ImageFolder;
    mine.dataset.path = m_images.toStdString();
    window.applyConfig(mine);
    window.show();
    LessonPanel *panel = window.lessonPanel();
    QVERIFY(panel->chooseLesson(QStringLiteral("tensors-vs-jpeg")));
    const Lesson &lesson = *findLesson("tensors-vs-jpeg");
    child<QPushButton>(panel, "startLessonButton")->click();
    QTRY_COMPARE_WITH_TIMEOUT(panel->tracker().state(), LessonTracker::State::WaitingForStep,
                              60'000);
    const auto jpegTrace = window.session()->trace();
    child<QPushButton>(panel, "applyStepButton")->click();
    // The folder is preprocessed on a thread, then the run starts over on the file.
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->trace() != jpegTrace, 60'000);
    const RunConfig tensor = window.session()->config();
    QCOMPARE(tensor.dataset.kind, DatasetKind::TensorFile);
    QVERIFY(QFileInfo(QString::fromStdString(tensor.dataset.path))
                .absolutePath()
                .startsWith(m_dir.filePath(QStringLiteral("cache"))));
    QCOMPARE(child<QComboBox>(window.controlPanel(), "datasetKindCombo")->currentData().toString(),
             QStringLiteral("tensor"));
    QTRY_COMPARE_WITH_TIMEOUT(panel->tracker().state(), LessonTracker::State::Done, 60'000);

    LessonPhaseResult jpeg = phaseFromTrace(*jpegTrace, lesson, 0, 0);
    LessonPhaseResult file = phaseFromTrace(*window.session()->trace(), lesson, 1, 0);
    QVERIFY(jpeg.datasetBytes > 0);
    QVERIFY(file.datasetBytes > 0);
    const LessonVerdict verdict = lesson.verdict({std::move(jpeg), std::move(file)});
    QCOMPARE(panel->verdictText(),
             QStringLiteral("Verdict: ") + QString::fromStdString(verdict.text));
}

QTEST_MAIN(TestWindowLesson)
#include "test_window_lesson.moc"
