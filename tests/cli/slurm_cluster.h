#pragma once

// A one-node Slurm cluster on localhost for tests: munged, slurmctld and slurmd
// from Debian's packages, each started in the foreground by this class with its own
// key, sockets, ports, spool and state under a private folder, and stopped by the
// PID it was started with (TERM, then KILL). Needs root: slurmd starts each job as
// its submitter. start() says why when the cluster cannot come up.

#include <QProcess>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace clitest {

// A TCP port nobody listens on now, below the kernel's ephemeral range so that no
// socket bound to port 0 or connecting out is handed it before its user binds it.
int freeLoopbackPort();

class SlurmCluster;

// A cluster in `parent`/cluster, started; nullptr with `why` when it cannot come up
// (stopped again then): the caller skips the test with that reason.
std::unique_ptr<SlurmCluster> startTestCluster(const QString &parent, QString *why);

class SlurmCluster
{
public:
    explicit SlurmCluster(QString dir);
    ~SlurmCluster();
    SlurmCluster(const SlurmCluster &) = delete;
    SlurmCluster &operator=(const SlurmCluster &) = delete;

    // Starts the daemons and waits until the node takes jobs; false with `why`
    // (a missing program, no root, a daemon that ended, its log's tail).
    bool start(QString *why);
    void stop();

    QString configPath() const;
    // The environment the cluster's commands (sbatch, sinfo) need: SLURM_CONF.
    QStringList environment() const;
    // Runs a client command (sbatch, sinfo, ...) against this cluster.
    int runClient(const QString &program, const QStringList &arguments, int timeoutMs,
                  QString *output);
    std::vector<qint64> pids() const;

private:
    bool startDaemon(const QString &name, const QString &program, const QStringList &arguments,
                     QString *why);
    QString logTail(const QString &file) const;

    QString m_dir;
    std::vector<std::unique_ptr<QProcess>> m_daemons;
};

} // namespace clitest
