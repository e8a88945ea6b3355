// `loaderlab max-batch` end to end with the real binary: resnet18 at 3x128x128 under a
// budget chosen from a first, unconstrained run so that the boundary is a few dozen;
// the exit code, the table, the result line and the JSON file; exit 1 when not even
// batch 1 fits (decided without running a step); exit 2 for bad usage; Ctrl-C mid
// search exits 130 promptly and writes no JSON. The models are a plugin the binary loads
// when first asked: `info` names it, and a binary without it says which file is missing
// for every command that needs a model while runs of the simulated step go on.

#include "cli_process.h"
#include "tests/support/test_main.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <string>

#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace {

using clitest::readJson;

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

QStringList smallModel()
{
    return {
        QStringLiteral("max-batch"), QStringLiteral("--model"),       QStringLiteral("resnet18"),
        QStringLiteral("--shape"),   QStringLiteral("3x128x128"),     QStringLiteral("--threads"),
        QStringLiteral("2"),         QStringLiteral("--num-classes"), QStringLiteral("10")};
}

const nlohmann::json *attemptAt(const nlohmann::json &report, std::int64_t batch)
{
    for (const auto &a : report.at("attempts")) {
        if (a.at("batch").get<std::int64_t>() == batch)
            return &a;
    }
    return nullptr;
}

QString details(const clitest::Result &r)
{
    return QStringLiteral("exit %1\nstdout:\n%2\nstderr:\n%3").arg(r.exitCode).arg(r.out, r.err);
}

// A memory cgroup limited to `bytes`, made below this process's own (the memory
// controller's v1 hierarchy, else v2), as Slurm's task/cgroup makes one per job; ""
// when this process may not make one (not root, a read-only hierarchy).
std::string makeMemoryCgroup(std::int64_t bytes)
{
    std::ifstream self("/proc/self/cgroup");
    std::string line, dir, limitFile;
    while (std::getline(self, line)) {
        const auto first = line.find(':');
        const auto second = line.find(':', first + 1);
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const std::string path = line.substr(second + 1);
        if (("," + controllers + ",").find(",memory,") != std::string::npos) {
            dir = "/sys/fs/cgroup/memory" + path;
            limitFile = "memory.limit_in_bytes";
            break;
        }
        if (line.starts_with("0::")) {
            dir = "/sys/fs/cgroup" + path;
            limitFile = "memory.max";
        }
    }
    if (dir.empty())
        return {};
    dir += (dir.ends_with('/') ? "" : "/") + std::string("loaderlab-test-")
           + std::to_string(getpid());
    if (!QDir().mkpath(QString::fromStdString(dir)))
        return {};
    std::ofstream limit(dir + "/" + limitFile);
    limit << bytes << std::flush;
    if (!limit) {
        rmdir(dir.c_str());
        return {};
    }
    return dir;
}

} // namespace

class TestCliMaxBatch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void findsTheLargestBatchWithinTheBudget();
    void nothingFitsExitsOne();
    void defaultBudgetFollowsTheProcessesCgroup();
    void ctrlCStopsPromptlyAndWritesNothing();
    void badUsageExitsTwo_data();
    void badUsageExitsTwo();
    void aBinaryWithoutItsModelsNamesTheMissingFile();

private:
    QTemporaryDir m_dir;
};

