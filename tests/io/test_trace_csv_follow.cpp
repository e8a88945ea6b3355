// A per-batch CSV read while it is written (core/io/trace_csv_follow.h) and a run of
// one process followed through its CSV and JSON (core/io/run_follow.h): rows that
// arrive in pieces come out whole and once, a file not there yet or holding only its
// header gives nothing, and a file that shrinks, is replaced, disappears or has a bad
// row stops the follow naming the file and the reason.

#include "core/io/run_follow.h"
#include "core/io/running_summary.h"
#include "core/io/trace_csv.h"
#include "core/io/trace_csv_follow.h"

#include "tests/support/followed_run.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

using namespace loaderlab;
namespace fr = followed_run;
using followed_run::sameRow;
using followed_run::thrown;

namespace {

// A process that has ended: reaped (no such process), or a zombie not reaped yet.
pid_t endedProcess(bool reap)
{
    const pid_t child = ::fork();
    if (child == 0)
        ::_exit(0);
    if (reap)
        ::waitpid(child, nullptr, 0);
    else
        while (::waitid(P_PID, static_cast<id_t>(child), nullptr, WEXITED | WNOWAIT) != 0) { }
    return child;
}

} // namespace

class TestTraceCsvFollow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void nothingUntilTheHeaderIsWhole();
    void rowsArriveInPieces();
    void lastLineWithoutNewlineOnlyAtTheEnd();
    void longFileIsCaughtUpInParts();
    void shrunkOrReplacedFileStops();
    void missingOrBadFileStops();
    void runOfOneProcessFollowedToItsEnd();
    void writerGoneWithoutItsSummaryEndsTheFollow();

private:
    QTemporaryDir m_dir;
    std::string m_csv;
    std::string path(const char *name) const
    {
        return m_dir.filePath(QLatin1String(name)).toStdString();
    }
};

void TestTraceCsvFollow::init()
{
    static int n = 0;
    m_csv = path(("run" + std::to_string(++n) + ".csv").c_str());
}

void TestTraceCsvFollow::nothingUntilTheHeaderIsWhole()
{
    TraceCsvFollower follower(m_csv);
    QVERIFY(follower.poll().empty()); // not there yet
    QVERIFY(!follower.seen());
    const std::string header = traceCsvHeader() + '\n';
    fr::append(m_csv, header.substr(0, 20));
    QVERIFY(follower.poll().empty());
    QVERIFY(follower.seen());
    fr::append(m_csv, header.substr(20));
    QVERIFY(follower.poll().empty()); // the header alone
    QCOMPARE(follower.rows(), std::int64_t{0});
    fr::append(m_csv, fr::csvText(fr::rows(0, 1)));
    QCOMPARE(follower.poll().size(), std::size_t{1});
}

void TestTraceCsvFollow::rowsArriveInPieces()
{
    const auto all = fr::rows(0, 7);
    const std::string text = traceCsvHeader() + '\n' + fr::csvText(all);
    // Cut in the middle of rows 2 and 5 (and once right after a newline).
    const std::size_t cut1 = text.find('\n', text.find('\n') + 1) + 40;
    const std::size_t cut2 = text.find('\n', cut1) + 1;
    const std::size_t cut3 = text.size() - 3 * (text.size() - cut2) / 4;
    TraceCsvFollower follower(m_csv);
    std::vector<TraceRecord> got;
    for (const auto &[from, to] :
         {std::pair{std::size_t{0}, cut1}, {cut1, cut2}, {cut2, cut3}, {cut3, text.size()}}) {
        fr::append(m_csv, text.substr(from, to - from));
        const auto rows = follower.poll();
        got.insert(got.end(), rows.begin(), rows.end());
    }
    QCOMPARE(got.size(), all.size());
    for (std::size_t i = 0; i < all.size(); ++i)
        QVERIFY2(sameRow(got[i], all[i]), qPrintable(QString::number(i)));
    QCOMPARE(follower.rows(), std::int64_t{7});
    QVERIFY(follower.poll().empty()); // nothing new: nothing twice
}

void TestTraceCsvFollow::lastLineWithoutNewlineOnlyAtTheEnd()
{
    std::string text = traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 3));
    text.pop_back(); // the last row's newline not written yet
    fr::append(m_csv, text);
    TraceCsvFollower follower(m_csv);
    QCOMPARE(follower.poll().size(), std::size_t{2});
    // The writer has finished: the line is whole.
    const auto last = follower.poll(true);
    QCOMPARE(last.size(), std::size_t{1});
    QCOMPARE(last[0].index, std::int64_t{2});
}

