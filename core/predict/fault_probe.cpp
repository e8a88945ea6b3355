#include "core/predict/fault_probe.h"

#include "core/predict/calibration.h"
#include "core/system/machine_info.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

namespace loaderlab {
namespace {

using ProbeClock = std::chrono::steady_clock;

// Writes one byte into every page of a fresh private mapping; false if none was given.
bool faultIn(std::size_t bytes)
{
    void *data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (data == MAP_FAILED)
        return false;
    const auto page = static_cast<std::size_t>(std::max(4096L, sysconf(_SC_PAGESIZE)));
    auto *bytesAt = static_cast<volatile unsigned char *>(data);
    for (std::size_t offset = 0; offset < bytes; offset += page)
        bytesAt[offset] = 1;
    munmap(data, bytes);
    return true;
}

// Seconds for `threads` threads to fault in `bytes` each, started together.
double timeFaults(int threads, std::size_t bytes, bool &ok)
{
    std::barrier start(threads + 1);
    std::vector<char> done(static_cast<std::size_t>(threads), 0);
    std::vector<std::jthread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            start.arrive_and_wait();
            done[static_cast<std::size_t>(t)] = faultIn(bytes) ? 1 : 0;
        });
    start.arrive_and_wait();
    const auto begin = ProbeClock::now();
    pool.clear(); // joins
    const double seconds = std::chrono::duration<double>(ProbeClock::now() - begin).count();
    ok = ok && std::all_of(done.begin(), done.end(), [](char d) { return d != 0; });
    return seconds;
}

} // namespace

double probeFaultLanes(int cores, std::size_t bytes, int rounds)
{
    if (cores <= 1)
        return 1.0;
    const int threads = 2 * cores;
    std::vector<double> lanes;
    bool ok = true;
    for (int round = 0; round < std::max(1, rounds); ++round) {
        double one = 0.0, all = 0.0;
        if (round % 2 == 0) {
            one = timeFaults(1, bytes, ok);
            all = timeFaults(threads, bytes, ok);
        } else {
            all = timeFaults(threads, bytes, ok);
            one = timeFaults(1, bytes, ok);
        }
        if (all > 0.0)
            lanes.push_back(cores * 2.0 * one / all);
    }
    if (!ok || lanes.empty())
        return static_cast<double>(cores); // no measurement: no limit found
    std::sort(lanes.begin(), lanes.end());
    return std::clamp(lanes[lanes.size() / 2], 1.0, static_cast<double>(cores));
}

void probeFaultLanesHere(Calibration &calibration)
{
    ModelCosts &costs = calibration.costs;
    if (costs.firstFill.fixed <= 0.0 && costs.firstFill.perSample <= 0.0)
        return;
    const MachineInfo here = machineInfo();
    const MachineInfo &there = calibration.machine;
    if (there.hostname != here.hostname || there.cpuModel != here.cpuModel
        || there.logicalCores != here.logicalCores || here.logicalCores < 1) {
        calibration.notes.push_back("the run was recorded on another machine: its page faults "
                                    "are taken to scale with the cores");
        return;
    }
    costs.faultLanes = probeFaultLanes(here.logicalCores);
    char text[160];
    std::snprintf(text, sizeof text,
                  "this machine faults in fresh pages for %.1f threads at once (probed on its "
                  "%d cores)",
                  costs.faultLanes, here.logicalCores);
    calibration.notes.push_back(text);
}

} // namespace loaderlab
