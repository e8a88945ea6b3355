#pragma once

// What the What if panel (what_if_panel.h) computes off the GUI thread: the loader
// model calibrated from a run (core/predict/calibration.h), the run itself predicted
// back, and a setting of the panel (cores, devices, workers, batch size) predicted
// with the curve of samples/s over 0 .. 2 x cores workers beside it. Every predicted
// setting reads as many samples as the calibrated run delivered (at most
// kWhatIfMaxBatches batches), so the run's own setting predicts the run itself back.
// When other programs kept the machine busy while the run was recorded (its
// machine_load, core/predict/busy_machine.h), a setting is predicted on the machine
// as it was (they go on taking what they took, on any number of cores) or on an idle
// one.

#include "core/io/summary_json.h"
#include "core/predict/calibration.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loaderlab {

// The most batches calibrated from (the first ones the trace holds): enough for the
// costs' spread, and a long run's trace is not copied whole.
inline constexpr std::size_t kWhatIfMaxCalibrationBatches = 20'000;
// The most batches one predicted setting simulates: the figures are steady-state
// rates, and the curve holds up to 129 settings.
inline constexpr std::int64_t kWhatIfMaxBatches = 2'000;

struct WhatIfCalibration
{
    Calibration calibration;
    Prediction self;          // the run's own setting, its batches dropped
    std::int64_t batches = 0; // calibrated from
    bool cut = false;         // the run had more batches than kWhatIfMaxCalibrationBatches
    double measuredSamplesPerSecond = 0.0;
    // The run's settings changed while it ran (more than one config version): its
    // costs come from all its batches, the setting predicted back is its first
    // (calibration.config).
    bool reconfigured = false;
};

// Calibrates from the first kWhatIfMaxCalibrationBatches batches `trace` holds (copied,
// so any thread may call it while the run goes on) and predicts the run back. Throws
// what calibrateFromRun and predictLoader throw.
WhatIfCalibration calibrateWhatIf(const TraceLog &trace, const RunReport &report);

// The report of a kept or opened run, to calibrate from: the summary JSON beside its
// CSV `source` when there is one (it names the machine's cores and every config
// version), else what the window holds of it (`config`, the trace's config versions)
// on this machine's cores; `summary` either way. Reads a file: not on the GUI thread.
RunReport keptRunReport(const std::string &source, const RunConfig &config,
                        const RunSummary &summary, const TraceLog &trace);

struct WhatIfSetting
{
    int cores = 1;   // per node
    int devices = 1; // per node
    // Identical nodes, the gradient all-reduced within each and then between them over
    // the link `betweenNodes` names (networkLinkNamed: "100gbe", ...).
    int nodes = 1;
    std::string betweenNodes = "100gbe";
    int workers = 0;
    int batchSize = 1;
    // An idle machine of `cores` cores, not one as busy as the calibrated run's was;
    // the same where that one was idle or its load unknown.
    bool idleMachine = false;

    bool operator==(const WhatIfSetting &) const = default;
};

// The calibrated run's own setting (its cores, devices, workers, batch size, one
// node), on its machine as it was.
WhatIfSetting runSetting(const Calibration &calibration);

struct WhatIfCurvePoint
{
    int workers = 0;
    double samplesPerSecond = 0.0;
};

struct WhatIfOutcome
{
    WhatIfSetting setting;
    Prediction prediction;               // its batches dropped
    std::vector<WhatIfCurvePoint> curve; // workers 0 .. 2 x cores, at the setting's batch size
};

// The config of `setting` over the calibrated run's, with the amount of work above;
// with several nodes at least kLeastRankBatches batches past the warm-up a rank.
RunConfig whatIfConfig(const Calibration &calibration, const WhatIfSetting &setting);
// One setting predicted. Throws std::invalid_argument for one the model refuses, and
// for the machine as it was on no more cores than other programs took there.
Prediction predictWhatIfSetting(const Calibration &calibration, const WhatIfSetting &setting);
// The setting and its curve; a curve point the model refuses is left out.
WhatIfOutcome predictWhatIf(const Calibration &calibration, const WhatIfSetting &setting);

} // namespace loaderlab