void TestTraceCsvFollow::longFileIsCaughtUpInParts()
{
    fr::append(m_csv, traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 300)));
    TraceCsvFollower follower(m_csv);
    std::int64_t rows = 0;
    int polls = 0;
    do {
        rows += static_cast<std::int64_t>(follower.poll(false, 4096).size());
        ++polls;
    } while (!follower.caughtUp());
    QCOMPARE(rows, std::int64_t{300});
    QVERIFY(polls > 5);
}

void TestTraceCsvFollow::shrunkOrReplacedFileStops()
{
    fr::append(m_csv, traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 5)));
    TraceCsvFollower shrunk(m_csv);
    QCOMPARE(shrunk.poll().size(), std::size_t{5});
    std::filesystem::resize_file(m_csv, 200);
    QString why = thrown([&] { shrunk.poll(); });
    QVERIFY2(why.contains(QString::fromStdString(m_csv))
                 && why.contains(QLatin1String("got shorter")),
             qPrintable(why));

    // Another file under the name (a new run with the same --out), even a longer one.
    const std::string other = path("replaced.csv");
    std::filesystem::remove(m_csv);
    fr::append(m_csv, traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 2)));
    TraceCsvFollower replaced(m_csv);
    QCOMPARE(replaced.poll().size(), std::size_t{2});
    fr::append(other, traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 9)));
    std::filesystem::rename(other, m_csv);
    why = thrown([&] { replaced.poll(); });
    QVERIFY2(why.contains(QString::fromStdString(m_csv)) && why.contains(QLatin1String("replaced")),
             qPrintable(why));
}

void TestTraceCsvFollow::missingOrBadFileStops()
{
    fr::append(m_csv, traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 2)));
    TraceCsvFollower gone(m_csv);
    QCOMPARE(gone.poll().size(), std::size_t{2});
    std::filesystem::remove(m_csv);
    QString why = thrown([&] { gone.poll(); });
    QVERIFY2(why.contains(QString::fromStdString(m_csv))
                 && why.contains(QLatin1String("no such file")),
             qPrintable(why));

    // A row that does not follow: its line is named (header 1, rows 2-3, this 4).
    fr::append(m_csv, traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 2)));
    TraceCsvFollower bad(m_csv);
    QCOMPARE(bad.poll().size(), std::size_t{2});
    fr::append(m_csv, fr::csvText(fr::rows(1, 1)));
    why = thrown([&] { bad.poll(); });
    QVERIFY2(why.contains(QLatin1String("line 4"))
                 && why.contains(QLatin1String("does not follow")),
             qPrintable(why));

    // Not a per-batch CSV; a line that never ends.
    const std::string notCsv = path("not.csv");
    fr::append(notCsv, "a,b,c\n1,2,3\n");
    why = thrown([&] { TraceCsvFollower(notCsv).poll(); });
    QVERIFY2(why.contains(QLatin1String("header differs")), qPrintable(why));
    const std::string endless = path("endless.csv");
    fr::append(endless, traceCsvHeader() + '\n' + std::string(3000, '1'));
    why = thrown([&] { TraceCsvFollower(endless).poll(); });
    QVERIFY2(why.contains(QLatin1String("line 2")) && why.contains(QLatin1String("longer than")),
             qPrintable(why));
}

