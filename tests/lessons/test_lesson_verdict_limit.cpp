// "What is the limit here?": the verdict on phases whose rates are known (the loader
// the limit and which of its stages, the step, both close, and no replay to read), and
// the lesson run through the real loader on a JPEG folder, its verdict's figures those
// of its own trace.

#include "core/lessons/lesson.h"
#include "core/lessons/lesson_runner.h"
#include "tests/support/image_folder.h"
#include "tests/support/test_main.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace loaderlab;

namespace {

// `kept` batches of 8 samples every `loadedMs`, then replayed ones every `aloneMs`,
// 40 batches in all, with 2 of warm-up. Each loaded batch took its worker `readMs`
// reading and `decodeMs` decoding (half of it transforming).
LessonPhaseResult replayPhase(std::int64_t kept, double loadedMs, double aloneMs,
                              double readMs = 0.0, double decodeMs = 0.0)
{
    RunConfig c;
    c.replayBatches = kept;
    c.warmupBatches = 2;
    std::vector<TraceRecord> records;
    double t = 0.0;
    for (int i = 0; i < 40; ++i) {
        TraceRecord r;
        r.index = i;
        r.samples = 8;
        const double ms = i < kept ? loadedMs : aloneMs;
        r.requestNs = static_cast<std::int64_t>(t * 1e6);
        r.deliveryNs = r.requestNs + static_cast<std::int64_t>((i < kept ? ms - 1.0 : 0.0) * 1e6);
        r.computeStartNs = r.deliveryNs;
        t += ms;
        r.computeEndNs = static_cast<std::int64_t>(t * 1e6);
        if (i < kept) {
            r.worker = i % 2;
            r.readNs = static_cast<std::int64_t>(readMs * 1e6);
            r.decodeNs = static_cast<std::int64_t>(decodeMs * 0.5e6);
            r.transformNs = static_cast<std::int64_t>(decodeMs * 0.5e6);
        }
        records.push_back(r);
    }
    return lessonPhaseResult("replay", c, std::move(records), RunSummary{});
}

} // namespace

class TestLessonVerdictLimit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theLoaderIsTheLimit();
    void theLoadersStageIsNamed();
    void theStepIsTheLimit();
    void bothAreClose();
    void withoutAReplayItDoesNotApply();
    void theLessonRunsOnAFolder();
};

void TestLessonVerdictLimit::theLoaderIsTheLimit()
{
    // 8 samples per 10 ms while loading (800/s), per 2 ms alone (4,000/s).
    const LessonVerdict v = limitVerdict({replayPhase(10, 10.0, 2.0)});
    QVERIFY(v.observed);
    QCOMPARE(v.figures.at("loaded_samples_per_sec").get<double>(), 800.0);
    QCOMPARE(v.figures.at("replay_samples_per_sec").get<double>(), 4000.0);
    QCOMPARE(v.figures.at("loading_share").get<double>(), 0.8);
    QVERIFY2(v.text.starts_with("Seen: the loader is the limit. It delivered 800 samples/s; "
                                "with loading free the step alone ran at 4000 (5.0x), so "
                                "loading costs 80 % of the job's time."),
             v.text.c_str());
}

void TestLessonVerdictLimit::theLoadersStageIsNamed()
{
    // Workers 10 % reading, 90 % decoding and transforming: the decode binds.
    LessonVerdict v = limitVerdict({replayPhase(10, 10.0, 2.0, 1.0, 9.0)});
    QCOMPARE(v.figures.at("read_share").get<double>(), 0.1);
    QVERIFY2(v.text.find("Its workers spent 90 % of their loading time decoding and "
                         "transforming and 10 % reading the files: the decode binds. Lift it "
                         "with more workers or cores")
                 != std::string::npos,
             v.text.c_str());
    QVERIFY2(v.text.ends_with("; up to 4000 samples/s, where the step becomes the limit (then "
                              "half precision, channels-last, a faster device)."),
             v.text.c_str());
    // 75 % reading: reading binds.
    v = limitVerdict({replayPhase(10, 10.0, 2.0, 6.0, 2.0)});
    QCOMPARE(v.figures.at("read_share").get<double>(), 0.75);
    QVERIFY2(v.text.find("Its workers spent 75 % of their loading time reading the files and "
                         "25 % decoding and transforming them: reading binds. Lift it with "
                         "faster storage")
                 != std::string::npos,
             v.text.c_str());
    // No stage times (a pipeline that records none): no share, the general advice.
    v = limitVerdict({replayPhase(10, 10.0, 2.0)});
    QVERIFY(!v.figures.contains("read_share"));
    QVERIFY2(v.text.find("Lift it with more workers, the fast decode") != std::string::npos,
             v.text.c_str());
}

void TestLessonVerdictLimit::theStepIsTheLimit()
{
    const LessonVerdict v = limitVerdict({replayPhase(10, 10.0, 9.8)}); // 2 % apart
    QVERIFY(v.observed);
    QVERIFY2(v.text.starts_with("Seen: the step is the limit. Loading costs 2 % of the job's "
                                "time"),
             v.text.c_str());
}

void TestLessonVerdictLimit::bothAreClose()
{
    const LessonVerdict v = limitVerdict({replayPhase(10, 10.0, 9.0)}); // 10 % apart
    QVERIFY(v.observed);
    QVERIFY2(v.text.starts_with("Seen: both are close. Loading costs 10 %"), v.text.c_str());
}

void TestLessonVerdictLimit::withoutAReplayItDoesNotApply()
{
    // The kept batches all warm-up: no rate while loading.
    const LessonVerdict v = limitVerdict({replayPhase(2, 10.0, 2.0)});
    QVERIFY(!v.observed);
    QVERIFY(!v.applies);
    QVERIFY2(v.text.starts_with("Does not apply to this data: "), v.text.c_str());
    QVERIFY(!limitVerdict({}).observed); // stopped before the phase
}

void TestLessonVerdictLimit::theLessonRunsOnAFolder()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    RunConfig base;
    base.dataset.kind = DatasetKind::ImageFolder;
    base.dataset.path =
        writeImageFolder(dir.filePath(QStringLiteral("my photos")), 2, 12, 150, 320).toStdString();
    const Lesson *lesson = findLesson("what-limits");
    QVERIFY(lesson);
    const auto phases = runLesson(*lesson, base, {});
    QCOMPARE(phases.size(), std::size_t{1});
    QVERIFY2(phases[0].error.empty(), phases[0].error.c_str());
    QCOMPARE(phases[0].config.replayBatches, std::int64_t{30});
    QCOMPARE(phases[0].records.size(), std::size_t{90});
    const LessonVerdict v = lesson->verdict(phases);
    QVERIFY2(v.observed, v.text.c_str());
    // Its figures are its trace's: the summary of the same run splits the same way.
    QCOMPARE(v.figures.at("loaded_samples_per_sec").get<double>(),
             phases[0].summary.replay.loadedSamplesPerSec);
    QCOMPARE(v.figures.at("replay_samples_per_sec").get<double>(),
             phases[0].summary.replay.replaySamplesPerSec);
    // The real loader times its stages: where its workers' time went is known.
    QVERIFY(v.figures.contains("read_share"));
}

LOADERLAB_GUILESS_TEST_MAIN(TestLessonVerdictLimit)
#include "test_lesson_verdict_limit.moc"
