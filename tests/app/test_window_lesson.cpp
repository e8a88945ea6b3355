// A lesson end to end in the window: chosen in the Lessons tab, its preset in the
// controls, the run, the guided step applied live, and the verdict on screen, its
// figures checked against the run's own trace and files (read here, not through
// the verdict); predict-then-watch's prediction on screen before its step is made.
// Set LOADERLAB_SCREENSHOT_DIR to keep a screenshot of the dock.

#include "app/window/main_window.h"
#include "window_test_support.h"

#include "core/lessons/lesson.h"
#include "core/trace/trace_log.h"
#include "widgets/lessons/lesson_panel.h"
#include "widgets/session/run_session.h"
#include "widgets/settings/control_panel.h"

#include "tests/support/image_folder.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <QComboBox>
#include <QDirIterator>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

#include <algorithm>
#include <cstdio>
#include <map>

using namespace loaderlab;

namespace {

// `value` as printf's "%.<digits>f" writes it (the verdicts' wording).
QString fixed(double value, int digits)
{
    char out[64];
    std::snprintf(out, sizeof out, "%.*f", digits, value);
    return QString::fromLatin1(out);
}

double waitMs(const TraceRecord &r)
{
    return static_cast<double>(r.deliveryNs - r.requestNs) / 1e6;
}

// The bytes of every file under `path` (or of the file itself).
std::int64_t bytesUnder(const QString &path)
{
    const QFileInfo info(path);
    if (info.isFile())
        return info.size();
    std::int64_t total = 0;
    QDirIterator it(path, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        total += it.fileInfo().size();
    }
    return total;
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
    void predictionShownBeforeTheStep();

private:
    // The window's settings over the test's image folder.
    RunConfig myImages() const;

    QTemporaryDir m_dir;
    QString m_images;
};

RunConfig TestWindowLesson::myImages() const
{
    RunConfig config;
    config.dataset.kind = DatasetKind::ImageFolder;
    config.dataset.path = m_images.toStdString();
    return config;
}

void TestWindowLesson::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // The tensor file a lesson prepares goes to the cache: the test's own.
    qputenv("LOADERLAB_CACHE_DIR", m_dir.filePath(QStringLiteral("cache")).toUtf8());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("LoaderLabTests"));
    // A small folder of small JPEGs: a lesson's phases take seconds.
    m_images = writeImageFolder(m_dir.filePath(QStringLiteral("images")), 2, 24, 40, 60);
}

