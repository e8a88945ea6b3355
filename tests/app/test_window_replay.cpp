// A replay in the window: a configuration that has one (a --config file, a lesson's
// preset) replays its kept batches and the stats panel says what loading costs; Start
// (F5) runs an ordinary run from the same settings.

#include "window_test_support.h"

#include "app/window/main_window.h"
#include "widgets/session/run_session.h"

#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QtTest>

#include <QAction>
#include <QLabel>
#include <QMenuBar>

using namespace loaderlab;

namespace {

bool replayed(const MainWindow &window)
{
    for (const TraceMarker &m : window.session()->trace()->markers())
        if (m.kind == MarkerKind::Replay)
            return true;
    return false;
}

QAction *replayTestAction(const MainWindow &window, const char *name)
{
    for (QAction *menu : window.menuBar()->actions())
        if (menu->menu())
            for (QAction *action : menu->menu()->actions())
                if (action->objectName() == QLatin1String(name))
                    return action;
    qFatal("no menu action %s", name);
}

} // namespace

class TestWindowReplay : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void aConfiguredReplayRunsAndStartDoesNot();
};

void TestWindowReplay::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("LoaderLabTests"));
}

void TestWindowReplay::aConfiguredReplayRunsAndStartDoesNot()
{
    MainWindow window;
    RunConfig config = windowtest::fastConfig(1, 4096);
    config.replayBatches = 12;
    config.consumer.sleepPerBatchMs = 2.0;
    window.applyConfig(config);
    window.show();
    QVERIFY(window.startRun());
    QTRY_VERIFY_WITH_TIMEOUT(replayed(window), 30'000);
    auto *row = childNamed<QLabel>(&window, "replayLabel");
    QTRY_VERIFY_WITH_TIMEOUT(
        row->isVisible() && row->text().contains(QStringLiteral("while loading")), 30'000);
    QVERIFY2(row->text().contains(QStringLiteral("from batch 12")), qPrintable(row->text()));
    window.session()->stop();

    // Start (F5): the same settings, an ordinary run.
    replayTestAction(window, "startAction")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->trace()->size() > 30, 30'000);
    QVERIFY(!replayed(window));
    QCOMPARE(window.session()->config().replayBatches, std::int64_t{0});
    QTRY_VERIFY(!row->isVisible());
    window.session()->stop();
}

LOADERLAB_TEST_MAIN(TestWindowReplay)
#include "test_window_replay.moc"
