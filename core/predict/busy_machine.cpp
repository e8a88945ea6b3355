#include "core/predict/busy_machine.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace loaderlab {
namespace {

// B's upper end: other programs' threads beyond this many per core change nothing
// the model could tell apart (the run's threads get under 1/64 of a core each).
constexpr double kMostOtherThreadsPerCore = 64.0;

// Other programs in the run's own group under this many cores compete with nothing.
constexpr double kLeastGroupCores = 0.01;

// B such that profile.otherBusyCores(share, B) = group (see the header).
double fitOtherLoad(const ContentionProfile &profile, double share, double group)
{
    if (group < kLeastGroupCores)
        return 0.0;
    // A profile without a stretch (nothing measured) shares nothing: B = O_in.
    if (profile.otherBusyCores(share, group) <= 0.0)
        return group;
    double low = 0.0, high = kMostOtherThreadsPerCore * std::max(1.0, share);
    if (profile.otherBusyCores(share, high) <= group)
        return high;
    for (int i = 0; i < 200 && high - low > 1e-9 * high; ++i) {
        const double middle = 0.5 * (low + high);
        (profile.otherBusyCores(share, middle) < group ? low : high) = middle;
    }
    return 0.5 * (low + high);
}

} // namespace

BusyMachine busyMachine(const MachineLoad &load, int cores, const ContentionProfile &profile)
{
    BusyMachine out;
    if (!load.known() || cores < 1)
        return out;
    const double all = static_cast<double>(cores);
    const double taken = std::clamp(load.otherBusyCores + load.stealCores, 0.0, all);
    if (taken < kBusyMachineCores)
        return out;
    out.busy = true;
    out.takenCores = taken;
    out.freeCores = all - taken;
    out.groupCores = std::clamp(load.groupBusyCores, 0.0, taken);
    out.outsideCores = std::clamp(taken - out.groupCores, 0.0,
                                  all - ContentionProfile::kLeastCores);
    out.shareCores = all - out.outsideCores;
    out.otherLoad = fitOtherLoad(profile, out.shareCores, out.groupCores);
    return out;
}

double otherDemandCores(const BusyMachine &busy)
{
    if (!busy.busy)
        return busy.takenCores;
    return busy.outsideCores + std::min(busy.otherLoad, busy.shareCores);
}

bool sameMachineLoad(std::optional<double> a, std::optional<double> b)
{
    return !a || !b || std::abs(*a - *b) <= kLoadChangeCores;
}

std::string coresText(double cores)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", cores);
    return text;
}

std::string busyCalibrationOpening(const BusyMachine &busy, const MachineLoad &load, int cores)
{
    if (!busy.busy)
        return {};
    const std::string others = load.stealCores >= 0.05 ? "other programs and the hypervisor"
                                                       : "other programs";
    return "During the calibration run " + others + " used " + coresText(busy.takenCores) + " of "
           + std::to_string(cores) + (cores == 1 ? " core" : " cores");
}

std::string busyCalibrationLine(const BusyMachine &busy, const MachineLoad &load, int cores)
{
    std::string text = busyCalibrationOpening(busy, load, cores);
    if (text.empty())
        return text;
    if (busy.otherLoad <= 0.0)
        return text + "; predicted for the " + coresText(busy.freeCores) + " cores that were free.";
    return text + " (" + coresText(busy.groupCores)
           + " of them in LoaderLab's own session); predicted for the machine as it was: the "
           + coresText(busy.shareCores)
           + " cores other sessions left, shared with the programs of LoaderLab's session "
             "thread by thread.";
}

std::string busyMachineNote(const BusyMachine &busy, int cores)
{
    std::string text = "other programs used " + coresText(busy.takenCores) + " of the "
                       + std::to_string(cores) + " cores while the run went on ("
                       + coresText(busy.freeCores) + " were free to it)";
    const bool inside = busy.otherLoad > 0.0;
    if (busy.outsideCores >= 0.05)
        text += (inside ? ": " : ", ") + coresText(busy.outsideCores)
                + " in other sessions or cgroups, taken as held whatever the run does";
    if (inside) {
        char threads[32];
        std::snprintf(threads, sizeof threads, "%.2f", busy.otherLoad);
        text += (busy.outsideCores >= 0.05 ? ", and " : ": ") + coresText(busy.groupCores)
                + " in LoaderLab's own session, counted as " + threads
                + " more busy threads sharing the cores with its threads";
    }
    return text + "; its costs are its threads' own work";
}

} // namespace loaderlab
