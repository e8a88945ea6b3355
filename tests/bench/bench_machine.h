#pragma once

// What a benchmark's figures were measured on and with, printed beside every result:
// a command's output (git describe, uname), the CPU model and the load average.

#include <string>

namespace benchmachine {

// The command's standard output, trailing newlines and spaces removed; "" if it
// could not run.
std::string commandOutput(const std::string &command);
// The first "model name" of /proc/cpuinfo, or "unknown CPU".
std::string cpuModel();
// The 1, 5 and 15 minute load averages of /proc/loadavg.
std::string loadAverage();

} // namespace benchmachine
