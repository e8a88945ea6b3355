// File -> Follow run…: a run that another process is still writing (as
// loaderlab_probe.watch writes it) shows in the window and keeps growing: batches
// appended after the follow began are plotted and counted, the follow ends when the
// run's JSON says the run ended, when the run is removed from the run list or the
// window closes, when a file disappears (keeping what was shown), and when the process
// writing it is gone without its final summary. Any rank's file of a
// torch.distributed set follows, or opens, the whole set with its ranks' lanes. A
// headless `loaderlab run` is followed while it writes its .part files, by their
// final names or by the .part itself.

#include "app/window/main_window.h"
#include "app/window/run_follower.h"

#include "core/io/rank_set.h"

#include "widgets/plots/timeline_plottable.h"
#include "widgets/plots/wait_time_plot.h"
#include "widgets/plots/worker_timeline_plot.h"
#include "widgets/session/run_list.h"
#include "widgets/session/run_list_view.h"
#include "widgets/session/run_session.h"

#include "tests/support/followed_run.h"
#include "tests/support/plot_of.h"
#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QtTest>

#include <QProcess>
#include <QStatusBar>
#include <QTableWidget>

#include <filesystem>

#include <sys/wait.h>
#include <unistd.h>

using namespace loaderlab;
namespace fr = followed_run;

namespace {

int overlayBatches(const MainWindow &window)
{
    const auto &graphs = plotOf<WaitTimePlot>(window)->overlayGraphs();
    return graphs.empty() ? -1 : graphs[0]->dataCount();
}

} // namespace

class TestWindowFollow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void followShowsBatchesAppendedAfterItOpened();
    void removedRunOrClosedWindowStopsFollowing();
    void vanishedFileStopsAndKeepsWhatWasShown();
    void writerGoneWithoutItsSummaryStopsTheFollow();
    void rankSetFollowsWithItsRanksLanes();
    void followsAHeadlessRunAsItWrites();

private:
    QTemporaryDir m_dir;
    std::string path(const std::string &name) const
    {
        return m_dir.filePath(QString::fromStdString(name)).toStdString();
    }
    // A run that has written its JSON ("running") and `rows` batches so far.
    std::string startRun(const std::string &name, int rows)
    {
        fr::writeJson(path(name + ".json"), fr::summaryJson("running"));
        fr::append(path(name + ".csv"), traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, rows)));
        return path(name + ".csv");
    }
};

void TestWindowFollow::followShowsBatchesAppendedAfterItOpened()
{
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    const std::string csv = startRun("run", 10);
    QString error;
    QVERIFY2(window.followRun(QString::fromStdString(csv), &error), qPrintable(error));
    RunList *runs = window.session()->runs();
    QCOMPARE(runs->runs().size(), std::size_t{2});
    const int id = runs->runs()[1].id;
    QVERIFY(window.runFollower()->isFollowing(id));
    QCOMPARE(runs->find(id)->name, QStringLiteral("2 workers, batch 8 (following)"));
    QCOMPARE(overlayBatches(window), 10);

    // 15 more batches, the last one not yet whole.
    const std::string more = fr::csvText(fr::rows(10, 15));
    fr::append(csv, more.substr(0, more.size() - 7));
    QTRY_COMPARE(runs->find(id)->summary.batches, std::int64_t{24});
    QCOMPARE(overlayBatches(window), 24);
    QTableWidget *stats = childNamed<QTableWidget>(&window, "runStatsTable");
    QCOMPARE(stats->item(0, RunListView::BatchesColumn)->text(), QStringLiteral("24"));
    // The plots show the new batches (no live run has them).
    QVERIFY(plotOf<WaitTimePlot>(window)->xAxis->range().upper >= 23.0);
    QVERIFY(window.runFollower()->isFollowing(id));

    // The writer finishes the row and rewrites its JSON: following ends.
    fr::append(csv, more.substr(more.size() - 7));
    fr::writeJson(path("run.json"), fr::summaryJson("finished", 1, -1, 0, 25));
    QTRY_VERIFY(!window.runFollower()->isFollowing(id));
    QCOMPARE(runs->find(id)->summary.batches, std::int64_t{25});
    QCOMPARE(overlayBatches(window), 25);
    QCOMPARE(runs->find(id)->name, QStringLiteral("2 workers, batch 8"));
    QVERIFY2(window.statusBar()->currentMessage().contains(QLatin1String("Finished following")),
             qPrintable(window.statusBar()->currentMessage()));
    // Rows written after the end are not read.
    fr::append(csv, fr::csvText(fr::rows(25, 3)));
    QTest::qWait(3 * window.runFollower()->interval());
    QCOMPARE(overlayBatches(window), 25);
}