void TestCliMaxBatch::findsTheLargestBatchWithinTheBudget()
{
    // Unconstrained up to --max 64: the memory per sample on this machine.
    const QString calibration = m_dir.filePath(QStringLiteral("calibration.json"));
    const auto first = clitest::runLoaderlab(smallModel()
                                             << QStringLiteral("--max") << QStringLiteral("64")
                                             << QStringLiteral("--json") << calibration);
    QVERIFY2(first.exitCode == 0, qPrintable(details(first)));
    QVERIFY2(first.out.contains(QStringLiteral("largest batch that fits: 64 (the --max 64: "
                                               "larger batches were not tried); suggested: 56 "
                                               "(90 %, multiple of 8)")),
             qPrintable(details(first)));
    const auto cal = readJson(calibration);
    QCOMPARE(cal.at("end").get<std::string>(), std::string("reached-max"));
    QCOMPARE(cal.at("attempts").size(), std::size_t{7}); // 1, 2, 4, ..., 64
    const std::int64_t peak16 = attemptAt(cal, 16)->at("peak_bytes").get<std::int64_t>();
    const std::int64_t peak64 = attemptAt(cal, 64)->at("peak_bytes").get<std::int64_t>();
    QVERIFY(peak64 > peak16);
    const std::int64_t budgetMb = (peak16 + 24 * (peak64 - peak16) / 48) / kMiB; // near 40

    const QString jsonPath = m_dir.filePath(QStringLiteral("max-batch.json"));
    const auto r = clitest::runLoaderlab(smallModel() << QStringLiteral("--memory-budget")
                                                      << QString::number(budgetMb)
                                                      << QStringLiteral("--json") << jsonPath);
    QVERIFY2(r.exitCode == 0, qPrintable(details(r)));
    const auto report = readJson(jsonPath);
    const std::int64_t largest = report.at("largest_fit").get<std::int64_t>();
    QVERIFY2(largest >= 8 && largest <= 400, qPrintable(details(r)));
    QCOMPARE(report.at("end").get<std::string>(), std::string("bracketed"));
    QCOMPARE(report.at("memory_budget_bytes").get<std::int64_t>(), budgetMb * kMiB);
    QCOMPARE(report.at("model").at("name").get<std::string>(), std::string("resnet18"));
    QCOMPARE(report.at("shape"), nlohmann::json({3, 128, 128}));
    // 90 %, rounded down, then down to a multiple of 8 (computed here independently).
    const std::int64_t ninety = largest * 9 / 10;
    const std::int64_t suggested = ninety >= 8 ? ninety - ninety % 8
                                               : std::max<std::int64_t>(1, ninety);
    QCOMPARE(report.at("suggested").get<std::int64_t>(), suggested);
    QVERIFY2(r.out.contains(QStringLiteral("largest batch that fits: %1; suggested: %2 (")
                                .arg(largest)
                                .arg(suggested)),
             qPrintable(details(r)));

    const auto *best = attemptAt(report, largest);
    QVERIFY(best && best->at("fits").get<bool>());
    QVERIFY(best->at("peak_bytes").get<std::int64_t>() <= budgetMb * kMiB);
    const auto *above = attemptAt(report, largest + 1);
    QVERIFY2(above && !above->at("fits").get<bool>(), qPrintable(details(r)));
    // One table row and one progress line per attempt.
    const auto &attempts = report.at("attempts");
    QCOMPARE(r.err.count(QStringLiteral("max-batch: batch ")),
             static_cast<qsizetype>(attempts.size()));
    for (std::size_t i = 0; i < attempts.size(); ++i) {
        const auto &a = attempts[i];
        const QString row = QStringLiteral("%1 %2  %3")
                                .arg(i + 1, 7)
                                .arg(a.at("batch").get<std::int64_t>(), 8)
                                .arg(a.at("fits").get<bool>() ? QStringLiteral("fits")
                                                              : QStringLiteral("fails"));
        QVERIFY2(r.out.contains(row), qPrintable(row + QLatin1Char('\n') + details(r)));
        if (!a.at("ran").get<bool>())
            QVERIFY(a.at("predicted_bytes").get<std::int64_t>() > budgetMb * kMiB);
    }
    QVERIFY(r.out.contains(QStringLiteral("memory budget: ")));
}

void TestCliMaxBatch::nothingFitsExitsOne()
{
    // 1 MiB: the resident memory alone is over it, so batch 1 is refused unrun.
    const QString jsonPath = m_dir.filePath(QStringLiteral("nothing.json"));
    const auto r = clitest::runLoaderlab(smallModel()
                                         << QStringLiteral("--memory-budget") << QStringLiteral("1")
                                         << QStringLiteral("--json") << jsonPath);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(QStringLiteral("not even batch 1 fits: predicted ")),
             qPrintable(details(r)));
    QVERIFY(r.err.contains(QStringLiteral(" over the budget of 1.0 MiB")));
    const auto report = readJson(jsonPath);
    QCOMPARE(report.at("largest_fit").get<int>(), 0);
    QCOMPARE(report.at("end").get<std::string>(), std::string("nothing-fits"));
    QCOMPARE(report.at("attempts").size(), std::size_t{1});
    QCOMPARE(report.at("attempts")[0].at("ran").get<bool>(), false);
}

