#include "app/cli/slurm_ranks.h"

#include "core/io/rank_set.h"
#include "core/io/trace_csv.h"

#include <QProcess>
#include <QString>

#include <cstdlib>
#include <stdexcept>

namespace loaderlab::cli {
namespace {

std::string environment(const char *name)
{
    const char *value = std::getenv(name);
    return value ? value : "";
}

int number(const char *name, int low, int high)
{
    const std::string text = environment(name);
    char *end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < low || value > high)
        throw std::invalid_argument(std::string("--slurm-ranks: ") + name + " is \"" + text
                                    + "\", not a number from " + std::to_string(low) + " to "
                                    + std::to_string(high));
    return static_cast<int>(value);
}

// The job's first node: SLURM_JOB_NODELIST itself when it names one node, else the
// first line of `scontrol show hostnames` (which expands "node[01-04]").
std::string firstNode()
{
    const std::string list = environment("SLURM_JOB_NODELIST");
    if (list.empty())
        throw std::invalid_argument("--slurm-ranks: neither MASTER_ADDR nor SLURM_JOB_NODELIST is "
                                    "set: where the ranks meet is unknown");
    if (list.find_first_of("[,") == std::string::npos)
        return list;
    QProcess scontrol;
    scontrol.start(QStringLiteral("scontrol"), {QStringLiteral("show"), QStringLiteral("hostnames"),
                                                QString::fromStdString(list)});
    if (!scontrol.waitForFinished(10'000) || scontrol.exitCode() != 0)
        throw std::invalid_argument("--slurm-ranks: `scontrol show hostnames " + list
                                    + "` failed: set MASTER_ADDR to the first node");
    const QString first =
        QString::fromUtf8(scontrol.readAllStandardOutput()).section(QLatin1Char('\n'), 0, 0);
    if (first.trimmed().isEmpty())
        throw std::invalid_argument("--slurm-ranks: `scontrol show hostnames " + list
                                    + "` named no node: set MASTER_ADDR");
    return first.trimmed().toStdString();
}

} // namespace

SlurmRank slurmRankFromEnvironment()
{
    if (environment("SLURM_PROCID").empty() || environment("SLURM_NTASKS").empty())
        throw std::invalid_argument("--slurm-ranks: not in a Slurm job step (no SLURM_PROCID and "
                                    "SLURM_NTASKS): start it with srun -n TASKS");
    SlurmRank r;
    r.world = number("SLURM_NTASKS", 1, kMaxTraceCsvRanks);
    r.rank = number("SLURM_PROCID", 0, r.world - 1);
    r.address = environment("MASTER_ADDR");
    if (r.address.empty())
        r.address = firstNode();
    r.port = environment("MASTER_PORT").empty()
                 ? 29500 + number("SLURM_JOB_ID", 0, 2147483647) % 1000
                 : number("MASTER_PORT", 1, 65535);
    r.host = environment("SLURMD_NODENAME");
    return r;
}

void applySlurmRank(RunConfig &config, const SlurmRank &rank)
{
    if (config.engine != EngineKind::PyTorch)
        throw std::invalid_argument("--slurm-ranks: each Slurm task is a rank process of the "
                                    "PyTorch engine (--engine pytorch); LoaderLab's engine runs "
                                    "its ranks as threads of one process (--devices N)");
    config.devices = rank.world;
    config.launchRank = rank.rank;
    config.launchAddress = rank.address;
    config.launchPort = rank.port;
}

std::string rankOutputPath(const std::string &path, int rank, const std::string &extension)
{
    if (path.empty())
        return path;
    const bool has = path.size() > extension.size()
                     && path.compare(path.size() - extension.size(), extension.size(), extension)
                            == 0;
    const std::string stem = has ? path.substr(0, path.size() - extension.size()) : path;
    return extension == ".csv" ? rankCsvPath(stem, rank) : rankJsonPath(stem, rank);
}

ProbeInfo slurmProbeInfo(const SlurmRank &rank, std::int64_t startUnixNs)
{
    return {rank.rank, rank.world, startUnixNs, rank.host};
}

} // namespace loaderlab::cli
