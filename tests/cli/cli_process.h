#pragma once

// Runs the real `loaderlab` binary for CLI tests, headless (no DISPLAY), and
// collects its exit code and output. Started processes can be signalled mid-run.

#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

#include <csignal>

namespace clitest {

struct Result
{
    int exitCode = -1;   // -1: crashed or did not finish in time
    QString out;
    QString err;
};

inline void startLoaderlab(QProcess &process, const QStringList &arguments)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));   // headless means no display at all
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(LOADERLAB_BINARY), arguments);
}

inline Result finish(QProcess &process, int timeoutMs)
{
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(5'000);
        return {};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

inline Result runLoaderlab(const QStringList &arguments, int timeoutMs = 240'000)
{
    QProcess process;
    startLoaderlab(process, arguments);
    return finish(process, timeoutMs);
}

} // namespace clitest
