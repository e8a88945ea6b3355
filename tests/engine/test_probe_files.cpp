// What loaderlab_probe.watch() never does to a user's files, on real training loops
// (real torch, the module as `loaderlab python-path` provides it): a file under the
// run's names that the probe did not write (the dataset's own train.csv, a JSON, a
// lock), a symbolic or hard link at any name it would use, another process recording
// under the same name and a rank the job's environment does not name each make it
// record nothing, with one warning naming the file or variables, while the loop goes
// on with every file byte for byte as it was. What an earlier run of the probe left
// (its files, a killed run's lock, an interrupted write's .part) is replaced.

#include "core/engine/pytorch/python_probe.h"
#include "core/engine/pytorch/pytorch_run.h"
#include "core/io/run_reader.h"
#include "core/io/trace_csv.h"

#include "tests/support/probe_loop.h"
#include "tests/support/require_pytorch.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace loaderlab;
namespace fs = std::filesystem;

namespace {

// A training loop whose Dataset reads its rows from a CSV file as it goes, with the
// probe added in one line. With a third argument it waits, before its first batch,
// until that file exists (a run holding its name while another starts).
constexpr const char *kFilesLoop = R"(
import os, sys, time, torch
from torch.utils.data import DataLoader, Dataset
import loaderlab_probe

class Rows(Dataset):
    def __init__(self, path): self.path = path
    def __len__(self):
        with open(self.path) as f: return sum(1 for _ in f) - 1
    def __getitem__(self, i):
        with open(self.path) as f: line = f.read().splitlines()[i + 1]
        return torch.tensor([float(v) for v in line.split(",")])

data, out = sys.argv[1], sys.argv[2]
loader = loaderlab_probe.watch(DataLoader(Rows(data), batch_size=4), out=out)
total, batches = 0.0, 0
for epoch in range(2):
    for batch in loader:
        while len(sys.argv) > 3 and not os.path.exists(sys.argv[3]):
            time.sleep(0.02)
        total += float(batch.sum())
        batches += 1
loader.close()
print("total %g in %d batches" % (total, batches))
)";

// 10 rows "i,2i": 2 epochs of 3 batches, 270 in all.
constexpr const char *kData = "a,b\n0,0\n1,2\n2,4\n3,6\n4,8\n5,10\n6,12\n7,14\n8,16\n9,18\n";
const QString kTrained = QStringLiteral("total 270 in 6 batches");
const QString kRefused = QStringLiteral("loaderlab_probe records nothing");

void startLoop(QProcess &process, const QStringList &args, const QStringList &environment = {})
{
    probeloop::start(process, kFilesLoop, args, environment);
}

struct FilesLoop
{
    int exitCode = -1;
    QString err;
    QString out;
};

FilesLoop finish(QProcess &process)
{
    if (!process.waitForFinished(180'000))
        return {};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardError()),
            QString::fromUtf8(process.readAllStandardOutput())};
}

FilesLoop runLoop(const QString &data, const QString &out, const QStringList &environment = {})
{
    QProcess process;
    startLoop(process, {data, out}, environment);
    return finish(process);
}

std::string readAll(const QString &path)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeAll(const QString &path, const std::string &text)
{
    std::ofstream(path.toStdString(), std::ios::binary) << text;
}

// The names in `dir`, sorted.
QStringList namesIn(const QString &dir)
{
    return QDir(dir).entryList(
        QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

// The loop trained as without the probe and one warning said why it records nothing.
#define VERIFY_REFUSED_ONCE(loop, naming)                                                          \
    do {                                                                                           \
        QVERIFY2((loop).exitCode == 0, qPrintable((loop).err));                                    \
        QVERIFY2((loop).out.contains(kTrained), qPrintable((loop).out));                           \
        QVERIFY2((loop).err.count(kRefused) == 1 && (loop).err.contains(naming)                    \
                     && (loop).err.count(QLatin1String("Warning")) == 1                            \
                     && (loop).err.contains(QLatin1String("RuntimeWarning")),                      \
                 qPrintable((loop).err));                                                          \
    } while (false)

} // namespace

class TestProbeFiles : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aFileTheProbeDidNotWriteIsLeftAlone_data();
    void aFileTheProbeDidNotWriteIsLeftAlone();
    void linksAreNeverWrittenThrough_data();
    void linksAreNeverWrittenThrough();
    void whatAnEarlierProbeRunLeftIsReplaced();
    void twoProcessesNeverRecordUnderOneName();
    void aRankTheJobDoesNotNameRecordsNothing_data();
    void aRankTheJobDoesNotNameRecordsNothing();
};

