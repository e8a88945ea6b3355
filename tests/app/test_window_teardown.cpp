// Closing the window while everything runs: an autotuned run (the autotuner's thread
// holds the run's engine), a follow of a run still being written, and a sweep. The
// window stops them before its children go, so nothing reaches a run that is gone.
// Built into CI's AddressSanitizer stage (label "teardown"), where a use after free
// fails the test.

#include "app/window/autotune_manager.h"
#include "app/window/main_window.h"
#include "app/window/run_follower.h"
#include "core/io/trace_csv.h"
#include "widgets/experiments/experiments_view.h"
#include "widgets/session/run_session.h"
#include "widgets/settings/control_panel.h"

#include "tests/support/followed_run.h"

#include "tests/support/test_main.h"
#include "window_test_support.h"

#include <QCheckBox>
#include <QtTest>

#include <memory>

using namespace loaderlab;
namespace fr = followed_run;

class TestWindowTeardown : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void closingWhileEverythingRuns();
};

void TestWindowTeardown::closingWhileEverythingRuns()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto window = std::make_unique<MainWindow>();
    RunConfig config = windowtest::fastConfig(1, 4096);
    config.epochs = 0; // until stopped
    window->applyConfig(config);
    window->show();

    QVERIFY(window->startRun());
    childNamed<QCheckBox>(window->controlPanel(), "autotuneCheck")->click();
    QVERIFY(window->autotuner());

    const std::string base = dir.filePath(QStringLiteral("followed")).toStdString();
    fr::writeJson(base + ".json", fr::summaryJson("running"));
    fr::append(base + ".csv", traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 10)));
    QString error;
    QVERIFY2(window->followRun(QString::fromStdString(base + ".csv"), &error), qPrintable(error));
    QVERIFY(!window->runFollower()->followed().empty());

    ExperimentsView *sweep = window->experimentsView();
    sweep->setResultsFolder(dir.filePath(QStringLiteral("sweep")));
    QVERIFY2(sweep->start(&error), qPrintable(error));
    QVERIFY(sweep->running());

    // The autotuner at work on a run that is going.
    QTRY_VERIFY_WITH_TIMEOUT(window->session()->trace()->size() > 200, 30'000);
    QVERIFY(window->session()->running());
    const auto trace = window->session()->trace();
    // Qt deletes the window's children in the order they were made, the run's session
    // first: by then the autotuner (whose thread holds the run's engine) and every
    // follow must have ended. Their managers, made later, are still there to ask.
    const auto *tuning = window->findChild<AutotuneManager *>();
    const RunFollower *follower = window->runFollower();
    QVERIFY(tuning && tuning->autotuner());
    bool autotunerGone = false, followsGone = false, checked = false;
    connect(window->session(), &QObject::destroyed, this, [&] {
        checked = true;
        autotunerGone = tuning->autotuner() == nullptr;
        followsGone = follower->followed().empty();
    });
    window.reset();
    QVERIFY(checked);
    QVERIFY2(autotunerGone, "the autotuner outlived the run it tunes");
    QVERIFY2(followsGone, "a follow outlived the run list it adds to");
    // The run was stopped, not left going: its trace ends.
    const std::size_t batches = trace->size();
    QTest::qWait(300);
    QCOMPARE(trace->size(), batches);
}

LOADERLAB_TEST_MAIN(TestWindowTeardown)
#include "test_window_teardown.moc"
