#include "core/run/engine_process.h"

#include "core/system/clock.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace loaderlab {

EngineProcess spawnEngineProcess(const std::vector<std::string> &args)
{
    int outPipe[2], errPipe[2];
    if (pipe2(outPipe, O_CLOEXEC) != 0)
        throw std::runtime_error("cannot start " + args[0] + ": no pipe");
    if (pipe2(errPipe, O_CLOEXEC) != 0) {
        close(outPipe[0]);
        close(outPipe[1]);
        throw std::runtime_error("cannot start " + args[0] + ": no pipe");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    // Its own group, and the default action for the stop signals: a shell or a
    // test harness may have set SIGINT or SIGTERM to "ignore", which exec keeps.
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE})
        sigaddset(&defaults, s);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF
                                              | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&attributes, 0);
    std::vector<char *> argv;
    for (const std::string &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int failed = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(outPipe[1]);
    close(errPipe[1]);
    if (failed != 0) {
        close(outPipe[0]);
        close(errPipe[0]);
        throw std::runtime_error("cannot start " + args[0] + ": " + std::strerror(failed));
    }
    return {pid, outPipe[0], errPipe[0]};
}

bool engineProcessExited(int pid)
{
    siginfo_t info;
    std::memset(&info, 0, sizeof info);
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == ECHILD; // already reaped: nothing left to wait for
    return info.si_pid != 0;
}

int reapEngineProcess(int pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return 0;
    }
    return status;
}

void signalEngineGroup(int pid, int signal)
{
    if (pid > 0)
        kill(-pid, signal);
}

void appendTail(std::string &tail, std::string_view bytes, std::size_t maxBytes)
{
    if (bytes.size() >= maxBytes) {
        tail.assign(bytes.substr(bytes.size() - maxBytes));
        return;
    }
    tail.append(bytes);
    if (tail.size() > maxBytes)
        tail.erase(0, tail.size() - maxBytes);
}

std::string lastLine(std::string text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.pop_back();
    const auto start = text.rfind('\n');
    return start == std::string::npos ? text : text.substr(start + 1);
}

EngineCheck runEngineCheck(const std::vector<std::string> &args, std::int64_t timeoutMs,
                           const std::function<bool()> &cancelled)
{
    const EngineProcess child = spawnEngineProcess(args);
    EngineCheck result;
    const std::int64_t deadline = steadyNowNs() + timeoutMs * 1'000'000;
    std::int64_t drainUntil = 0;
    bool outOpen = true, errOpen = true, exited = false;
    char buffer[4096];
    while (true) {
        pollfd fds[2] = {{outOpen ? child.out : -1, POLLIN, 0},
                         {errOpen ? child.err : -1, POLLIN, 0}};
        if (poll(fds, 2, 100) > 0) {
            for (int k = 0; k < 2; ++k) {
                if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                const ssize_t n = read(fds[k].fd, buffer, sizeof buffer);
                if (n <= 0 && !(n < 0 && errno == EINTR))
                    (k ? errOpen : outOpen) = false;
                else if (n > 0 && k == 1)
                    appendTail(result.errTail, {buffer, static_cast<std::size_t>(n)});
            }
        }
        const std::int64_t now = steadyNowNs();
        if (!exited && engineProcessExited(child.pid)) {
            exited = true;
            drainUntil = now + 200'000'000;
            signalEngineGroup(child.pid, SIGKILL); // anything it left in its group
        }
        if (exited && ((!outOpen && !errOpen) || now > drainUntil))
            break;
        if (!exited && (now > deadline || (cancelled && cancelled()))) {
            (now > deadline ? result.timedOut : result.cancelled) = true;
            signalEngineGroup(child.pid, SIGKILL);
            break;
        }
    }
    close(child.out);
    close(child.err);
    result.status = reapEngineProcess(child.pid);
    return result;
}

double engineCheckSeconds()
{
    if (const char *value = std::getenv("LOADERLAB_PYTORCH_CHECK_SECONDS"); value && *value) {
        char *end = nullptr;
        const double seconds = std::strtod(value, &end);
        if (end && *end == '\0' && std::isfinite(seconds) && seconds > 0 && seconds <= 86400)
            return seconds;
    }
    return 30.0;
}

} // namespace loaderlab