void TestProbeFiles::aFileTheProbeDidNotWriteIsLeftAlone_data()
{
    QTest::addColumn<QString>("name"); // the user's file, in the run's folder
    QTest::addColumn<QString>("out");
    QTest::addColumn<QByteArray>("content");
    // The dataset's own CSV: out="train" used to truncate it under the loop.
    QTest::newRow("the dataset's train.csv")
        << QStringLiteral("train.csv") << QStringLiteral("train") << QByteArray(kData);
    QTest::newRow("labels.csv") << QStringLiteral("labels.csv") << QStringLiteral("labels")
                                << QByteArray("cat,dog\n1,0\n");
    // Even a CSV with the probe's header is the user's without a probe's JSON beside it.
    QTest::newRow("a CSV with the header alone")
        << QStringLiteral("copy.csv") << QStringLiteral("copy")
        << (QByteArray::fromStdString(traceCsvHeader()) + "\n0,0,0,8\n");
    QTest::newRow("labels.json") << QStringLiteral("labels.json") << QStringLiteral("labels")
                                 << QByteArray("{\"cat\": 1}\n");
    QTest::newRow("a LoaderLab run's JSON, not the probe's")
        << QStringLiteral("bench.json") << QStringLiteral("bench")
        << QByteArray("{\"format\": \"loaderlab-summary-2\"}\n");
    QTest::newRow("run.lock") << QStringLiteral("run.lock") << QStringLiteral("run")
                              << QByteArray("my lock\n");
    QTest::newRow("run.json.part")
        << QStringLiteral("run.json.part") << QStringLiteral("run") << QByteArray("draft\n");
    QTest::newRow("an empty run.csv")
        << QStringLiteral("run.csv") << QStringLiteral("run") << QByteArray();
}

void TestProbeFiles::aFileTheProbeDidNotWriteIsLeftAlone()
{
    REQUIRE_PYTORCH();
    QFETCH(QString, name);
    QFETCH(QString, out);
    QFETCH(QByteArray, content);
    QTemporaryDir dir;
    const QString file = dir.filePath(name);
    writeAll(file, content.toStdString());
    const QString data = name == QLatin1String("train.csv")
                             ? file
                             : dir.filePath(QStringLiteral("data.csv"));
    if (data != file)
        writeAll(data, kData);
    const QStringList before = namesIn(dir.path());

    const FilesLoop loop = runLoop(data, dir.filePath(out));
    VERIFY_REFUSED_ONCE(loop, name);
    QCOMPARE(QByteArray::fromStdString(readAll(file)), content);
    QCOMPARE(namesIn(dir.path()), before); // nothing written beside it either
}

void TestProbeFiles::linksAreNeverWrittenThrough_data()
{
    QTest::addColumn<QString>("link"); // made at this name in the run's folder "run"
    QTest::addColumn<bool>("hard");    // a hard link, else a symbolic one
    QTest::newRow("run.csv -> precious.txt") << QStringLiteral("run.csv") << false;
    QTest::newRow("run.json -> precious.txt") << QStringLiteral("run.json") << false;
    QTest::newRow("run.csv.part -> precious.txt") << QStringLiteral("run.csv.part") << false;
    QTest::newRow("run.json.part -> precious.txt") << QStringLiteral("run.json.part") << false;
    QTest::newRow("run.lock -> precious.txt") << QStringLiteral("run.lock") << false;
    QTest::newRow("run.json.part, a hard link") << QStringLiteral("run.json.part") << true;
    QTest::newRow("run.csv.part, a hard link") << QStringLiteral("run.csv.part") << true;
    QTest::newRow("run.lock, a hard link") << QStringLiteral("run.lock") << true;
    QTest::newRow("run.csv -> a file not there") << QStringLiteral("run.csv") << false;
}