void TestWindowFollow::removedRunOrClosedWindowStopsFollowing()
{
    MainWindow window;
    window.show();
    const std::string csv = startRun("removed", 4);
    QString error;
    QVERIFY2(window.followRun(QString::fromStdString(csv), &error), qPrintable(error));
    RunList *runs = window.session()->runs();
    const int id = runs->runs()[1].id;
    runs->remove(id);
    QVERIFY(window.runFollower()->followed().empty());

    // The window closing ends every follow.
    QVERIFY2(window.followRun(QString::fromStdString(path("removed.json")), &error),
             qPrintable(error));
    QCOMPARE(window.runFollower()->followed().size(), std::size_t{1});
    window.close();
    QVERIFY(window.runFollower()->followed().empty());
}

void TestWindowFollow::vanishedFileStopsAndKeepsWhatWasShown()
{
    MainWindow window;
    window.show();
    const std::string csv = startRun("vanishing", 6);
    QString error;
    QVERIFY2(window.followRun(QString::fromStdString(csv), &error), qPrintable(error));
    const int id = window.session()->runs()->runs()[1].id;
    std::filesystem::remove(csv);
    QTRY_VERIFY(!window.runFollower()->isFollowing(id));
    const QString message = window.statusBar()->currentMessage();
    QVERIFY2(message.contains(QString::fromStdString(csv))
                 && message.contains(QLatin1String("no such file")),
             qPrintable(message));
    QVERIFY(window.session()->runs()->find(id));
    QCOMPARE(overlayBatches(window), 6);

    // A file that is no run is refused at once, changing nothing.
    const std::string other = path("other.json");
    fr::writeJson(other, nlohmann::json{{"loader", nlohmann::json::object()}});
    QVERIFY(!window.followRun(QString::fromStdString(other), &error));
    QVERIFY2(error.contains(QString::fromStdString(other)), qPrintable(error));
    QCOMPARE(window.session()->runs()->runs().size(), std::size_t{2});
}

