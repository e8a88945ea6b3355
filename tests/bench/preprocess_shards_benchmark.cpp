// loaderlab_bench_preprocess_shards: offline preprocessing of an image folder by one
// process (one thread per core) against a 2-task Slurm job array sharing the shards
// out (`preprocess --shards N --slurm-tasks 2 --slurm-script`, one core a task) on the one-node
// cluster this program starts on localhost, in alternating rounds: each round's wall-time ratio
// (array / one process; the array's time from sbatch to its manifest, written by its last task, and
// to sbatch --wait's return, which polls the job every few seconds), min/median/max, and whether
// the shards held the one-process file's records byte for byte. Needs root and Debian's slurm-wlm
// packages (the cluster of tests/cli/slurm_cluster.h). Not run by ctest.
//
//   loaderlab_bench_preprocess_shards --folder PHOTOS [--rounds 3] [--shards 8] [--dtype uint8]

#include "bench_machine.h"
#include "tests/cli/slurm_cluster.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

int runQuiet(const QString &program, const QStringList &arguments)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    const bool finished = process.waitForFinished(3'600'000);
    const int code = finished && process.exitStatus() == QProcess::NormalExit ? process.exitCode()
                                                                              : -1;
    if (code != 0)
        std::fprintf(stderr, "%s failed:\n%s\n", qPrintable(program),
                     process.readAll().right(2000).constData());
    return code;
}

QByteArray recordsOf(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll().mid(64) : QByteArray();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QString folder;
    QString dtype = QStringLiteral("uint8");
    int rounds = 3;
    int shardCount = 8;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--folder"))
            folder = args[i + 1];
        else if (args[i] == QLatin1String("--rounds"))
            rounds = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--shards"))
            shardCount = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--dtype"))
            dtype = args[i + 1];
    }
    if (folder.isEmpty() || rounds < 1 || shardCount < 2) {
        std::fprintf(stderr, "usage: %s --folder PHOTOS [--rounds 3] [--dtype uint8]\n", argv[0]);
        return 2;
    }
    const QString binary = QStringLiteral(LOADERLAB_BINARY);
    QTemporaryDir dir;
    clitest::SlurmCluster cluster(dir.filePath(QStringLiteral("cluster")));
    QDir().mkpath(dir.filePath(QStringLiteral("cluster")));
    QString why;
    if (!cluster.start(&why)) {
        std::fprintf(stderr, "no one-node Slurm cluster: %s\n", qPrintable(why));
        return 1;
    }
    std::printf(
        "commit:  %s\nmachine: %s, %u CPUs\nload:    %s\nfolder:  %s, --dtype %s\n",
        benchmachine::commandOutput("git -C " LOADERLAB_SOURCE_DIR " describe --always --dirty")
            .c_str(),
        benchmachine::cpuModel().c_str(), std::thread::hardware_concurrency(),
        benchmachine::loadAverage().c_str(), qPrintable(folder), qPrintable(dtype));
    std::printf("%d shards\n", shardCount);
    std::printf("round  one process s  array to manifest s  ratio  sbatch --wait s  plan written "
                "s  first shard done s  same bytes\n");
    std::vector<double> ratios;
    bool allSame = true;
    for (int round = 0; round < rounds; ++round) {
        const QString single = dir.filePath(QStringLiteral("single-%1.lltensor").arg(round));
        const QString shards = dir.filePath(QStringLiteral("shards-%1").arg(round));
        const QString script = dir.filePath(QStringLiteral("round-%1.sbatch").arg(round));
        if (runQuiet(binary, {QStringLiteral("preprocess"), folder, shards,
                              QStringLiteral("--dtype"), dtype, QStringLiteral("--shards"),
                              QString::number(shardCount), QStringLiteral("--slurm-tasks"),
                              QStringLiteral("2"), QStringLiteral("--slurm-script"), script})
            != 0)
            return 1;
        double oneSeconds = 0.0, arraySeconds = 0.0, waitSeconds = 0.0;
        double firstShardEnd = 0.0, planWritten = 0.0;
        // Alternating which goes first, so that neither always meets a warmer cache.
        for (int k = 0; k < 2; ++k) {
            QElapsedTimer clock;
            clock.start();
            const QDateTime submitted = QDateTime::currentDateTimeUtc();
            if ((k == 0) == (round % 2 == 0)) {
                if (runQuiet(binary, {QStringLiteral("preprocess"), folder, single,
                                      QStringLiteral("--dtype"), dtype})
                    != 0)
                    return 1;
                oneSeconds = static_cast<double>(clock.elapsed()) / 1000.0;
            } else {
                QString output;
                if (cluster.runClient(QStringLiteral("sbatch"), {QStringLiteral("--wait"), script},
                                      3'600'000, &output)
                    != 0) {
                    std::fprintf(stderr, "sbatch failed: %s\n", qPrintable(output));
                    return 1;
                }
                waitSeconds = static_cast<double>(clock.elapsed()) / 1000.0;
                const QDateTime done =
                    QFileInfo(shards + QStringLiteral("/manifest.json")).lastModified().toUTC();
                arraySeconds = static_cast<double>(submitted.msecsTo(done)) / 1000.0;
                planWritten = static_cast<double>(submitted.msecsTo(
                                  QFileInfo(shards + QStringLiteral("/preprocess.json"))
                                      .lastModified()
                                      .toUTC()))
                              / 1000.0;
                firstShardEnd = 1e9;
                for (int shard = 0; shard < shardCount; ++shard)
                    firstShardEnd = std::min(
                        firstShardEnd,
                        static_cast<double>(submitted.msecsTo(
                            QFileInfo(shards
                                      + QStringLiteral("/shard-%1-of-%2.json")
                                            .arg(shard, 5, 10, QLatin1Char('0'))
                                            .arg(shardCount, 5, 10, QLatin1Char('0')))
                                .lastModified()
                                .toUTC()))
                            / 1000.0);
            }
        }
        QByteArray sharded;
        for (int k = 0; k < shardCount; ++k)
            sharded += recordsOf(shards
                                 + QStringLiteral("/shard-%1-of-%2.lltensor")
                                       .arg(k, 5, 10, QLatin1Char('0'))
                                       .arg(shardCount, 5, 10, QLatin1Char('0')));
        const bool same = sharded == recordsOf(single)
                          && QFile::exists(shards + QStringLiteral("/manifest.json"));
        allSame = allSame && same;
        const double ratio = arraySeconds / oneSeconds;
        ratios.push_back(ratio);
        std::printf("%5d  %13.2f  %19.2f  %5.3f  %15.2f  %14.2f  %18.2f  %s\n", round + 1,
                    oneSeconds, arraySeconds, ratio, waitSeconds, planWritten, firstShardEnd,
                    same ? "yes" : "NO");
        std::fflush(stdout);
    }
    std::printf("ratio (array / one process): min %.3f  median %.3f  max %.3f over %d rounds\n",
                *std::min_element(ratios.begin(), ratios.end()), median(ratios),
                *std::max_element(ratios.begin(), ratios.end()), rounds);
    std::printf("load after: %s\n", benchmachine::loadAverage().c_str());
    cluster.stop();
    return allSame ? 0 : 1;
}