void TestProbeFiles::linksAreNeverWrittenThrough()
{
    REQUIRE_PYTORCH();
    QFETCH(QString, link);
    QFETCH(bool, hard);
    QTemporaryDir dir;
    const QString data = dir.filePath(QStringLiteral("data.csv"));
    writeAll(data, kData);
    const bool dangling = qstrcmp(QTest::currentDataTag(), "run.csv -> a file not there") == 0;
    const QString target = dir.filePath(QLatin1String(dangling ? "missing.txt" : "precious.txt"));
    const std::string precious = "precious: never written\n";
    if (!dangling)
        writeAll(target, precious);
    const QString at = dir.filePath(link);
    if (hard)
        fs::create_hard_link(target.toStdString(), at.toStdString());
    else
        fs::create_symlink(fs::path(target.toStdString()).filename(), at.toStdString());
    const QStringList before = namesIn(dir.path());

    const FilesLoop loop = runLoop(data, dir.filePath(QStringLiteral("run")));
    VERIFY_REFUSED_ONCE(loop, link);
    QVERIFY2(loop.err.contains(hard ? QLatin1String("hard links") : QLatin1String("symbolic link")),
             qPrintable(loop.err));
    QCOMPARE(namesIn(dir.path()), before);
    if (dangling) {
        QVERIFY(!QFile::exists(target)); // not created through the link
    } else {
        QCOMPARE(readAll(target), precious);
        QCOMPARE(fs::hard_link_count(target.toStdString()), std::uintmax_t{hard ? 2u : 1u});
    }
    QCOMPARE(fs::is_symlink(at.toStdString()), !hard);
}

void TestProbeFiles::whatAnEarlierProbeRunLeftIsReplaced()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    const QString data = dir.filePath(QStringLiteral("data.csv"));
    writeAll(data, kData);
    const QString out = dir.filePath(QStringLiteral("run"));
    FilesLoop loop = runLoop(data, out);
    QVERIFY2(loop.exitCode == 0 && !loop.err.contains(QLatin1String("loaderlab_probe")),
             qPrintable(loop.err));

    // A rerun of the same script replaces its run; then one that finds what a killed
    // run leaves (its lock, the .part files of interrupted writes) replaces that.
    for (const bool interrupted : {false, true}) {
        writeAll(data, "a,b\n1,1\n2,2\n3,3\n4,4\n5,5\n");
        if (interrupted) {
            writeAll(out + QStringLiteral(".lock"),
                     "loaderlab_probe lock: pid 999999 on elsewhere\n");
            writeAll(out + QStringLiteral(".json.part"),
                     "{\n \"format\": \"loaderlab-summary-2\",\n \"con");
            writeAll(out + QStringLiteral(".csv.part"), traceCsvHeader().substr(0, 30));
        }
        loop = runLoop(data, out);
        QVERIFY2(loop.exitCode == 0 && !loop.err.contains(QLatin1String("loaderlab_probe")),
                 qPrintable(loop.err));
        QVERIFY2(loop.out.contains(QLatin1String("total 60 in 4 batches")), qPrintable(loop.out));
        const OpenedRun run = openRun((out + QStringLiteral(".csv")).toStdString(),
                                      (out + QStringLiteral(".json")).toStdString());
        QCOMPARE(run.report.state, std::string("finished"));
        QCOMPARE(run.trace->size(), std::size_t{4}); // this run's: 2 epochs of 5 rows
        QCOMPARE(namesIn(dir.path()),
                 QStringList({QStringLiteral("data.csv"), QStringLiteral("run.csv"),
                              QStringLiteral("run.json")}));
        writeAll(data, kData);
    }
}

