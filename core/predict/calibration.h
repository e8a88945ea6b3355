#pragma once

// Calibration: the loader model's costs (loader_model.h) from a recorded run of
// either engine, read from its per-batch CSV and summary JSON (core/io/run_reader.h):
//   - per-sample load: (read + decode + transform) / samples of each batch where the
//     trace has the stages, else (load span - collate) / samples; turned from wall time
//     into work with the run's own contention (ContentionProfile: its workers, pin
//     threads and CPU step on its cores); drawn per batch, so load times vary as the
//     measured batches' did;
//   - collate, pin and copy: a + b x batch fitted over the batches (b only, a = 0, when
//     the run had one batch size); what a batch's load span holds beyond its samples
//     and collate (buffers, a Python worker's overhead) is added to collate's a;
//   - the step: the simulated step's settings plus its measured oversleep, or a + b x
//     batch fitted from compute times (one batch size: b = step / batch, a = 0); a CPU
//     model's step keeps its intra-op threads busy (consumerThreads);
//   - the hand-over: from ready to delivery of the batches the consumer waited for;
//     the consumer's own time between a step's end and its next request;
//   - the first fill of LoaderLab's pooled buffers (ModelCosts::firstFill): how much
//     more a sample cost in the batches that filled a fresh buffer (the first W x
//     prefetch + 1 of each rank, but its very first) than in the steady ones, which
//     leave those batches out; none for the PyTorch engine. How many threads may fault
//     at once (ModelCosts::faultLanes) is the machine's, not the run's: see
//     fault_probe.h;
//   - worker start-up: how much later than expected the first batch of the run
//     finished loading, counted from its start: the workers' start plus what cold first
//     loads cost; for non-persistent workers, how long after the epoch before ended
//     each later epoch's first load started (its load is among the drawn costs).
// Each rank's first warm-up batches are left out of the costs, as they are of the
// figures. Where other programs kept the machine busy while the run was recorded (its
// JSON's machine_load), the costs count only the cores that were free to the run, and
// its setting keeps that load (busy_machine.h). Every assumption made is listed in
// `notes`.

#include "core/config/run_config.h"
#include "core/io/summary_json.h"
#include "core/predict/busy_machine.h"
#include "core/predict/loader_model.h"

#include <string>
#include <vector>

namespace loaderlab {

struct Calibration
{
    RunConfig config; // the run's (its first config version's)
    ModelCosts costs;
    // The run's own setting: predicting it back should give the run's figures.
    ModelSetting setting;
    RunSummary measured;                 // the run's figures, recomputed from its trace
    std::int64_t measuredSamples = 0;    // delivered in the whole run
    double stepOverheadSeconds = 0.0;    // a simulated step: measured minus configured
    std::vector<double> stepWaitSeconds; // each steady batch's wait for data (stragglers)
    std::vector<std::string> notes;      // the assumptions made, one sentence each
    MachineInfo machine;                 // where the run was recorded (its JSON's)
    MachineLoad load;                    // how busy it was meanwhile (its JSON's; may be unknown)
    // Whether that load was counted (setting.outsideCores and otherLoad), and how.
    BusyMachine busyMachine;
};

// From a run's records (in trace order) and its report. Throws std::invalid_argument
// when the run has nothing to calibrate from: no batch, no measured time (every time
// 0), no duration (its last time not after its first request), or no delivered sample.
Calibration calibrateFromRun(const std::vector<TraceRecord> &records, const RunReport &report);
// Reads RUN.json and the CSV beside it (or RUN.csv and the JSON beside it) with
// openRun. Throws std::runtime_error naming the file and the reason (the CSV for what
// calibrateFromRun refuses).
Calibration calibrateFromFiles(const std::string &path);

// The costs and the setting of `config`, a variant of the calibrated run's (other
// workers, batch size, prefetch, strategy, simulated step, devices), on `cores` cores
// of an idle machine (0: the calibrated run's machine, as busy as it was then). Its
// amount of work: config.maxBatches when set; else its epochs; else (a time limit) as
// many samples as the calibrated run delivered.
ModelCosts costsFor(const Calibration &calibration, const RunConfig &config);
ModelSetting settingFor(const Calibration &calibration, const RunConfig &config, int cores = 0);

// Fits fixed + perSample x samples to (samples, seconds) points by least squares,
// kept non-negative. With one batch size only: perSample = mean / samples and fixed
// = 0 (`oneSize` true). No points: zero.
LinearCost fitLinearCost(const std::vector<std::pair<int, double>> &points,
                         bool *oneSize = nullptr);

} // namespace loaderlab
