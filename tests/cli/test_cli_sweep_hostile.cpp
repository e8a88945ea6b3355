// `loaderlab sweep` with the real binary on results folders that are tampered with,
// shared or broken: bad records, FIFOs, a second writer, merges and scripts aimed at
// files they must not replace, hostile Slurm variables and axis values, a folder
// that cannot be written and a disk that fills up. Every case ends in a clear
// refusal (exit 2) or failure (exit 1) naming the file, never a crash, a hang or
// exit 0 with results missing. Cells are tiny (2 batches of 4x4 samples).

#include "cli_process.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include <csignal>
#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using clitest::Result;
using clitest::runLoaderlab;

namespace {

QStringList tinySweep(const QString &out,
                      const QString &axis = QStringLiteral("loader.batch_size=4,8"))
{
    return {QStringLiteral("sweep"),
            QStringLiteral("--dataset"),
            QStringLiteral("synthetic"),
            QStringLiteral("--shape"),
            QStringLiteral("1x4x4"),
            QStringLiteral("--axis"),
            axis,
            QStringLiteral("--budget-batches"),
            QStringLiteral("2"),
            QStringLiteral("--out"),
            out};
}

std::string readSweepFile(const QString &path)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void writeAll(const QString &path, const std::string &text)
{
    std::ofstream(path.toStdString(), std::ios::binary | std::ios::trunc) << text;
}

// The lines of the folder's cells.jsonl (or another cells file) as JSON.
std::vector<nlohmann::json> records(const QString &dir,
                                    const QString &name = QStringLiteral("cells.jsonl"))
{
    std::vector<nlohmann::json> lines;
    std::istringstream in(readSweepFile(dir + QLatin1Char('/') + name));
    std::string line;
    while (std::getline(in, line))
        lines.push_back(nlohmann::json::parse(line));
    return lines;
}

} // namespace

class TestCliSweepHostile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void tamperedRecordsAreRefusedNamingTheLine();
    void fifosAreRefusedNotWaitedOn();
    void aSecondWriterIsRefusedWithThePid();
    void mergeNeverReplacesAnotherFoldersResults();
    void slurmScriptCannotReplaceTheResults();
    void badSlurmVariablesAreRefused();
    void axisValuesCannotDriveTheTerminal();
    void aReadOnlyFolderIsRefusedBeforeACellRuns();
    void aFullDiskFailsTheSweep();

private:
    QTemporaryDir m_dir;
    QString m_done; // a finished 2-cell sweep, copied by tests that change it
};

void TestCliSweepHostile::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_done = m_dir.filePath(QStringLiteral("done"));
    const Result r = runLoaderlab(tinySweep(m_done));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(records(m_done).size(), std::size_t{2});
}

// A copy of the finished sweep (sweep.json and cells.jsonl) at `name`.
static QString copyOf(const QTemporaryDir &dir, const QString &done, const QString &name)
{
    const QString copy = dir.filePath(name);
    QDir().mkpath(copy + QStringLiteral("/traces"));
    for (const QString &file : {QStringLiteral("sweep.json"), QStringLiteral("cells.jsonl")})
        writeAll(copy + QLatin1Char('/') + file, readSweepFile(done + QLatin1Char('/') + file));
    return copy;
}