void TestProbeFiles::twoProcessesNeverRecordUnderOneName()
{
    REQUIRE_PYTORCH();
    QTemporaryDir dir;
    const QString data = dir.filePath(QStringLiteral("data.csv"));
    writeAll(data, kData);
    const QString out = dir.filePath(QStringLiteral("run"));
    const QString go = dir.filePath(QStringLiteral("go"));

    // The first holds the name, waiting before its first batch; the second, started
    // meanwhile, records nothing and trains; then the first goes on and records all.
    QProcess first;
    startLoop(first, {data, out, go});
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(out + QStringLiteral(".json")), 120'000);
    const FilesLoop second = runLoop(data, out);
    VERIFY_REFUSED_ONCE(second, QStringLiteral("another process records under"));
    QVERIFY2(second.err.contains(out + QStringLiteral(".lock"))
                 && second.err.contains(QStringLiteral("pid %1").arg(first.processId())),
             qPrintable(second.err));
    writeAll(go, "");
    FilesLoop loop = finish(first);
    QVERIFY2(loop.exitCode == 0 && !loop.err.contains(QLatin1String("loaderlab_probe")),
             qPrintable(loop.err));
    QVERIFY2(loop.out.contains(kTrained), qPrintable(loop.out));
    OpenedRun run = openRun((out + QStringLiteral(".csv")).toStdString(),
                            (out + QStringLiteral(".json")).toStdString());
    QCOMPARE(run.report.state, std::string("finished"));
    QCOMPARE(run.trace->size(), std::size_t{6});
    QVERIFY(!QFile::exists(out + QStringLiteral(".lock"))); // gone with its run

    // A writer killed while it holds the name leaves its lock, which the next takes.
    QFile::remove(go);
    startLoop(first, {data, out, go});
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(out + QStringLiteral(".lock")), 120'000);
    first.kill();
    QVERIFY(first.waitForFinished(60'000));
    QVERIFY(QFile::exists(out + QStringLiteral(".lock")));
    loop = runLoop(data, out);
    QVERIFY2(loop.exitCode == 0 && !loop.err.contains(QLatin1String("loaderlab_probe")),
             qPrintable(loop.err));
    run = openRun((out + QStringLiteral(".csv")).toStdString(),
                  (out + QStringLiteral(".json")).toStdString());
    QCOMPARE(run.trace->size(), std::size_t{6});
    QVERIFY(!QFile::exists(out + QStringLiteral(".lock")));
}

void TestProbeFiles::aRankTheJobDoesNotNameRecordsNothing_data()
{
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<QString>("naming");
    QTest::newRow("rank 3 of 2") << QStringList{QStringLiteral("RANK=3"),
                                                QStringLiteral("WORLD_SIZE=2")}
                                 << QStringLiteral("RANK=3 with WORLD_SIZE=2");
    QTest::newRow("world size 0") << QStringList{QStringLiteral("RANK=0"),
                                                 QStringLiteral("WORLD_SIZE=0")}
                                  << QStringLiteral("RANK=0 with WORLD_SIZE=0");
    QTest::newRow("world size not a number")
        << QStringList{QStringLiteral("RANK=1"), QStringLiteral("WORLD_SIZE=two")}
        << QStringLiteral("RANK=1 with WORLD_SIZE=two");
    QTest::newRow("rank not a number")
        << QStringList{QStringLiteral("RANK=first"), QStringLiteral("WORLD_SIZE=2")}
        << QStringLiteral("RANK=first with WORLD_SIZE=2");
    QTest::newRow("rank 1 without a world size")
        << QStringList{QStringLiteral("RANK=1")} << QStringLiteral("RANK=1 with no WORLD_SIZE");
    QTest::newRow("more ranks than LoaderLab reads")
        << QStringList{QStringLiteral("RANK=0"), QStringLiteral("WORLD_SIZE=65")}
        << QStringLiteral("RANK=0 with WORLD_SIZE=65");
    QTest::newRow("Slurm's rank 2 of 2")
        << QStringList{QStringLiteral("SLURM_PROCID=2"), QStringLiteral("SLURM_NTASKS=2")}
        << QStringLiteral("SLURM_PROCID=2 with SLURM_NTASKS=2");
}

void TestProbeFiles::aRankTheJobDoesNotNameRecordsNothing()
{
    REQUIRE_PYTORCH();
    QFETCH(QStringList, environment);
    QFETCH(QString, naming);
    QTemporaryDir dir;
    const QString data = dir.filePath(QStringLiteral("data.csv"));
    writeAll(data, kData);
    const FilesLoop loop = runLoop(data, dir.filePath(QStringLiteral("job")), environment);
    VERIFY_REFUSED_ONCE(loop, naming);
    QCOMPARE(namesIn(dir.path()),
             QStringList({QStringLiteral("data.csv")})); // no run LoaderLab would refuse
}

LOADERLAB_GUILESS_TEST_MAIN(TestProbeFiles)
#include "test_probe_files.moc"
