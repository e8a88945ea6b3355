// A sweep's results folder as hostile input and shared state, without running a
// cell: tampered and foreign records are refused with the file and line, FIFOs are
// refused instead of blocking, a second writer is refused with the holder's PID, a
// lock file that is a symbolic or hard link to another file is refused untouched, a
// merge never replaces another folder's results nor follows a record's trace name
// out of the folder, and a script path that is one of the folder's files is caught.

#include "core/sweep/sweep.h"
#include "core/sweep/sweep_results.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

using namespace loaderlab;
using nlohmann::json;

namespace {

SweepDefinition folderWorkersByBatch()
{
    SweepDefinition d;
    d.axes = {parseSweepAxis("loader.num_workers=0,1"), parseSweepAxis("loader.batch_size=4,8")};
    return d;
}

SweepRecord folderFinished(const SweepCell &cell)
{
    SweepRecord r;
    r.order = cell.order;
    r.grid = cell.grid;
    r.repeat = cell.repeat;
    r.values = cell.values;
    r.state = "finished";
    r.summary = {{"wall_seconds", 1.0},
                 {"samples_per_sec_mean", 100.0},
                 {"first_batch_latency_ms", 5.0},
                 {"input_bound_share", 0.5},
                 {"wait_ms", {{"p95", 2.0}}}};
    return r;
}

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void appendText(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::app | std::ios::binary) << text;
}

// The message of the std::invalid_argument `f` throws; fails the test if none.
template <typename F>
QString folderRefusal(F f)
{
    try {
        f();
    } catch (const std::invalid_argument &e) {
        return QString::fromUtf8(e.what());
    }
    return QStringLiteral("(accepted)");
}

} // namespace

class TestSweepFolder : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void badRecordsNameTheFileAndLine_data();
    void badRecordsNameTheFileAndLine();
    void tornLastLineIsIgnoredAndCut();
    void fifosAreRefused();
    void secondWriterIsRefusedWithThePid();
    void lockFileLinksAreRefused_data();
    void lockFileLinksAreRefused();
    void mergeRefusesAFolderWithResults();
    void mergeKeepsTracesInTheFolder();
    void scriptPathInTheFolderIsFound();

private:
    // A folder of folderWorkersByBatch() with cell 0 recorded by the sweep itself.
    std::string goodFolder(const QTemporaryDir &dir, const char *name)
    {
        const std::string path = dir.filePath(QLatin1String(name)).toStdString();
        SweepResults results(path, folderWorkersByBatch());
        results.append(folderFinished(expandSweep(folderWorkersByBatch())[0]));
        return path;
    }
};

void TestSweepFolder::badRecordsNameTheFileAndLine_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("why");
    const json good = toJson(folderFinished(expandSweep(folderWorkersByBatch())[1]));
    const auto with = [&](const char *key, const json &value) {
        json j = good;
        j[key] = value;
        return QByteArray::fromStdString(j.dump());
    };
    json p95 = good;
    p95["summary"]["wait_ms"]["p95"] = "x";
    QTest::newRow("no values") << with("values", json::array()) << QStringLiteral("values");
    QTest::newRow("a string value")
        << with("values", json::array({"0", 8})) << QStringLiteral("another sweep");
    QTest::newRow("a p95 text") << QByteArray::fromStdString(p95.dump())
                                << QStringLiteral("summary.wait_ms.p95");
    QTest::newRow("another sweep's values")
        << with("values", json::array({0, 16})) << QStringLiteral("another sweep");
    QTest::newRow("order outside the grid") << with("order", 4) << QStringLiteral("outside");
    QTest::newRow("order negative") << with("order", -1) << QStringLiteral("order");
    QTest::newRow("grid of another order") << with("grid", 2) << QStringLiteral("grid");
    QTest::newRow("trace out of the folder")
        << with("trace", "../.bashrc") << QStringLiteral("trace");
    QTest::newRow("state") << with("state", "done") << QStringLiteral("state");
    QTest::newRow("summary text") << with("summary", "x") << QStringLiteral("summary");
    QTest::newRow("figure text") << with("summary", {{"wall_seconds", "1"}})
                                 << QStringLiteral("wall_seconds");
    QTest::newRow("unknown key") << with("orders", 1) << QStringLiteral("unknown key");
    QTest::newRow("not an object") << QByteArray("[1,2]") << QStringLiteral("object");
    QTest::newRow("not JSON") << QByteArray("{\"order\": 1,") << QStringLiteral("JSON");
    QTest::newRow("nested 300000 deep")
        << QByteArray(300'000, '[') + QByteArray(300'000, ']') << QStringLiteral("nested");
    QTest::newRow("a 2 MiB line") << with("error", std::string(2 << 20, 'x'))
                                  << QStringLiteral("longer than 1 MiB");
}

