#pragma once

// Runs the real `loaderlab` binary for CLI tests, headless (no DISPLAY; the window,
// when a test opens it, draws offscreen), and collects its exit code and output.
// Started processes can be signalled mid-run.

#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>
#include <functional>

namespace clitest {

struct Result
{
    int exitCode = -1; // -1: crashed, or killed for not finishing in time
    QString out;
    QString err;
    QByteArray outBytes; // raw bytes: what a terminal would receive
    QByteArray errBytes;
};

// `childSetup` runs in the child before exec (e.g. setrlimit).
inline void startLoaderlab(QProcess &process, const QStringList &arguments,
                           const std::function<void()> &childSetup = {})
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY")); // headless means no display at all
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    // The window saves its settings on exit: keep them out of the user's own.
    static const QTemporaryDir configHome;
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome.path());
    process.setProcessEnvironment(env);
    if (childSetup)
        process.setChildProcessModifier(childSetup);
    process.start(QStringLiteral(LOADERLAB_BINARY), arguments);
}

inline Result finish(QProcess &process, int timeoutMs)
{
    if (!process.waitForFinished(timeoutMs)) {
        process.kill(); // a hang is a failure a test may be looking for
        process.waitForFinished(5'000);
        return {-1,
                QString(),
                QStringLiteral("(timed out: %1)").arg(process.arguments().join(QLatin1Char(' '))),
                {},
                {}};
    }
    Result r;
    r.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    r.outBytes = process.readAllStandardOutput();
    r.errBytes = process.readAllStandardError();
    r.out = QString::fromUtf8(r.outBytes);
    r.err = QString::fromUtf8(r.errBytes);
    return r;
}

inline Result runLoaderlab(const QStringList &arguments, int timeoutMs = 240'000,
                           const std::function<void()> &childSetup = {})
{
    QProcess process;
    startLoaderlab(process, arguments, childSetup);
    return finish(process, timeoutMs);
}

// A JSON file the binary wrote; throws nlohmann::json::parse_error when it is not JSON.
inline nlohmann::json readJson(const QString &path)
{
    std::ifstream in(path.toStdString());
    return nlohmann::json::parse(in);
}

// A small image folder made by the real `make-dataset`: 2 classes of `perClass`
// JPEGs, short sides 40..64 px.
inline Result makeImageFolder(const QString &folder, int perClass = 3)
{
    return runLoaderlab({QStringLiteral("make-dataset"), folder, QStringLiteral("--classes"),
                         QStringLiteral("2"), QStringLiteral("--images-per-class"),
                         QString::number(perClass), QStringLiteral("--min-side"),
                         QStringLiteral("40"), QStringLiteral("--max-side"), QStringLiteral("64")});
}

} // namespace clitest
