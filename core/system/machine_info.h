#pragma once

// MachineInfo: what a result was measured on, for `loaderlab info` and for every
// JSON summary, so figures can be compared across machines.

#include <cstdint>
#include <map>
#include <string>

namespace loaderlab {

struct MachineInfo
{
    std::string cpuModel;
    int logicalCores = 0;
    std::int64_t memoryBytes = 0;
    std::string os;
    std::string hostname;
    bool cudaAvailable = false;
    int cudaDevices = 0;
    // Library name -> version: opencv, spdlog, libtorch (and qt, added by the app).
    std::map<std::string, std::string> versions;
};

// MemTotal of /proc/meminfo in bytes; 0 when unknown.
std::int64_t totalMemoryBytes();

MachineInfo machineInfo();

} // namespace loaderlab