void TestWindowLesson::firstBatchLessonEndToEnd()
{
    MainWindow window;
    RunConfig mine = myImages();
    mine.loader.numWorkers = 1;
    mine.loader.batchSize = 8;
    window.applyConfig(mine);
    window.resize(1400, 900);
    window.show();
    window.showLessons(true);

    LessonPanel *panel = window.lessonPanel();
    QVERIFY(panel->chooseLesson(QStringLiteral("first-batch")));
    const Lesson &lesson = *findLesson("first-batch");
    childNamed<QPushButton>(panel, "startLessonButton")->click();

    // The preset is in the controls, over the user's image folder, and runs.
    ControlPanel *controls = window.controlPanel();
    QCOMPARE(childNamed<QSpinBox>(controls, "workersSpin")->value(), 2);
    QCOMPARE(childNamed<QSpinBox>(controls, "batchSizeSpin")->value(), 32);
    QCOMPARE(childNamed<QDoubleSpinBox>(controls, "sleepBatchSpin")->value(), 60.0);
    QCOMPARE(childNamed<QLineEdit>(controls, "datasetPathEdit")->text(), m_images);
    QVERIFY(window.session()->running());
    QCOMPARE(window.session()->config().loader.numWorkers, 2);

    QTRY_COMPARE_WITH_TIMEOUT(panel->tracker().state(), LessonTracker::State::Done, 60'000);
    // Done: the run is stopped, so the plots stay on the lesson.
    QTRY_VERIFY(!window.session()->running());
    const auto trace = window.session()->trace();
    QVERIFY(trace->size() >= static_cast<std::size_t>(lesson.phases[0].batches));
    // The phase's batches, read from the trace: batch 0's wait, and the longest wait
    // after it leaving out the epoch starts (each epoch starts its workers again).
    const auto records = trace->records(0, static_cast<std::size_t>(lesson.phases[0].batches));
    const QString first = fixed(waitMs(records.front()), 1);
    std::size_t longest = 0;
    for (std::size_t i = 1; i < records.size(); ++i) {
        if (records[i].epoch == records[i - 1].epoch
            && (longest == 0 || waitMs(records[i]) > waitMs(records[longest])))
            longest = i;
    }
    const QString shown = panel->verdictText();
    if (longest > 0 && waitMs(records[longest]) > waitMs(records.front())) {
        QCOMPARE(shown.left(shown.indexOf(QStringLiteral(". "))),
                 QStringLiteral("Verdict: Not seen: batch %1 waited %2 ms, longer than the "
                                "first batch's %3 ms")
                     .arg(records[longest].index)
                     .arg(fixed(waitMs(records[longest]), 1), first));
    } else {
        QVERIFY2(shown.startsWith(
                     QStringLiteral("Verdict: Seen: the first batch waited %1 ms").arg(first))
                     || shown.startsWith(QStringLiteral("Verdict: Only just: the first batch "
                                                        "waited longest (%1 ms)")
                                             .arg(first)),
                 qPrintable(shown));
    }
    const QString dir = qEnvironmentVariable("LOADERLAB_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("lesson-first-batch.png"))));
}

void TestWindowLesson::guidedStepAppliedLive()
{
    MainWindow window;
    RunConfig mine = myImages();
    window.applyConfig(mine);
    window.resize(1400, 900);
    window.show();
    window.showLessons(true);
    LessonPanel *panel = window.lessonPanel();
    QVERIFY(panel->chooseLesson(QStringLiteral("spikes-every-w")));
    const Lesson &lesson = *findLesson("spikes-every-w");
    childNamed<QPushButton>(panel, "startLessonButton")->click();
    QVERIFY(window.session()->running());

    QTRY_COMPARE_WITH_TIMEOUT(panel->tracker().state(), LessonTracker::State::WaitingForStep,
                              60'000);
    auto *apply = childNamed<QPushButton>(panel, "applyStepButton");
    QVERIFY(apply->isEnabled());
    apply->click();
    // The step goes through the controls, live (a reconfiguration, not a new run).
    const auto trace = window.session()->trace();
    QCOMPARE(childNamed<QSpinBox>(window.controlPanel(), "workersSpin")->value(), 3);
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
    // The epochs are counted here from the first phase's batches.
    const auto first = trace->records(0, static_cast<std::size_t>(lesson.phases[0].batches));
    std::map<std::int32_t, std::int64_t> epochs; // epoch -> its batches
    for (const TraceRecord &r : first)
        ++epochs[r.epoch];
    const auto perEpoch = static_cast<std::int64_t>(first.size() / epochs.size());
    std::int64_t fullEpoch = 0; // the phase may end within an epoch
    for (const auto &[epoch, batches] : epochs)
        fullEpoch = std::max(fullEpoch, batches);
    // 48 images at batch 32: epochs of 2 batches, too short for the 13 a period of 3
    // needs. The set-up makes the batch smaller (48 / 13: 3) only where a batch of 3
    // loaded in 2 ms or more when it measured, which a busy machine can make so
    // (core/lessons/lesson_setup_rule.h); which it chose is the machine's, what
    // follows from the choice is checked either way.
    int chosenBatch = 32;
    for (const auto &[key, value] : panel->tracker().setup().changes)
        if (key == "loader.batch_size")
            chosenBatch = value.get<int>();
    QCOMPARE(phases[0].config.loader.batchSize, chosenBatch);
    QCOMPARE(phases[1].config.loader.batchSize, chosenBatch);
    QCOMPARE(fullEpoch, std::int64_t((48 + chosenBatch - 1) / chosenBatch));
    if (chosenBatch != 32) {
        QCOMPARE(chosenBatch, 3);
        return;
    }
    // Kept at 32: the finding does not apply to this data (the set-up, which found no
    // batch that shows it, may add its reason).
    QVERIFY2(panel->verdictText().startsWith(
                 QStringLiteral("Verdict: Does not apply to this data: in the phase \"2 "
                                "workers\" the epochs are too short to show a period of 2 batches "
                                "(about %1 batches per epoch; the period is read within each "
                                "epoch, after its first 2 batches, and needs at least three "
                                "periods there). Use a folder with more images or a smaller "
                                "batch.")
                     .arg(perEpoch)),
             qPrintable(panel->verdictText()));
    const QString dir = qEnvironmentVariable("LOADERLAB_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("lesson-spikes.png"))));
}

void TestWindowLesson::datasetStepStartsANewRun()
{
    MainWindow window;
    RunConfig mine = myImages();
    window.applyConfig(mine);
    window.show();
    LessonPanel *panel = window.lessonPanel();
    QVERIFY(panel->chooseLesson(QStringLiteral("tensors-vs-jpeg")));
    childNamed<QPushButton>(panel, "startLessonButton")->click();
    QTRY_COMPARE_WITH_TIMEOUT(panel->tracker().state(), LessonTracker::State::WaitingForStep,
                              60'000);
    const auto jpegTrace = window.session()->trace();
    childNamed<QPushButton>(panel, "applyStepButton")->click();
    // The folder is preprocessed on a thread, then the run starts over on the file.
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->trace() != jpegTrace, 60'000);
    const RunConfig tensor = window.session()->config();
    QCOMPARE(tensor.dataset.kind, DatasetKind::TensorFile);
    QVERIFY(QFileInfo(QString::fromStdString(tensor.dataset.path))
                .absolutePath()
                .startsWith(m_dir.filePath(QStringLiteral("cache"))));
    QCOMPARE(
        childNamed<QComboBox>(window.controlPanel(), "datasetKindCombo")->currentData().toString(),
        QStringLiteral("tensor"));
    QTRY_COMPARE_WITH_TIMEOUT(panel->tracker().state(), LessonTracker::State::Done, 60'000);

    // The sizes the verdict compares, read from the disk here: the tensor file, and
    // every file of the folder.
    const std::int64_t jpegBytes = bytesUnder(m_images);
    const std::int64_t tensorBytes = bytesUnder(QString::fromStdString(tensor.dataset.path));
    QVERIFY(jpegBytes > 0 && tensorBytes > jpegBytes);
    const QString shown = panel->verdictText();
    QVERIFY2(shown.startsWith(QStringLiteral("Verdict: Seen: the preprocessed tensor file (%1 "
                                             "MB) loads ")
                                  .arg(fixed(static_cast<double>(tensorBytes) / 1e6, 1)))
                 || shown.startsWith(QStringLiteral("Verdict: Not seen: the preprocessed tensor "
                                                    "file (%1 MB) loads ")
                                         .arg(fixed(static_cast<double>(tensorBytes) / 1e6, 1))),
             qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("as fast as the JPEG folder (%1 MB; ")
                                .arg(fixed(static_cast<double>(jpegBytes) / 1e6, 1))),
             qPrintable(shown));
    QVERIFY2(
        shown.contains(
            QStringLiteral("although it is %1x the size. ")
                .arg(fixed(static_cast<double>(tensorBytes) / static_cast<double>(jpegBytes), 1))),
        qPrintable(shown));
}

void TestWindowLesson::predictionShownBeforeTheStep()
{
    MainWindow window;
    RunConfig mine = myImages();
    window.applyConfig(mine);
    window.resize(1400, 900);
    window.show();
    window.showLessons(true);
    LessonPanel *panel = window.lessonPanel();
    QVERIFY(panel->chooseLesson(QStringLiteral("predict-then-watch")));
    childNamed<QPushButton>(panel, "startLessonButton")->click();
    QTRY_COMPARE_WITH_TIMEOUT(panel->tracker().state(), LessonTracker::State::WaitingForStep,
                              60'000);
    // Phase 1 ended and the run still has 1 worker: the prediction for 2 is on screen.
    QCOMPARE(window.session()->config().loader.numWorkers, 1);
    auto *briefing = childNamed<QLabel>(panel, "lessonBriefing");
    QVERIFY(briefing->isVisible());
    const QString said = briefing->text();
    QVERIFY2(said.startsWith(QStringLiteral("Before phase 2: The loader model, calibrated on the "
                                            "phase \"1 worker\" (")),
             qPrintable(said));
    QVERIFY2(said.contains(QStringLiteral("predicts for 2 workers, batch 32")), qPrintable(said));
    const double predicted =
        panel->tracker().briefing(1).figures.at("samples_per_sec").get<double>();
    QVERIFY2(said.contains(QStringLiteral(": %1 samples/s, ").arg(fixed(predicted, 0))),
             qPrintable(said));

    childNamed<QPushButton>(panel, "applyStepButton")->click();
    QTRY_COMPARE_WITH_TIMEOUT(panel->tracker().state(), LessonTracker::State::Done, 60'000);
    QCOMPARE(briefing->text(), said);
    // The verdict sets the prediction shown before beside what phase 2 measured.
    const auto &phases = panel->tracker().finishedPhases();
    const QString shown = panel->verdictText();
    const QString measured = fixed(phases[1].summary.samplesPerSecMean, 0);
    const auto verdict = panel->tracker().verdict();
    QVERIFY(verdict.has_value());
    if (verdict->figures.at("judged_against").get<std::string>() == "re-prediction") {
        // The machine's load changed between the phases: the re-prediction is judged.
        const double again = verdict->figures.at("repredicted_samples_per_sec").get<double>();
        QVERIFY2(shown.contains(QStringLiteral("for 2 workers the model predicted %1 samples/s "
                                               "before phase 2 and %2 re-predicted")
                                    .arg(fixed(predicted, 0), fixed(again, 0))),
                 qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("the phase measured %1 (").arg(measured)),
                 qPrintable(shown));
    } else {
        QVERIFY2(shown.contains(QStringLiteral("for 2 workers the model predicted %1 samples/s "
                                               "and the phase measured %2 (")
                                    .arg(fixed(predicted, 0), measured)),
                 qPrintable(shown));
    }
    const QString dir = qEnvironmentVariable("LOADERLAB_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("lesson-predict.png"))));
}

LOADERLAB_TEST_MAIN(TestWindowLesson)
#include "test_window_lesson.moc"