void TestTraceCsvFollow::runOfOneProcessFollowedToItsEnd()
{
    const std::string json = path("single.json");
    const std::string csv = path("single.csv");
    fr::writeJson(json, fr::summaryJson("running"));
    // The JSON first, no CSV yet: nothing to show, still running.
    RunFollow follow(csv);
    QCOMPARE(follow.poll(), std::int64_t{0});
    QVERIFY(follow.running());
    fr::append(csv, traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 4)));
    QCOMPARE(follow.poll(), std::int64_t{4});
    std::string more = fr::csvText(fr::rows(4, 3));
    fr::append(csv, more.substr(0, more.size() - 10));
    QCOMPARE(follow.poll(), std::int64_t{2});
    QCOMPARE(follow.trace()->size(), std::size_t{6});
    QCOMPARE(follow.opened().report.summary.batches, std::int64_t{6});
    QCOMPARE(follow.opened().report.state, std::string("running"));
    // Each batch's worker span, in the trace as an opened run's.
    QCOMPARE(follow.trace()->spanCount(), std::size_t{6});

    // The end: the rest of the row, then the final JSON with an epoch marker.
    fr::append(csv, more.substr(more.size() - 10));
    nlohmann::json final = fr::summaryJson("finished", 1, -1, 0, 7);
    final["markers"] = nlohmann::json::array(
        {toJson(TraceMarker{3, 35'000'000, MarkerKind::Epoch, 0, {}, "1"})});
    fr::writeJson(json, final);
    QCOMPARE(follow.poll(), std::int64_t{1});
    QVERIFY(!follow.running());
    QCOMPARE(follow.trace()->size(), std::size_t{7});
    QCOMPARE(follow.trace()->markerCount(), std::size_t{1});
    QCOMPARE(follow.opened().report.state, std::string("finished"));
    QCOMPARE(follow.poll(), std::int64_t{0});

    // Rows past the run the JSON describes (3 workers of 2) are refused with both files.
    const std::string json2 = path("wide.json");
    const std::string csv2 = path("wide.csv");
    fr::writeJson(json2, fr::summaryJson("running"));
    fr::append(csv2, traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 4, 0, 3)));
    RunFollow wide(json2);
    const QString why = thrown([&] { wide.poll(); });
    QVERIFY2(why.contains(QString::fromStdString(csv2)) && why.contains(QLatin1String("worker 2"))
                 && why.contains(QString::fromStdString(json2)),
             qPrintable(why));
    QVERIFY(!wide.running());
}

void TestTraceCsvFollow::writerGoneWithoutItsSummaryEndsTheFollow()
{
    // Runs whose JSON says "running" for good, named by the probe's writer.
    struct Case
    {
        const char *name;
        std::int64_t pid;
        std::string host;
        std::string pidNamespace;
        bool ends; // the follow ends, the writer being gone
    };
    const pid_t zombie = endedProcess(false);
    const std::vector<Case> cases = {
        {"gone", endedProcess(true), thisHost(), "", true},
        {"zombie", zombie, thisHost(), "", true},
        {"alive", ::getpid(), thisHost(), "", false},
        // Where this process cannot look for the writer, it waits as before.
        {"elsewhere", endedProcess(true), "another-host", "", false},
        {"container", endedProcess(true), thisHost(), "pid:[1]", false},
    };
    std::vector<std::unique_ptr<RunFollow>> follows;
    for (const Case &c : cases) {
        nlohmann::json json = fr::summaryJson("running");
        json["probe"] = {{"rank", 0},
                         {"world_size", 1},
                         {"start_unix_ns", 1},
                         {"host", c.host},
                         {"pid", c.pid},
                         {"batches", 0},
                         {"pid_namespace", c.pidNamespace}};
        fr::writeJson(path((std::string(c.name) + ".json").c_str()), json);
        const std::string csv = path((std::string(c.name) + ".csv").c_str());
        fr::append(csv, traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 3)));
        follows.push_back(std::make_unique<RunFollow>(csv));
    }
    std::vector<QString> why(cases.size());
    const auto pollAll = [&] {
        for (std::size_t i = 0; i < cases.size(); ++i)
            if (why[i].isEmpty())
                why[i] = thrown([&] { follows[i]->poll(); });
    };
    for (int i = 0; i < 300 && (why[0].isEmpty() || why[1].isEmpty()); ++i) {
        pollAll();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    // The others, as long without a change, have been looked at too.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    pollAll();
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const Case &c = cases[i];
        QCOMPARE(follows[i]->trace()->size(), std::size_t{3}); // what was read stays
        if (!c.ends) {
            QVERIFY2(why[i].isEmpty() && follows[i]->running(), qPrintable(why[i]));
            continue;
        }
        QVERIFY2(why[i].contains(QStringLiteral("the writer (pid %1) is gone").arg(c.pid))
                     && why[i].contains(QLatin1String("without its summary after 3 batches"))
                     && why[i].contains(QString::fromStdString(path(c.name) + ".json")),
                 qPrintable(QLatin1String(c.name) + QLatin1String(": ") + why[i]));
        QVERIFY(!follows[i]->running());
    }
    ::waitpid(zombie, nullptr, 0);
}

LOADERLAB_GUILESS_TEST_MAIN(TestTraceCsvFollow)
#include "test_trace_csv_follow.moc"
