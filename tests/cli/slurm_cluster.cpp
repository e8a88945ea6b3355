#include "slurm_cluster.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QThread>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <random>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace clitest {
namespace {

// Where a program is: the PATH, then /usr/sbin (root's daemons); empty if nowhere.
QString programPath(const QString &name)
{
    const QString onPath = QStandardPaths::findExecutable(name);
    return onPath.isEmpty() ? QStandardPaths::findExecutable(name, {QStringLiteral("/usr/sbin")})
                            : onPath;
}

bool writeFile(const QString &path, const QByteArray &bytes, QFile::Permissions permissions)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size()
           && file.setPermissions(permissions);
}

} // namespace

int freeLoopbackPort()
{
    // bind(0) would hand out a port from the ephemeral range, and the kernel gives
    // the same range to every other socket: srun's own I/O listeners, gloo's
    // connections, other tests. Between this probe and the daemon's bind one of
    // them can take it ("Address already in use"). A port below that range is only
    // ever taken by a program that asks for it by number.
    int low = 32768;
    {
        QFile range(QStringLiteral("/proc/sys/net/ipv4/ip_local_port_range"));
        if (range.open(QIODevice::ReadOnly)) {
            bool ok = false;
            const int first = QString::fromLatin1(range.readAll())
                                  .split(QRegularExpression(QStringLiteral("\\s+")),
                                         Qt::SkipEmptyParts)
                                  .value(0)
                                  .toInt(&ok);
            if (ok && first > 2048)
                low = first;
        }
    }
    const int from = std::max(1024, low - 12000);
    static std::mt19937 random{std::random_device{}()};
    const int start = std::uniform_int_distribution<int>(from, low - 1)(random);
    for (int i = 0; i < low - from; ++i) {
        const int port = from + (start - from + i) % (low - from);
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            return 0;
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_ANY);
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        const bool free = ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0;
        ::close(fd);
        if (free)
            return port;
    }
    return 0;
}

SlurmCluster::SlurmCluster(QString dir)
    : m_dir(std::move(dir))
{
}

SlurmCluster::~SlurmCluster()
{
    stop();
}

QString SlurmCluster::configPath() const
{
    return m_dir + QStringLiteral("/slurm.conf");
}

QStringList SlurmCluster::environment() const
{
    return {QStringLiteral("SLURM_CONF=") + configPath()};
}

std::vector<qint64> SlurmCluster::pids() const
{
    std::vector<qint64> ids;
    for (const auto &d : m_daemons)
        ids.push_back(d->processId());
    return ids;
}

QString SlurmCluster::logTail(const QString &file) const
{
    QFile log(m_dir + QLatin1Char('/') + file);
    if (!log.open(QIODevice::ReadOnly))
        return QStringLiteral("(no %1)").arg(file);
    const QByteArray all = log.readAll();
    return QString::fromUtf8(all.right(1500));
}