void TestCliMaxBatch::defaultBudgetFollowsTheProcessesCgroup()
{
    // Inside a 3 GiB cgroup (a Slurm job's), the default budget is half of 3 GiB, not
    // half of the machine's memory: a search up to a budget the cgroup cannot hold
    // ends with the kernel's OOM killer (exit 137, no output).
    constexpr std::int64_t kLimit = std::int64_t{3} << 30;
    const std::string cgroup = makeMemoryCgroup(kLimit);
    if (cgroup.empty())
        QSKIP("cannot make a memory cgroup here (needs root and a writable cgroup hierarchy)");
    const std::string procs = cgroup + "/cgroup.procs";
    const QString jsonPath = m_dir.filePath(QStringLiteral("cgroup.json"));
    const auto r = clitest::runLoaderlab(
        {QStringLiteral("max-batch"), QStringLiteral("--model"), QStringLiteral("resnet18"),
         QStringLiteral("--shape"), QStringLiteral("3x64x64"), QStringLiteral("--threads"),
         QStringLiteral("2"), QStringLiteral("--max"), QStringLiteral("1"),
         QStringLiteral("--json"), jsonPath},
        240'000, [&procs] {
            // In the child, before exec: move it into the cgroup.
            const int fd = ::open(procs.c_str(), O_WRONLY);
            if (fd >= 0) {
                const std::string pid = std::to_string(getpid());
                [[maybe_unused]] const auto written = ::write(fd, pid.data(), pid.size());
                ::close(fd);
            }
        });
    for (int i = 0; i < 50 && rmdir(cgroup.c_str()) != 0; ++i)
        QThread::msleep(100); // the child's exit is accounted for asynchronously
    QVERIFY2(r.exitCode == 0, qPrintable(details(r)));
    const auto report = readJson(jsonPath);
    const auto budget = report.at("memory_budget_bytes").get<std::int64_t>();
    QVERIFY2(budget > 0 && budget <= kLimit / 2, qPrintable(QString::number(budget)));
    if (budget == kLimit / 2)
        QVERIFY2(r.out.contains(QStringLiteral("memory budget: 1.5 GiB")), qPrintable(details(r)));
}

