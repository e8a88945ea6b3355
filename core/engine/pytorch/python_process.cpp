#include "core/engine/pytorch/python_process.h"

#include "core/system/clock.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <stdexcept>

#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace loaderlab {

namespace {

// `fd` moved to 10 or above (close-on-exec), so that placing the child's
// descriptors 1 to 4 never overwrites one still to be placed.
int aboveChildFds(int fd)
{
    const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    close(fd);
    return moved;
}

void closeAll(std::initializer_list<int> fds)
{
    for (int fd : fds)
        if (fd >= 0)
            close(fd);
}

} // namespace

PythonProcess spawnEngineProcess(const std::vector<std::string> &args, bool channels)
{
    // [0] read, [1] write; commands: [0] LoaderLab's end, [1] the child's.
    int outPipe[2] = {-1, -1}, errPipe[2] = {-1, -1}, recPipe[2] = {-1, -1};
    int cmdPair[2] = {-1, -1};
    bool made = pipe2(outPipe, O_CLOEXEC) == 0 && pipe2(errPipe, O_CLOEXEC) == 0;
    if (made && channels)
        made = pipe2(recPipe, O_CLOEXEC) == 0
               && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, cmdPair) == 0;
    if (made) {
        for (int *fd : {&outPipe[1], &errPipe[1], &recPipe[1], &cmdPair[1]})
            if (*fd >= 0 && (*fd = aboveChildFds(*fd)) < 0)
                made = false;
    }
    if (!made) {
        closeAll({outPipe[0], outPipe[1], errPipe[0], errPipe[1], recPipe[0], recPipe[1],
                  cmdPair[0], cmdPair[1]});
        throw std::runtime_error("cannot start " + args[0] + ": no pipe");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
    if (channels) {
        posix_spawn_file_actions_adddup2(&actions, recPipe[1], kEngineRecordsFd);
        posix_spawn_file_actions_adddup2(&actions, cmdPair[1], kEngineCommandsFd);
    }
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    // Whatever LoaderLab (or a library in it) opened without close-on-exec.
    posix_spawn_file_actions_addclosefrom_np(&actions, channels ? kEngineCommandsFd + 1 : 3);
#endif
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
    closeAll({outPipe[1], errPipe[1], recPipe[1], cmdPair[1]});
    if (failed != 0) {
        closeAll({outPipe[0], errPipe[0], recPipe[0], cmdPair[0]});
        throw std::runtime_error("cannot start " + args[0] + ": " + std::strerror(failed));
    }
    if (cmdPair[0] >= 0)
        fcntl(cmdPair[0], F_SETFL, fcntl(cmdPair[0], F_GETFL) | O_NONBLOCK);
    return {pid, outPipe[0], errPipe[0], recPipe[0], cmdPair[0]};
}

std::string sendEngineCommand(int fd, const std::string &line)
{
    if (fd < 0)
        return "the engine has ended";
    std::string_view rest = line;
    while (!rest.empty()) {
        const ssize_t n = send(fd, rest.data(), rest.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK
                       ? "the engine does not read its commands"
                       : "the engine has ended (" + std::string(std::strerror(errno)) + ")";
        rest.remove_prefix(static_cast<std::size_t>(n));
    }
    return {};
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

CheckProcessResult runCheckProcess(const std::vector<std::string> &args, std::int64_t timeoutMs,
                                   const std::function<bool()> &cancelled)
{
    const PythonProcess child = spawnEngineProcess(args);
    CheckProcessResult result;
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