void TestCliSweepHostile::tamperedRecordsAreRefusedNamingTheLine()
{
    const auto first = records(m_done).front();
    struct Case
    {
        const char *name;
        std::string line;
    };
    nlohmann::json noValues = first;
    noValues["values"] = nlohmann::json::array();
    nlohmann::json textValue = first;
    textValue["values"][0] = "4";
    nlohmann::json textP95 = first;
    textP95["summary"]["wait_ms"]["p95"] = "x";
    const Case cases[] = {{"no-values", noValues.dump()},
                          {"text-value", textValue.dump()},
                          {"text-p95", textP95.dump()},
                          {"deep", std::string(300'000, '[') + std::string(300'000, ']')}};
    // The window starts on a synthetic dataset: no default dataset to generate first.
    const QString config = m_dir.filePath(QStringLiteral("synthetic.json"));
    writeAll(config, R"({"dataset": {"kind": "synthetic"}})");
    for (const Case &c : cases) {
        const QString dir = copyOf(m_dir, m_done, QLatin1String(c.name));
        const QString cells = dir + QStringLiteral("/cells.jsonl");
        writeAll(cells, readSweepFile(cells) + c.line + "\n");
        const QString where = cells + QStringLiteral(":3: ");
        // The report, a resume, and the window opening the folder.
        for (const QStringList &args :
             {QStringList{QStringLiteral("sweep"), QStringLiteral("report"), dir},
              QStringList{QStringLiteral("sweep"), QStringLiteral("--out"), dir},
              QStringList{QStringLiteral("--config"), config, QStringLiteral("--view"),
                          QStringLiteral("experiments"), QStringLiteral("--sweep"), dir}}) {
            const Result r = runLoaderlab(args, 60'000);
            QVERIFY2(r.exitCode == 2 && r.err.contains(where),
                     qPrintable(QStringLiteral("%1 %2: exit %3: %4")
                                    .arg(QLatin1String(c.name), args.join(QLatin1Char(' ')))
                                    .arg(r.exitCode)
                                    .arg(r.err.left(400))));
        }
    }
}

void TestCliSweepHostile::fifosAreRefusedNotWaitedOn()
{
    // The definition: the report, a resume and a new sweep would wait for a writer.
    QString dir = copyOf(m_dir, m_done, QStringLiteral("fifo-definition"));
    QString fifo = dir + QStringLiteral("/sweep.json");
    QFile::remove(fifo);
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0644), 0);
    for (const QStringList &args :
         {QStringList{QStringLiteral("sweep"), QStringLiteral("report"), dir},
          QStringList{QStringLiteral("sweep"), QStringLiteral("--out"), dir}, tinySweep(dir)}) {
        const Result r = runLoaderlab(args, 30'000);
        QVERIFY2(r.exitCode == 2 && r.err.contains(fifo) && r.err.contains(QStringLiteral("FIFO")),
                 qPrintable(args.join(QLatin1Char(' ')) + QStringLiteral(": ") + r.err));
    }
    // The file a sweep appends to: it blocked after the first cell, deaf to signals.
    dir = m_dir.filePath(QStringLiteral("fifo-cells"));
    QDir().mkpath(dir);
    fifo = dir + QStringLiteral("/cells.jsonl");
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0644), 0);
    const Result r = runLoaderlab(tinySweep(dir), 30'000);
    QVERIFY2(r.exitCode == 2 && r.err.contains(fifo) && !r.err.contains(QStringLiteral("[cell")),
             qPrintable(r.err));
}

