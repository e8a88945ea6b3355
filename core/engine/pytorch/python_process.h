#pragma once

// The PyTorch engine's child processes (core/engine/pytorch/pytorch_run.h): started in a
// process group of their own with stdout and stderr on pipes, so that ending a run
// ends everything the engine started in that group (DataLoader workers included),
// and a short check run with a time limit. The engine itself also gets its two
// channels: a records pipe (its fd 3, kEngineRecordsFd) and a commands socket (its
// fd 4, kEngineCommandsFd). Every other descriptor of LoaderLab's is closed in the
// child. POSIX, no Qt.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace loaderlab {

// The child's descriptors for the engine's channels (spawnEngineProcess with
// `channels`): it writes records on the first and reads commands on the second.
inline constexpr int kEngineRecordsFd = 3;
inline constexpr int kEngineCommandsFd = 4;

struct PythonProcess
{
    int pid = -1; // also the process group's id
    int out = -1; // read ends of the child's stdout and stderr (close-on-exec)
    int err = -1;
    // With `channels`: the read end of the records pipe, and LoaderLab's end of the
    // commands socket (close-on-exec, non-blocking: sendEngineCommand); else -1.
    int records = -1;
    int commands = -1;
};

// Starts `args` (args[0] looked up on the PATH) as the leader of a new process
// group, with stdin, stdout and stderr (stdin is LoaderLab's) and, with `channels`,
// the records pipe and the commands socket at kEngineRecordsFd and
// kEngineCommandsFd; nothing else of LoaderLab's is inherited. Throws
// std::runtime_error when it cannot be started.
PythonProcess spawnEngineProcess(const std::vector<std::string> &args, bool channels = false);

// Writes one command line (`line` with its newline) on the commands socket without
// blocking and without SIGPIPE. "" when it was sent whole; otherwise why not (the
// engine has ended, or has not read 200 KiB of earlier commands). A line is sent
// whole or not at all only up to the socket's free space: keep commands short.
std::string sendEngineCommand(int fd, const std::string &line);

// True once the child has exited. It is not reaped: until reapEngineProcess, its
// pid (the group's id) cannot be taken by another process, so signalling the group
// reaches only what the engine started.
bool engineProcessExited(int pid);

// Waits for the child (after it exited or was killed) and returns its wait status.
int reapEngineProcess(int pid);

// Sends `signal` to the child's whole process group.
void signalEngineGroup(int pid, int signal);

// Appends `bytes` to `tail`, keeping only its last `maxBytes`.
void appendTail(std::string &tail, std::string_view bytes, std::size_t maxBytes = 4096);

// The last line of `text`, without the newlines after it.
std::string lastLine(std::string text);

struct CheckProcessResult
{
    bool timedOut = false;
    bool cancelled = false;
    int status = 0;      // wait status, when it ended on its own
    std::string errTail; // the last 4 KiB of its stderr
};

// Runs `args` to the end, for at most `timeoutMs`, asking `cancelled` (when given)
// every 100 ms. On the time limit or a cancel the whole group is killed (SIGKILL).
// Its output is read and dropped, but for stderr's tail; after the child exits,
// pipes still held open by a process that left the group are read for 200 ms at
// most. Throws std::runtime_error when it cannot be started.
CheckProcessResult runCheckProcess(const std::vector<std::string> &args, std::int64_t timeoutMs,
                                   const std::function<bool()> &cancelled = {});

// The time limit of the check for torch: $LOADERLAB_PYTORCH_CHECK_SECONDS when set to a
// positive number, else 30 s.
double engineCheckSeconds();

} // namespace loaderlab