void TestCliMaxBatch::ctrlCStopsPromptlyAndWritesNothing()
{
    // Unbounded up to batch 4096 at 3x128x128: minutes of doubling, stopped after
    // its first attempt.
    const QString jsonPath = m_dir.filePath(QStringLiteral("interrupted.json"));
    QProcess process;
    clitest::startLoaderlab(
        process, smallModel() << QStringLiteral("--max") << QStringLiteral("4096")
                              << QStringLiteral("--memory-budget") << QStringLiteral("100000")
                              << QStringLiteral("--json") << jsonPath);
    QVERIFY(process.waitForStarted());
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT((err += process.readAllStandardError()).contains("max-batch: batch "),
                             120'000);
    QElapsedTimer clock;
    clock.start();
    ::kill(static_cast<pid_t>(process.processId()), SIGINT);
    const clitest::Result r = clitest::finish(process, 60'000);
    const qint64 ms = clock.elapsed();
    QCOMPARE(r.exitCode, 130);
    QVERIFY2(r.err.contains(QStringLiteral("stopped by signal 2")), qPrintable(details(r)));
    QVERIFY2(!QFileInfo::exists(jsonPath), "an interrupted search writes no JSON");
    // The step under way ends first: at most one step of a batch below 4096.
    QVERIFY2(ms < 30'000, qPrintable(QStringLiteral("took %1 ms").arg(ms)));
}

void TestCliMaxBatch::badUsageExitsTwo_data()
{
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("message");
    QTest::newRow("max 0") << QStringList{QStringLiteral("--max"), QStringLiteral("0")}
                           << QStringLiteral("--max: expected an integer 1..");
    QTest::newRow("max text") << QStringList{QStringLiteral("--max"), QStringLiteral("lots")}
                              << QStringLiteral("--max: expected an integer 1..");
    QTest::newRow("attempts 0") << QStringList{QStringLiteral("--max-attempts"),
                                               QStringLiteral("0")}
                                << QStringLiteral("--max-attempts: expected an integer");
    QTest::newRow("mode") << QStringList{QStringLiteral("--mode"), QStringLiteral("fast")}
                          << QStringLiteral("--mode: consumer.model.mode: ");
    QTest::newRow("shape") << QStringList{QStringLiteral("--shape"), QStringLiteral("3x0x4")}
                           << QStringLiteral("--shape: dataset.synthetic_shape: ");
    QTest::newRow("budget") << QStringList{QStringLiteral("--memory-budget"), QStringLiteral("-5")}
                            << QStringLiteral("--memory-budget: memory_budget_mb: ");
    QTest::newRow("model") << QStringList{QStringLiteral("--model"), QStringLiteral("nosuch")}
                           << QStringLiteral("nosuch");
    QTest::newRow("positional") << QStringList{QStringLiteral("resnet50")}
                                << QStringLiteral("unexpected argument: resnet50");
    QTest::newRow("unknown option")
        << QStringList{QStringLiteral("--batch-size"), QStringLiteral("8")}
        << QStringLiteral("batch-size");
    QTest::newRow("json folder missing")
        << QStringList{QStringLiteral("--json"), QStringLiteral("/nonexistent/dir/out.json")}
        << QStringLiteral("--json");
}

void TestCliMaxBatch::badUsageExitsTwo()
{
    QFETCH(QStringList, extra);
    QFETCH(QString, message);
    const auto r = clitest::runLoaderlab(smallModel() << extra, 60'000);
    QVERIFY2(r.exitCode == 2, qPrintable(details(r)));
    QVERIFY2(r.err.contains(message), qPrintable(details(r)));
    QVERIFY2(!r.err.contains(QStringLiteral("max-batch: batch ")), qPrintable(details(r)));
}

void TestCliMaxBatch::aBinaryWithoutItsModelsNamesTheMissingFile()
{
    // Beside the binary the build put it: `info` loads it and says from where.
    const auto info = clitest::runLoaderlab({QStringLiteral("info"), QStringLiteral("--json")});
    QVERIFY2(info.exitCode == 0, qPrintable(details(info)));
    const auto models = nlohmann::json::parse(info.out.toStdString()).at("models");
    QVERIFY2(models.at("loaded").get<bool>(), qPrintable(info.out));
    const QString pluginPath = QString::fromStdString(models.at("path").get<std::string>());
    QCOMPARE(QFileInfo(pluginPath).fileName(), QStringLiteral("loaderlab_torch_plugin.so"));
    QCOMPARE(QFileInfo(pluginPath).absolutePath(),
             QFileInfo(QStringLiteral(LOADERLAB_BINARY)).absolutePath());

    // A copy of the binary alone (as if the package's lib/loaderlab were lost).
    const QString alone = m_dir.filePath(QStringLiteral("alone"));
    QVERIFY(QDir().mkpath(alone));
    const QString binary = alone + QStringLiteral("/loaderlab");
    QVERIFY(QFile::copy(QStringLiteral(LOADERLAB_BINARY), binary));
    const auto run = [&](const QStringList &arguments) {
        QProcess process;
        process.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
        process.start(binary, arguments);
        return clitest::finish(process, 120'000);
    };
    const QString missing = QStringLiteral("no loaderlab_torch_plugin.so in ") + alone;
    const auto aloneInfo = run({QStringLiteral("info")});
    QVERIFY2(aloneInfo.exitCode == 0 && aloneInfo.out.contains(missing),
             qPrintable(details(aloneInfo)));
    const auto maxBatch = run(smallModel());
    QCOMPARE(maxBatch.exitCode, 1);
    QVERIFY2(maxBatch.err.contains(missing), qPrintable(details(maxBatch)));
    const QStringList small = {QStringLiteral("run"),     QStringLiteral("--shape"),
                               QStringLiteral("3x16x16"), QStringLiteral("--samples"),
                               QStringLiteral("16"),      QStringLiteral("--batch-size"),
                               QStringLiteral("4"),       QStringLiteral("--quiet")};
    const auto modelRun = run(QStringList(small)
                              << QStringLiteral("--model") << QStringLiteral("resnet18"));
    QCOMPARE(modelRun.exitCode, 1);
    QVERIFY2(modelRun.err.contains(missing), qPrintable(details(modelRun)));
    const auto sleepRun = run(QStringList(small)
                              << QStringLiteral("--sleep-batch-ms") << QStringLiteral("1"));
    QVERIFY2(sleepRun.exitCode == 0, qPrintable(details(sleepRun)));
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliMaxBatch)
#include "test_cli_max_batch.moc"