void TestSweepFolder::badRecordsNameTheFileAndLine()
{
    QFETCH(QByteArray, line);
    QFETCH(QString, why);
    QTemporaryDir dir;
    const std::string folder = goodFolder(dir, "s");
    const std::string cells = folder + "/cells.jsonl";
    appendText(cells, line.toStdString() + "\n");
    const std::string before = readAll(cells);
    const QString expected = QString::fromStdString(cells) + QStringLiteral(":2: ");
    // The report and the window read it; a resume opens it for writing.
    QString error = folderRefusal([&] { readSweepRecords(folder); });
    QVERIFY2(error.startsWith(expected) && error.contains(why), qPrintable(error.left(300)));
    error = folderRefusal([&] { SweepResults again(folder, folderWorkersByBatch()); });
    QVERIFY2(error.startsWith(expected) && error.contains(why), qPrintable(error.left(300)));
    QVERIFY(readAll(cells) == before); // refused, not repaired
}

void TestSweepFolder::tornLastLineIsIgnoredAndCut()
{
    QTemporaryDir dir;
    const std::string folder = goodFolder(dir, "s");
    const std::string cells = folder + "/cells.jsonl";
    const std::string whole = readAll(cells);
    // A kill during the write: the line is whole but its newline is missing. It is
    // not counted as done, since the next writer cuts it off.
    std::string line = toJson(folderFinished(expandSweep(folderWorkersByBatch())[1])).dump();
    appendText(cells, line);
    QCOMPARE(readSweepRecords(folder).size(), std::size_t{1});
    {
        SweepResults again(folder, folderWorkersByBatch());
        QVERIFY(!again.recorded(1));
        QCOMPARE(readAll(cells), whole);
        again.append(folderFinished(expandSweep(folderWorkersByBatch())[1]));
    }
    QCOMPARE(readSweepRecords(folder).size(), std::size_t{2});
}

void TestSweepFolder::fifosAreRefused()
{
    QTemporaryDir dir;
    const std::string folder = goodFolder(dir, "s");
    // A shard's cells file: read by the report, the resume and the merge.
    const std::string shard = folder + "/cells-1-of-2.jsonl";
    QCOMPARE(::mkfifo(shard.c_str(), 0644), 0);
    QString error = folderRefusal([&] { readSweepRecords(folder); });
    QVERIFY2(error.contains(QString::fromStdString(shard))
                 && error.contains(QStringLiteral("FIFO")),
             qPrintable(error));
    error = folderRefusal([&] { SweepResults again(folder, folderWorkersByBatch()); });
    QVERIFY2(error.contains(QStringLiteral("FIFO")), qPrintable(error));
    ::unlink(shard.c_str());
    // The file the sweep appends to: refused before the first cell runs.
    const std::string cells = folder + "/cells.jsonl";
    ::unlink(cells.c_str());
    QCOMPARE(::mkfifo(cells.c_str(), 0644), 0);
    error = folderRefusal([&] { SweepResults again(folder, folderWorkersByBatch()); });
    QVERIFY2(error.contains(QString::fromStdString(cells))
                 && error.contains(QStringLiteral("FIFO")),
             qPrintable(error));
    ::unlink(cells.c_str());
    // The definition (a FIFO there would block the reader until a writer came).
    const std::string definition = folder + "/sweep.json";
    ::unlink(definition.c_str());
    QCOMPARE(::mkfifo(definition.c_str(), 0644), 0);
    error = folderRefusal([&] { readSweepRecords(folder); });
    QVERIFY2(error.contains(QStringLiteral("sweep.json")) && error.contains(QStringLiteral("FIFO")),
             qPrintable(error));
}

