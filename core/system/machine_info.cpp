#include "core/system/machine_info.h"

#include "core/system/torch_info.h"

#include <opencv2/core/version.hpp>
#include <spdlog/version.h>

#include <fstream>
#include <thread>

#include <sys/utsname.h>
#include <unistd.h>

namespace loaderlab {
namespace {

std::string cpuModel()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos)
                return line.substr(line.find_first_not_of(' ', colon + 1));
        }
    }
    return "unknown";
}

} // namespace

std::int64_t totalMemoryBytes()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::int64_t kib = 0;
    while (in >> key >> kib) {
        if (key == "MemTotal:")
            return kib * 1024;
        in.ignore(256, '\n');
    }
    return 0;
}

MachineInfo machineInfo()
{
    MachineInfo info;
    info.cpuModel = cpuModel();
    info.logicalCores = static_cast<int>(std::thread::hardware_concurrency());
    info.memoryBytes = totalMemoryBytes();
    utsname name{};
    if (uname(&name) == 0) {
        info.os = std::string(name.sysname) + " " + name.release + " " + name.machine;
        info.hostname = name.nodename;
    }
    info.versions["opencv"] = CV_VERSION;
    info.versions["spdlog"] = std::to_string(SPDLOG_VER_MAJOR) + "."
                              + std::to_string(SPDLOG_VER_MINOR) + "."
                              + std::to_string(SPDLOG_VER_PATCH);
    const TorchInfo torch = torchInfo();
    info.versions["libtorch"] = torch.linked ? torch.version : "not linked";
    info.cudaAvailable = torch.cudaAvailable;
    info.cudaDevices = torch.cudaDevices;
    return info;
}

} // namespace loaderlab