void TestWindowFollow::writerGoneWithoutItsSummaryStopsTheFollow()
{
    MainWindow window;
    window.show();
    // The JSON says "running" for good: its writer, on this host, has ended (killed).
    const pid_t writer = ::fork();
    if (writer == 0)
        ::_exit(0);
    ::waitpid(writer, nullptr, 0);
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    nlohmann::json json = fr::summaryJson("running");
    json["probe"] = {
        {"rank", 0}, {"world_size", 1}, {"start_unix_ns", 1}, {"host", host}, {"pid", writer}};
    const std::string csv = startRun("killed", 7);
    fr::writeJson(path("killed.json"), json);
    QString error;
    QVERIFY2(window.followRun(QString::fromStdString(csv), &error), qPrintable(error));
    const int id = window.session()->runs()->runs()[1].id;
    QVERIFY(window.runFollower()->isFollowing(id));
    QTRY_VERIFY_WITH_TIMEOUT(!window.runFollower()->isFollowing(id), 30'000);
    const QString message = window.statusBar()->currentMessage();
    QVERIFY2(message.contains(QStringLiteral("the writer (pid %1) is gone").arg(writer))
                 && message.contains(QLatin1String("without its summary")),
             qPrintable(message));
    QCOMPARE(overlayBatches(window), 7);
    QCOMPARE(window.session()->runs()->find(id)->name, QStringLiteral("2 workers, batch 8"));
}

void TestWindowFollow::rankSetFollowsWithItsRanksLanes()
{
    MainWindow window;
    window.show();
    const std::string stem = path("ddp");
    for (int r = 0; r < 2; ++r) {
        fr::writeJson(rankJsonPath(stem, r), fr::summaryJson("running", 2, r, 1'000'000'000));
        fr::append(rankCsvPath(stem, r), traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 3, r)));
    }
    QString error;
    QVERIFY2(window.followRun(QString::fromStdString(rankJsonPath(stem, 1)), &error),
             qPrintable(error));
    RunList *runs = window.session()->runs();
    const int id = runs->runs()[1].id;
    // Rank 0's batches end at 10, 20, 30 ms, rank 1's at 11, 21, 31: up to 30 ms both
    // ranks have written theirs.
    QCOMPARE(runs->find(id)->trace->size(), std::size_t{5});
    auto *timeline = plotOf<WorkerTimelinePlot>(window);
    QCOMPARE(timeline->overlayTimelines().size(), std::size_t{1});
    QCOMPARE(timeline->overlayTimelines()[0]->ranks(), 2);
    QCOMPARE(timeline->overlayTimelines()[0]->workerLanes(), 2);

    for (int r = 0; r < 2; ++r)
        fr::append(rankCsvPath(stem, r), fr::csvText(fr::rows(3, 2, r)));
    QTRY_COMPARE(runs->find(id)->trace->size(), std::size_t{9});
    for (int r = 0; r < 2; ++r)
        fr::writeJson(rankJsonPath(stem, r), fr::summaryJson("finished", 2, r, 1'000'000'000, 5));
    QTRY_VERIFY(!window.runFollower()->isFollowing(id));
    QCOMPARE(runs->find(id)->summary.batches, std::int64_t{10});
    QCOMPARE(runs->find(id)->summary.ranks.size(), std::size_t{2});
    QCOMPARE(runs->find(id)->summary.ranks[1].batches, std::int64_t{5});

    // Open run… on any rank's file opens the whole set too.
    QVERIFY2(window.openRun(QString::fromStdString(rankCsvPath(stem, 1)), QString(), &error),
             qPrintable(error));
    QCOMPARE(runs->runs().back().summary.batches, std::int64_t{10});
    QCOMPARE(runs->runs().back().summary.ranks.size(), std::size_t{2});
}

void TestWindowFollow::followsAHeadlessRunAsItWrites()
{
    const auto contents = [](const std::string &file) {
        QFile f(QString::fromStdString(file));
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    RunList *runs = window.session()->runs();
    for (const char *chosen : {"final", "part"}) {
        const std::string stem = path(std::string("headless-") + chosen);
        const std::string csv = stem + ".csv";
        const std::string json = stem + ".json";
        // An earlier run's summary under the name: untouched until this run ends.
        fr::writeJson(json, fr::summaryJson("finished"));
        const QByteArray earlier = contents(json);
        QProcess run;
        run.start(
            QStringLiteral(LOADERLAB_BINARY),
            {QStringLiteral("run"), QStringLiteral("--shape"), QStringLiteral("1x4x4"),
             QStringLiteral("--samples"), QStringLiteral("64"), QStringLiteral("--batch-size"),
             QStringLiteral("8"), QStringLiteral("--sleep-batch-ms"), QStringLiteral("20"),
             QStringLiteral("--batches"), QStringLiteral("60"), QStringLiteral("--epochs"),
             QStringLiteral("0"), QStringLiteral("--quiet"), QStringLiteral("--csv"),
             QString::fromStdString(csv), QStringLiteral("--json"), QString::fromStdString(json)});
        QVERIFY(run.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(QString::fromStdString(csv + ".part"))
                                     && QFile::exists(QString::fromStdString(json + ".part")),
                                 20'000);
        QCOMPARE(contents(json), earlier);
        QVERIFY(!QFile::exists(QString::fromStdString(csv)));
        // File > Follow run on RUN.csv (not there yet), or on RUN.csv.part itself.
        QString error;
        const std::string given = std::string(chosen) == "part" ? csv + ".part" : csv;
        QVERIFY2(window.followRun(QString::fromStdString(given), &error), qPrintable(error));
        const int id = runs->runs().back().id;
        QVERIFY(window.runFollower()->isFollowing(id));
        QTRY_VERIFY_WITH_TIMEOUT(runs->find(id)->summary.batches >= 5, 20'000);
        QVERIFY(run.state() == QProcess::Running); // read while it was being written
        QVERIFY(run.waitForFinished(60'000));
        QCOMPARE(run.exitCode(), 0);
        // The files take their final names; the follow reads on to the end.
        QTRY_VERIFY_WITH_TIMEOUT(!window.runFollower()->isFollowing(id), 20'000);
        QCOMPARE(runs->find(id)->summary.batches, std::int64_t{60});
        QVERIFY2(window.statusBar()->currentMessage().contains(QLatin1String("Finished following")),
                 qPrintable(window.statusBar()->currentMessage()));
        QVERIFY(!QFile::exists(QString::fromStdString(csv + ".part")));
        QVERIFY(!QFile::exists(QString::fromStdString(json + ".part")));
        QVERIFY(contents(json) != earlier);
    }
}

LOADERLAB_TEST_MAIN(TestWindowFollow)
#include "test_window_follow.moc"