void TestSweepFolder::secondWriterIsRefusedWithThePid()
{
    QTemporaryDir dir;
    const std::string folder = dir.filePath(QStringLiteral("s")).toStdString();
    const QString pid = QStringLiteral("PID %1").arg(::getpid());
    {
        SweepResults first(folder, folderWorkersByBatch());
        const QString error = folderRefusal(
            [&] { SweepResults second(folder, folderWorkersByBatch()); });
        QVERIFY2(error.contains(QStringLiteral("another loaderlab is writing"))
                     && error.contains(pid),
                 qPrintable(error));
        // A shard cannot start beside a whole sweep, nor a merge into the folder.
        QVERIFY(folderRefusal([&] {
                    SweepResults shard(folder, folderWorkersByBatch(), {0, 2});
                }).contains(pid));
        QVERIFY(folderRefusal([&] { mergeSweepResults(folder, {folder}); }).contains(pid));
    }
    {
        // The shards of a job array write one folder at once, each its own file.
        SweepResults one(folder, folderWorkersByBatch(), {0, 2});
        SweepResults two(folder, folderWorkersByBatch(), {1, 2});
        const QString error = folderRefusal([&] {
            SweepResults again(folder, folderWorkersByBatch(), {1, 2});
        });
        QVERIFY2(error.contains(QStringLiteral("shard 2/2")) && error.contains(pid),
                 qPrintable(error));
        QVERIFY2(folderRefusal([&] {
                     SweepResults whole(folder, folderWorkersByBatch());
                 }).contains(pid),
                 "a whole sweep beside running shards");
    }
    // Let go when the writers end.
    SweepResults after(folder, folderWorkersByBatch());
}

void TestSweepFolder::lockFileLinksAreRefused_data()
{
    QTest::addColumn<QString>("lock");
    QTest::addColumn<int>("shards"); // 1: a whole sweep; 2: shard 1 of 2
    QTest::addColumn<bool>("hard");
    QTest::addColumn<QString>("why");
    const QString symlink = QStringLiteral("cannot open the lock file: is a symbolic link");
    const QString hardLink = QStringLiteral("the lock file has 2 hard links");
    QTest::newRow("sweep.lock, symbolic link")
        << QStringLiteral("sweep.lock") << 1 << false << symlink;
    QTest::newRow("sweep.lock, hard link") << QStringLiteral("sweep.lock") << 1 << true << hardLink;
    QTest::newRow("sweep.lock of a shard, symbolic link")
        << QStringLiteral("sweep.lock") << 2 << false << symlink;
    QTest::newRow("sweep.lock of a shard, hard link")
        << QStringLiteral("sweep.lock") << 2 << true << hardLink;
    QTest::newRow("cells-1-of-2.lock, symbolic link")
        << QStringLiteral("cells-1-of-2.lock") << 2 << false << symlink;
    QTest::newRow("cells-1-of-2.lock, hard link")
        << QStringLiteral("cells-1-of-2.lock") << 2 << true << hardLink;
}

// The lock's holder empties its lock file and writes its PID in it: a lock file that
// is another file's name (a symbolic or hard link put in the results folder) would
// have a sweep overwrite the user's file. Refused, naming the lock file; the file
// it points at is left byte for byte.
void TestSweepFolder::lockFileLinksAreRefused()
{
    QFETCH(QString, lock);
    QFETCH(int, shards);
    QFETCH(bool, hard);
    QFETCH(QString, why);
    QTemporaryDir dir;
    const std::string folder = goodFolder(dir, "s"); // its sweep.lock is an earlier sweep's
    const std::string mine = dir.filePath(QStringLiteral("thesis.tex")).toStdString();
    const std::string text = "\\documentclass{article}\n% years of work\n";
    appendText(mine, text);
    const std::string path = folder + "/" + lock.toStdString();
    ::unlink(path.c_str());
    QCOMPARE(hard ? ::link(mine.c_str(), path.c_str()) : ::symlink(mine.c_str(), path.c_str()), 0);
    const SweepShard shard{0, shards};
    const QString error = folderRefusal(
        [&] { SweepResults sweep(folder, folderWorkersByBatch(), shard); });
    QCOMPARE(readAll(mine), text);
    QVERIFY2(error.startsWith(QString::fromStdString(path + ": ")) && error.contains(why),
             qPrintable(error));
    // A merge into the folder takes the same lock.
    if (shards == 1) {
        const QString merge = folderRefusal([&] { mergeSweepResults(folder, {folder}); });
        QVERIFY2(merge.contains(why), qPrintable(merge));
        QCOMPARE(readAll(mine), text);
    }
}