void TestCliSweepHostile::aSecondWriterIsRefusedWithThePid()
{
    const QString dir = m_dir.filePath(QStringLiteral("twice"));
    // The first writer is stopped (SIGSTOP) once it holds the folder, so it still
    // holds it when the second asks, however long that one takes to start.
    QStringList slow = tinySweep(dir);
    slow << QStringLiteral("--sleep-batch-ms") << QStringLiteral("200");
    QProcess first;
    clitest::startLoaderlab(first, slow);
    QVERIFY(first.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(readSweepFile(dir + QStringLiteral("/sweep.lock")).starts_with("PID "),
                             60'000);
    const auto firstPid = static_cast<pid_t>(first.processId());
    QCOMPARE(::kill(firstPid, SIGSTOP), 0);
    const Result second = runLoaderlab(slow, 120'000);
    QCOMPARE(::kill(firstPid, SIGCONT), 0);
    QCOMPARE(second.exitCode, 2);
    QVERIFY2(second.err.contains(QStringLiteral("another loaderlab is writing"))
                 && second.err.contains(QStringLiteral("PID %1").arg(first.processId())),
             qPrintable(second.err));
    const Result r = clitest::finish(first, 120'000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(records(dir).size(), std::size_t{2}); // each cell once
    // Let go: the folder resumes, and the lock file names no one.
    QCOMPARE(runLoaderlab(slow).exitCode, 0);
    QCOMPARE(readSweepFile(dir + QStringLiteral("/sweep.lock")), std::string());
}

void TestCliSweepHostile::mergeNeverReplacesAnotherFoldersResults()
{
    const QString a = m_dir.filePath(QStringLiteral("merge-a"));
    const QString b = m_dir.filePath(QStringLiteral("merge-b"));
    QCOMPARE(
        runLoaderlab(tinySweep(a) << QStringLiteral("--shard") << QStringLiteral("1/2")).exitCode,
        0);
    QCOMPARE(
        runLoaderlab(tinySweep(b) << QStringLiteral("--shard") << QStringLiteral("2/2")).exitCode,
        0);
    // Another sweep's folder, and this sweep's own folder not among those merged.
    const QString other = m_dir.filePath(QStringLiteral("merge-other"));
    QCOMPARE(runLoaderlab(tinySweep(other, QStringLiteral("loader.batch_size=2,4"))).exitCode, 0);
    for (const QString &out : {other, m_done}) {
        const std::string cells = readSweepFile(out + QStringLiteral("/cells.jsonl"));
        const std::string definition = readSweepFile(out + QStringLiteral("/sweep.json"));
        const Result r = runLoaderlab(
            {QStringLiteral("sweep"), QStringLiteral("merge"), QStringLiteral("--out"), out, a, b});
        QVERIFY2(r.exitCode == 2 && r.err.contains(out + QStringLiteral(": ")), qPrintable(r.err));
        QVERIFY2(r.err.contains(out == other ? QStringLiteral("another sweep")
                                             : QStringLiteral("not among the folders merged")),
                 qPrintable(r.err));
        QCOMPARE(readSweepFile(out + QStringLiteral("/cells.jsonl")), cells);
        QCOMPARE(readSweepFile(out + QStringLiteral("/sweep.json")), definition);
    }
    // A record's trace naming a file out of the folder: the merge copied the shard's
    // ../victim.txt over the one beside --out.
    const QString cellsA = a + QStringLiteral("/cells-1-of-2.jsonl");
    const auto lines = records(a, QStringLiteral("cells-1-of-2.jsonl"));
    QCOMPARE(lines.size(), std::size_t{1});
    auto line = lines.front();
    line["trace"] = "../victim.txt";
    writeAll(cellsA, line.dump() + "\n");
    writeAll(m_dir.filePath(QStringLiteral("victim.txt")), "from the shard\n");
    QDir().mkpath(m_dir.filePath(QStringLiteral("m")));
    const QString victim = m_dir.filePath(QStringLiteral("m/victim.txt"));
    writeAll(victim, "precious\n");
    const Result r = runLoaderlab({QStringLiteral("sweep"), QStringLiteral("merge"),
                                   QStringLiteral("--out"),
                                   m_dir.filePath(QStringLiteral("m/merged")), a, b});
    QVERIFY2(r.exitCode == 2 && r.err.contains(cellsA + QStringLiteral(":1: trace")),
             qPrintable(r.err));
    QCOMPARE(readSweepFile(victim), std::string("precious\n"));
}

void TestCliSweepHostile::slurmScriptCannotReplaceTheResults()
{
    const QString dir = copyOf(m_dir, m_done, QStringLiteral("slurm"));
    const std::string cells = readSweepFile(dir + QStringLiteral("/cells.jsonl"));
    const std::string definition = readSweepFile(dir + QStringLiteral("/sweep.json"));
    const QString link = m_dir.filePath(QStringLiteral("slurm-link"));
    QVERIFY(QFile::link(dir, link));
    for (const QString &script :
         {dir + QStringLiteral("/cells.jsonl"), dir + QStringLiteral("/sweep.json"),
          link + QStringLiteral("/cells.jsonl"), dir + QStringLiteral("/traces/x.sbatch"), dir}) {
        const Result r = runLoaderlab(tinySweep(dir) << QStringLiteral("--slurm-script") << script);
        QVERIFY2(r.exitCode == 2 && r.err.contains(QStringLiteral("--slurm-script")),
                 qPrintable(script + QStringLiteral(": ") + r.err));
        QCOMPARE(readSweepFile(dir + QStringLiteral("/cells.jsonl")), cells);
        QCOMPARE(readSweepFile(dir + QStringLiteral("/sweep.json")), definition);
    }
    QCOMPARE(runLoaderlab({QStringLiteral("sweep"), QStringLiteral("report"), dir}).exitCode, 0);
    // A user's file where the script would go is refused and kept; a script the sweep
    // wrote is written again.
    const QString notes = m_dir.filePath(QStringLiteral("notes.sbatch"));
    writeAll(notes, "#!/bin/bash\n# my own job\n");
    Result r = runLoaderlab(tinySweep(dir) << QStringLiteral("--slurm-script") << notes);
    QVERIFY2(r.exitCode == 2 && r.err.contains(QStringLiteral("did not write as such a script")),
             qPrintable(r.err));
    QCOMPARE(readSweepFile(notes), std::string("#!/bin/bash\n# my own job\n"));
    const QString ours = m_dir.filePath(QStringLiteral("ours.sbatch"));
    for (int twice = 0; twice < 2; ++twice) {
        r = runLoaderlab(tinySweep(dir) << QStringLiteral("--slurm-script") << ours);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }
}

void TestCliSweepHostile::badSlurmVariablesAreRefused()
{
    const QString dir = m_dir.filePath(QStringLiteral("slurm-env"));
    for (const auto &[id, count, named] : {std::tuple{"0", "4294967296", "SLURM_ARRAY_TASK_COUNT"},
                                           std::tuple{"0", "2147483648", "SLURM_ARRAY_TASK_COUNT"},
                                           std::tuple{"abc", "2", "SLURM_ARRAY_TASK_ID"}}) {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SLURM_ARRAY_TASK_ID"), QLatin1String(id));
        env.insert(QStringLiteral("SLURM_ARRAY_TASK_COUNT"), QLatin1String(count));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(LOADERLAB_BINARY), tinySweep(dir));
        const Result r = clitest::finish(process, 60'000);
        QVERIFY2(r.exitCode == 2 && r.err.contains(QLatin1String(named)),
                 qPrintable(QStringLiteral("%1/%2: exit %3: %4")
                                .arg(QLatin1String(id), QLatin1String(count))
                                .arg(r.exitCode)
                                .arg(r.err)));
    }
    QVERIFY(!QFileInfo::exists(dir + QStringLiteral("/cells.jsonl")));
}

void TestCliSweepHostile::axisValuesCannotDriveTheTerminal()
{
    // A path (unused by the synthetic dataset) that sets the colour and the title.
    const QString dir = m_dir.filePath(QStringLiteral("escape"));
    const QString value = QStringLiteral("/x\x1b[31mred\x1b]0;title\x07");
    Result r = runLoaderlab(tinySweep(dir, QStringLiteral("dataset.path=/a,") + value));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    for (int run = 0; run < 2; ++run) {
        QVERIFY2(!r.outBytes.contains('\x1b') && !r.outBytes.contains('\x07'),
                 r.outBytes.constData());
        QVERIFY2(r.out.contains(QStringLiteral("/x\\x1B[31mred\\x1B]0;title\\x07")),
                 qPrintable(r.out));
        r = runLoaderlab({QStringLiteral("sweep"), QStringLiteral("report"), dir});
        QCOMPARE(r.exitCode, 0);
    }
}

void TestCliSweepHostile::aReadOnlyFolderIsRefusedBeforeACellRuns()
{
    // --slurm-script writes the folder's sweep.json and runs nothing.
    QTemporaryDir base;
    QVERIFY(QFile::setPermissions(base.path(), QFile::ReadOwner | QFile::WriteOwner
                                                   | QFile::ExeOwner | QFile::ReadOther
                                                   | QFile::ExeOther));
    const QString dir = base.filePath(QStringLiteral("ro"));
    Result r = runLoaderlab(tinySweep(dir) << QStringLiteral("--slurm-script")
                                           << base.filePath(QStringLiteral("ro.sbatch")));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    for (const QString &d : {dir, dir + QStringLiteral("/traces")})
        QCOMPARE(::chmod(d.toLocal8Bit().constData(), 0555), 0);
    // Root writes anywhere: the sweep runs as nobody then.
    const auto asNobody = [] {
        if (::geteuid() == 0) {
            ::setgroups(0, nullptr);
            if (::setgid(65534) != 0 || ::setuid(65534) != 0)
                ::_exit(99);
        }
    };
    r = runLoaderlab(tinySweep(dir), 60'000, asNobody);
    for (const QString &d : {dir, dir + QStringLiteral("/traces")})
        ::chmod(d.toLocal8Bit().constData(), 0755); // so that the folder can be removed
    if (r.exitCode == 99 || r.exitCode == 126 || r.exitCode == 127)
        QSKIP("cannot run loaderlab as another user here");
    QVERIFY2(r.exitCode == 2 && r.err.contains(dir) && !r.err.contains(QStringLiteral("[cell")),
             qPrintable(QStringLiteral("exit %1: %2").arg(r.exitCode).arg(r.err)));
    QVERIFY(!QFileInfo::exists(dir + QStringLiteral("/cells.jsonl")));
}

void TestCliSweepHostile::aFullDiskFailsTheSweep()
{
    // Files may grow to 16 KiB: the definition and the records fit, a trace of 400
    // batches does not (a write past the limit fails with EFBIG, as on a full disk).
    const QString dir = m_dir.filePath(QStringLiteral("full"));
    QStringList args = tinySweep(dir);
    args.replace(args.indexOf(QStringLiteral("2")), QStringLiteral("400"));
    const Result r = runLoaderlab(args, 120'000, [] {
        ::signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{16 << 10, 16 << 10};
        ::setrlimit(RLIMIT_FSIZE, &limit);
    });
    QVERIFY2(r.exitCode == 1 && r.err.contains(QStringLiteral("cell-000000.csv")),
             qPrintable(QStringLiteral("exit %1: %2").arg(r.exitCode).arg(r.err)));
    QVERIFY2(r.err.contains(QStringLiteral("the sweep stopped")), qPrintable(r.err));
    // No record claims a trace that is not there.
    for (const auto &record : records(dir)) {
        if (record.contains("trace"))
            QVERIFY(
                QFileInfo::exists(dir + QLatin1Char('/')
                                  + QString::fromStdString(record["trace"].get<std::string>())));
    }
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliSweepHostile)
#include "test_cli_sweep_hostile.moc"