bool SlurmCluster::startDaemon(const QString &name, const QString &program,
                               const QStringList &arguments, QString *why)
{
    auto process = std::make_unique<QProcess>();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SLURM_CONF"), configPath());
    process->setProcessEnvironment(env);
    process->setStandardOutputFile(m_dir + QLatin1Char('/') + name + QStringLiteral(".out"));
    process->setStandardErrorFile(m_dir + QLatin1Char('/') + name + QStringLiteral(".out"),
                                  QIODevice::Append);
    process->start(programPath(program), arguments);
    if (!process->waitForStarted(10'000)) {
        *why = name + QStringLiteral(" did not start: ") + process->errorString();
        return false;
    }
    m_daemons.push_back(std::move(process));
    return true;
}

bool SlurmCluster::start(QString *why)
{
    QStringList missing;
    for (const char *program : {"munged", "slurmctld", "slurmd", "sbatch", "sinfo"}) {
        const QString name = QString::fromLatin1(program);
        if (programPath(name).isEmpty())
            missing << name;
    }
    if (!missing.isEmpty()) {
        *why = QStringLiteral("not installed: %1 (bash installer/build.sh installs Debian's "
                              "munge, slurmctld, slurmd and slurm-client)")
                   .arg(missing.join(QStringLiteral(", ")));
        return false;
    }
    if (::geteuid() != 0) {
        *why = QStringLiteral("the one-node cluster runs as root (slurmd starts each job as "
                              "its submitter)");
        return false;
    }
    QDir(m_dir).mkpath(QStringLiteral("state"));
    QDir(m_dir).mkpath(QStringLiteral("spool"));
    QDir(m_dir).mkpath(QStringLiteral("munge"));
    QFile::setPermissions(m_dir + QStringLiteral("/munge"),
                          QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QByteArray key(1024, '\0');
    std::random_device random;
    for (char &c : key)
        c = static_cast<char>(random());
    const QString keyFile = m_dir + QStringLiteral("/munge/munge.key");
    if (!writeFile(keyFile, key, QFile::ReadOwner)) {
        *why = QStringLiteral("cannot write ") + keyFile;
        return false;
    }
    const QString socket = m_dir + QStringLiteral("/munge/socket");
    const int controllerPort = freeLoopbackPort();
    const int nodePort = freeLoopbackPort();
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    QString config = QStringLiteral("ClusterName=loaderlabtest\n"
                                    "SlurmctldHost=localhost(127.0.0.1)\n"
                                    "SlurmctldPort=%1\n"
                                    "SlurmdPort=%2\n"
                                    "AuthType=auth/munge\n"
                                    "AuthInfo=socket=%3\n"
                                    "CredType=cred/munge\n"
                                    "SlurmUser=root\n"
                                    "SlurmdUser=root\n"
                                    "StateSaveLocation=%4/state\n"
                                    "SlurmdSpoolDir=%4/spool\n"
                                    "SlurmctldPidFile=%4/slurmctld.pid\n"
                                    "SlurmdPidFile=%4/slurmd.pid\n"
                                    "SlurmctldLogFile=%4/slurmctld.log\n"
                                    "SlurmdLogFile=%4/slurmd.log\n"
                                    "ProctrackType=proctrack/linuxproc\n"
                                    "TaskPlugin=task/none\n"
                                    "SelectType=select/cons_tres\n"
                                    "SelectTypeParameters=CR_Core\n"
                                    "ReturnToService=2\n"
                                    "MpiDefault=none\n"
                                    "JobCompType=jobcomp/none\n"
                                    "AccountingStorageType=accounting_storage/none\n"
                                    "JobAcctGatherType=jobacct_gather/none\n"
                                    "SchedulerType=sched/builtin\n"
                                    "NodeName=lltest NodeHostname=localhost NodeAddr=127.0.0.1 "
                                    "CPUs=%5 State=UNKNOWN\n"
                                    "PartitionName=lltest Nodes=lltest Default=YES "
                                    "MaxTime=INFINITE State=UP\n")
                         .arg(controllerPort)
                         .arg(nodePort)
                         .arg(socket, m_dir)
                         .arg(cpus);
    if (controllerPort == 0 || nodePort == 0
        || !writeFile(configPath(), config.toUtf8(), QFile::ReadOwner | QFile::WriteOwner)) {
        *why = QStringLiteral("cannot set up ") + configPath();
        return false;
    }
    // -f: munged refuses to run as root without it.
    if (!startDaemon(QStringLiteral("munged"), QStringLiteral("munged"),
                     {QStringLiteral("-F"), QStringLiteral("-f"),
                      QStringLiteral("--socket=") + socket, QStringLiteral("--key-file=") + keyFile,
                      QStringLiteral("--pid-file=") + m_dir + QStringLiteral("/munge/pid"),
                      QStringLiteral("--log-file=") + m_dir + QStringLiteral("/munge/log"),
                      QStringLiteral("--seed-file=") + m_dir + QStringLiteral("/munge/seed")},
                     why))
        return false;
    QElapsedTimer clock;
    clock.start();
    while (!QFile::exists(socket) && clock.elapsed() < 10'000)
        QThread::msleep(50);
    if (!startDaemon(QStringLiteral("slurmctld"), QStringLiteral("slurmctld"),
                     {QStringLiteral("-D"), QStringLiteral("-f"), configPath()}, why)
        || !startDaemon(QStringLiteral("slurmd"), QStringLiteral("slurmd"),
                        {QStringLiteral("-D"), QStringLiteral("-f"), configPath(),
                         QStringLiteral("-N"), QStringLiteral("lltest")},
                        why))
        return false;
    // Up when the node reports idle; a daemon that ended says why in its output.
    clock.restart();
    QString state;
    while (clock.elapsed() < 60'000) {
        for (const auto &d : m_daemons) {
            if (d->state() == QProcess::NotRunning) {
                const QString name = QFileInfo(d->program()).fileName();
                *why = name + QStringLiteral(" ended: ") + logTail(name + QStringLiteral(".out"));
                return false;
            }
        }
        if (runClient(QStringLiteral("sinfo"),
                      {QStringLiteral("-h"), QStringLiteral("-N"), QStringLiteral("-o"),
                       QStringLiteral("%T")},
                      10'000, &state)
                == 0
            && state.trimmed() == QLatin1String("idle"))
            return true;
        QThread::msleep(200);
    }
    *why = QStringLiteral("the node did not become idle within 60 s (state '%1'); slurmd.log: %2")
               .arg(state.trimmed(), logTail(QStringLiteral("slurmd.log")));
    return false;
}

int SlurmCluster::runClient(const QString &program, const QStringList &arguments, int timeoutMs,
                            QString *output)
{
    QProcess client;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SLURM_CONF"), configPath());
    client.setProcessEnvironment(env);
    client.setProcessChannelMode(QProcess::MergedChannels);
    client.start(programPath(program), arguments);
    if (!client.waitForFinished(timeoutMs)) {
        client.kill();
        client.waitForFinished(5'000);
        if (output)
            *output = QStringLiteral("(%1 timed out)").arg(program);
        return -1;
    }
    if (output)
        *output = QString::fromUtf8(client.readAll());
    return client.exitStatus() == QProcess::NormalExit ? client.exitCode() : -1;
}

void SlurmCluster::stop()
{
    // slurmd first (it ends the job steps it runs), munged last (the others use it).
    for (auto it = m_daemons.rbegin(); it != m_daemons.rend(); ++it) {
        QProcess &d = **it;
        if (d.state() == QProcess::NotRunning)
            continue;
        ::kill(static_cast<pid_t>(d.processId()), SIGTERM);
        if (!d.waitForFinished(15'000)) {
            ::kill(static_cast<pid_t>(d.processId()), SIGKILL);
            d.waitForFinished(5'000);
        }
    }
    m_daemons.clear();
}

std::unique_ptr<SlurmCluster> startTestCluster(const QString &parent, QString *why)
{
    const QString dir = parent + QStringLiteral("/cluster");
    QDir().mkpath(dir);
    auto cluster = std::make_unique<SlurmCluster>(dir);
    if (cluster->start(why))
        return cluster;
    cluster->stop();
    *why = QStringLiteral("no one-node Slurm cluster here: ") + *why;
    return nullptr;
}

} // namespace clitest
