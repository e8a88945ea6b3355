#pragma once

// What a benchmark's figures were measured on and with, printed beside every result:
// a command's output (git describe, uname), the CPU model and the load average; and a
// busy loop that makes the machine busy partway through a measurement.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <sys/types.h>

namespace benchmachine {

// The command's standard output, trailing newlines and spaces removed; "" if it
// could not run.
std::string commandOutput(const std::string &command);
// The first "model name" of /proc/cpuinfo, or "unknown CPU".
std::string cpuModel();
// The 1, 5 and 15 minute load averages of /proc/loadavg.
std::string loadAverage();

// A CPU-bound loop pinned to one core, started `after` from construction and killed
// by the destructor (or at once when `after` has not gone by). It is not a child of
// this process (started by a child that exits at once), so LoaderLab counts it as
// another program of its own session, as a loop started from the same shell.
class LaterBusyLoop
{
public:
    LaterBusyLoop(std::chrono::milliseconds after, int core);
    ~LaterBusyLoop();
    LaterBusyLoop(const LaterBusyLoop &) = delete;
    LaterBusyLoop &operator=(const LaterBusyLoop &) = delete;

    bool started() const;

private:
    void start(int core);

    mutable std::mutex m_mutex;
    std::condition_variable_any m_wake;
    pid_t m_pid = 0;
    std::jthread m_thread;
};

} // namespace benchmachine
