#pragma once

// The loader model (core/predict) calibrated from a stretch of a live run, as the
// autotuner's LoaderModelSearch asks for it: the samples/s the model predicts for a
// setting, in the steady state (no worker start-up, no first fill of new buffers, no
// epoch boundary: the tuner compares settings a run keeps for minutes).

#include "core/autotune/loader_model_search.h"
#include "core/config/run_config.h"
#include "core/predict/busy_machine.h"
#include "core/record/trace_record.h"
#include "core/system/cpu_load.h"

#include <optional>
#include <string>
#include <vector>

namespace loaderlab {

struct LiveLoaderModel
{
    SettingsPredictor predict;
    double measured = 0.0;          // samples/s of the stretch, as the tuner's windows measure it
    double predicted = 0.0;         // the stretch's own setting predicted back
    std::vector<std::string> notes; // the calibration's assumptions
    BusyMachine busy;               // other programs' share of the machine, as counted
};

// Calibrates from `records` (consecutive batches run with `config`, in trace order,
// the new loader's first round already left out) on `cores` cores, with the load the
// machine had meanwhile (`load`; unknown: as if idle): the model predicts every
// setting for the machine as busy as it was. Throws std::invalid_argument when the
// stretch has too few batches to calibrate from.
LiveLoaderModel calibrateLiveModel(const std::vector<TraceRecord> &records, const RunConfig &config,
                                   int cores, const MachineLoad &load = {});

// Other programs' demand (otherDemandCores) while `records` ran with `config` on
// `cores` cores and the machine had `load`: the figure the autotuner compares its
// windows by. Nothing when the load is unknown or the records cannot say.
std::optional<double> liveOtherDemand(const std::vector<TraceRecord> &records,
                                      const RunConfig &config, int cores, const MachineLoad &load);

} // namespace loaderlab
