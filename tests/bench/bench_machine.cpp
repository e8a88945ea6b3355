#include "bench_machine.h"

#include <csignal>
#include <cstdio>
#include <fstream>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

namespace benchmachine {

std::string commandOutput(const std::string &command)
{
    std::string output;
    if (std::FILE *pipe = popen(command.c_str(), "r")) {
        char buffer[256];
        while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
            output.append(buffer, n);
        pclose(pipe);
    }
    while (!output.empty() && (output.back() == '\n' || output.back() == ' '))
        output.pop_back();
    return output;
}

std::string cpuModel()
{
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
        if (line.starts_with("model name")) {
            const std::size_t colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    }
    return "unknown CPU";
}

std::string loadAverage()
{
    std::ifstream file("/proc/loadavg");
    std::string one, five, fifteen;
    file >> one >> five >> fifteen;
    return one + " " + five + " " + fifteen;
}

} // namespace benchmachine

namespace benchmachine {

LaterBusyLoop::LaterBusyLoop(std::chrono::milliseconds after, int core)
    : m_thread([this, after, core](std::stop_token stop) {
        {
            std::unique_lock lock(m_mutex);
            if (m_wake.wait_for(lock, stop, after, [] { return false; }) || stop.stop_requested())
                return;
        }
        start(core);
    })
{
}

LaterBusyLoop::~LaterBusyLoop()
{
    m_thread.request_stop();
    m_thread.join();
    const std::lock_guard lock(m_mutex);
    if (m_pid > 0)
        kill(m_pid, SIGKILL); // init reaps it: it is not our child
}

bool LaterBusyLoop::started() const
{
    const std::lock_guard lock(m_mutex);
    return m_pid > 0;
}

void LaterBusyLoop::start(int core)
{
    int fds[2];
    if (pipe(fds) != 0)
        return;
    const pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        const pid_t loop = fork();
        if (loop == 0) {
            close(fds[1]);
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(core, &set);
            sched_setaffinity(0, sizeof set, &set);
            volatile unsigned long spins = 0;
            for (;;)
                spins = spins + 1;
        }
        const ssize_t written = write(fds[1], &loop, sizeof loop);
        _exit(written == sizeof loop ? 0 : 1);
    }
    close(fds[1]);
    pid_t loop = 0;
    const ssize_t got = child > 0 ? read(fds[0], &loop, sizeof loop) : 0;
    close(fds[0]);
    if (child > 0)
        waitpid(child, nullptr, 0);
    const std::lock_guard lock(m_mutex);
    if (got == sizeof loop && loop > 0)
        m_pid = loop;
}

} // namespace benchmachine