void TestSweepFolder::mergeRefusesAFolderWithResults()
{
    QTemporaryDir dir;
    const std::string shard = goodFolder(dir, "shard");
    // Another sweep's folder.
    const std::string other = dir.filePath(QStringLiteral("other")).toStdString();
    SweepDefinition otherSweep = folderWorkersByBatch();
    otherSweep.axes[1] = parseSweepAxis("loader.batch_size=4,32");
    {
        SweepResults results(other, otherSweep);
        results.append(folderFinished(expandSweep(otherSweep)[0]));
    }
    const std::string otherCells = readAll(other + "/cells.jsonl");
    const std::string otherDefinition = readAll(other + "/sweep.json");
    QString error = folderRefusal([&] { mergeSweepResults(other, {shard}); });
    QVERIFY2(error.startsWith(QString::fromStdString(other))
                 && error.contains(QStringLiteral("another sweep")),
             qPrintable(error));
    QCOMPARE(readAll(other + "/cells.jsonl"), otherCells);
    QCOMPARE(readAll(other + "/sweep.json"), otherDefinition);
    // The same sweep's results that are not merged, and a folder of anything else.
    const std::string same = goodFolder(dir, "same");
    QVERIFY(folderRefusal([&] {
                mergeSweepResults(same, {shard});
            }).contains(QStringLiteral("not among the folders merged")));
    const std::string notes = dir.filePath(QStringLiteral("notes")).toStdString();
    QDir().mkpath(QString::fromStdString(notes));
    appendText(notes + "/todo.txt", "mine\n");
    QVERIFY(folderRefusal([&] {
                mergeSweepResults(notes, {shard});
            }).contains(QStringLiteral("not empty (it holds todo.txt)")));
    QVERIFY(!QFileInfo::exists(QString::fromStdString(notes + "/sweep.json")));
    // Into one of the folders merged, and into a new one: merged.
    QCOMPARE(mergeSweepResults(same, {same, shard}), std::int64_t{1});
    QCOMPARE(mergeSweepResults(dir.filePath(QStringLiteral("new")).toStdString(), {shard}),
             std::int64_t{1});
}

void TestSweepFolder::mergeKeepsTracesInTheFolder()
{
    QTemporaryDir dir;
    const std::string shard = dir.filePath(QStringLiteral("s/shard")).toStdString();
    {
        SweepResults results(shard, folderWorkersByBatch());
    }
    // A record whose trace names a file outside traces/: a merge into m/merged
    // would copy s/victim.txt over m/victim.txt.
    json line = toJson(folderFinished(expandSweep(folderWorkersByBatch())[0]));
    line["trace"] = "../victim.txt";
    appendText(shard + "/cells.jsonl", line.dump() + "\n");
    appendText(dir.filePath(QStringLiteral("s/victim.txt")).toStdString(), "from the shard\n");
    QDir().mkpath(dir.filePath(QStringLiteral("m")));
    const std::string victim = dir.filePath(QStringLiteral("m/victim.txt")).toStdString();
    appendText(victim, "precious\n");
    const QString error = folderRefusal([&] {
        mergeSweepResults(dir.filePath(QStringLiteral("m/merged")).toStdString(), {shard});
    });
    QVERIFY2(error.contains(QString::fromStdString(shard + "/cells.jsonl:1: trace")),
             qPrintable(error));
    QCOMPARE(readAll(victim), std::string("precious\n"));
}

void TestSweepFolder::scriptPathInTheFolderIsFound()
{
    QTemporaryDir dir;
    const std::string folder = goodFolder(dir, "s");
    for (const char *name : {"sweep.json", "cells.jsonl", "cells-2-of-4.jsonl", "sweep.lock",
                             "traces/cell-000000.csv", "slurm-12_3.out", ""}) {
        QVERIFY2(!sweepFolderFileProblem(folder, folder + "/" + name).empty(), name);
        QVERIFY2(!sweepFolderFileProblem(folder, folder + "/./traces/../" + name).empty(), name);
    }
    // Through a symbolic link to the folder, and a hard link to one of its files.
    const std::string link = dir.filePath(QStringLiteral("link")).toStdString();
    QCOMPARE(::symlink(folder.c_str(), link.c_str()), 0);
    QVERIFY(!sweepFolderFileProblem(folder, link + "/cells.jsonl").empty());
    const std::string hard = dir.filePath(QStringLiteral("hard.sbatch")).toStdString();
    QCOMPARE(::link((folder + "/cells.jsonl").c_str(), hard.c_str()), 0);
    QVERIFY(QString::fromStdString(sweepFolderFileProblem(folder, hard))
                .contains(QStringLiteral("same file as")));
    // A script of its own, in the folder or beside it.
    QCOMPARE(sweepFolderFileProblem(folder, folder + "/run.sbatch"), std::string());
    QCOMPARE(sweepFolderFileProblem(folder, folder + ".sbatch"), std::string());
}

LOADERLAB_GUILESS_TEST_MAIN(TestSweepFolder)
#include "test_sweep_folder.moc"
