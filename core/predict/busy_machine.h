#pragma once

// A busy machine in the loader model: other programs that used the machine's cores
// while the calibrated run was recorded (its JSON's machine_load, core/system/
// cpu_load.h) took CPU the run's threads would otherwise have had. Linux shares the
// CPU fairly between scheduling groups first (sessions' autogroups, cgroups) and
// between threads only within a group, so the model counts them in two parts:
//   - what other groups held (O_out: other sessions' and cgroups' programs, and the
//     hypervisor's steal) is taken as fixed: the run's group had C' = C - O_out cores,
//     however many threads it ran;
//   - other programs in the run's own group (O_in: a busy loop started from the same
//     shell) are B busy threads that are always there and share those C' cores with
//     the run's threads (ContentionProfile, ProcessorSharingClock): with k(t) of the
//     run's threads busy, each runs at the rates of core/predict/core_sharing.h, the
//     run's threads gathering on the cores the B leave free. B is the number that
//     gives them, over the run's own k(t), the cores they were measured to take:
//         mean over the run of  B x other(C', k(t), B)  =  O_in,
//     found by bisection (the left side never falls as B grows, towards C').
// So a busy loop in another session on one of 2 cores leaves the run 1 core, and 2
// workers then share it; the same loop in the run's own session is B = 1, and 2
// workers still share the free core (3 workers: 1.5 cores, one of them beside the
// loop). The calibrated costs are the threads' own work, not
// the time other programs took from them, and the run's own setting predicted on the
// machine as it was gets back what the run got. A load under kBusyMachineCores
// (background daemons) or an unknown one leaves the model as on an idle machine.

#include "core/predict/contention_profile.h"
#include "core/system/cpu_load.h"

#include <optional>
#include <string>

namespace loaderlab {

// Other programs and steal together under this many cores: an idle machine.
inline constexpr double kBusyMachineCores = 0.1;

struct BusyMachine
{
    bool busy = false;         // counted: known, and at least kBusyMachineCores taken
    double takenCores = 0.0;   // by other programs and the hypervisor (steal)
    double freeCores = 0.0;    // C - taken: what the run could have had
    double outsideCores = 0.0; // O_out: other scheduling groups and steal
    double groupCores = 0.0;   // O_in: other programs in the run's own group
    double shareCores = 0.0;   // C' = C - O_out: the cores the run's group had
    double otherLoad = 0.0;    // B: the programs of the run's group as busy threads
};

// From the run's load, its cores (the model's C) and its threads' profile (k(t)).
BusyMachine busyMachine(const MachineLoad &load, int cores, const ContentionProfile &profile);

// What other programs asked of the machine, in the cores they would take of it were
// LoaderLab idle: what other scheduling groups and the hypervisor held (O_out), plus
// the busy threads of LoaderLab's own group (B), at most the cores those had (C').
// Unlike takenCores it does not change with LoaderLab's own settings: a busy loop in
// LoaderLab's session takes less CPU beside 3 busy workers than beside 1, and is 1
// either way.
double otherDemandCores(const BusyMachine &busy);

// Other programs' demand (otherDemandCores) changed by more than this many cores
// between two measurements: they are not compared as if the machine had stayed the
// same (Predict then watch's re-prediction, the autotuner's windows). A quarter of a
// core is well above what /proc/stat's 10 ms ticks blur over a few seconds.
inline constexpr double kLoadChangeCores = 0.25;

// Whether two measurements ran on the same machine: other programs' demand (cores,
// otherDemandCores) within kLoadChangeCores of each other, or unknown for either.
bool sameMachineLoad(std::optional<double> a, std::optional<double> b);

// The calibration's note: what other programs took and how the costs count it.
std::string busyMachineNote(const BusyMachine &busy, int cores);

// What `predict` and `sweep --predict-first` say of a busy calibration run predicted
// for the machine as it was: "During the calibration run other programs used 1.5 of 2
// cores; predicted for the 0.5 cores that were free." (or, with programs of
// LoaderLab's own session, how they share the cores); empty when it was not busy.
// `load`: the run's recorded load (the hypervisor is named when it stole some);
// `cores`: the run's.
std::string busyCalibrationLine(const BusyMachine &busy, const MachineLoad &load, int cores);
// Its first part, "During the calibration run other programs used 1.5 of 2 cores",
// for a line that goes on otherwise (`predict --cores`); empty when not busy.
std::string busyCalibrationOpening(const BusyMachine &busy, const MachineLoad &load, int cores);

// "1.1" and the like: loads in cores, as the notes and `predict` print them.
std::string coresText(double cores);

} // namespace loaderlab
