#pragma once

// LoaderModelSearch: the decisions of the autotuner when the loader model (core/predict)
// guides it, apart from any thread or run, so they can be tested on throughput
// functions whose best is known. Instead of trying neighbours window after window,
// it asks the model:
//   1. Calibrate: a few windows at the current setting, from whose batches the tuner
//      calibrates the model (wantsCalibration(), then calibrated() with the model's
//      prediction for every setting of the space, autotuneSpace()).
//   2. Propose: the predicted best setting, if the model says it beats the current one
//      by at least `minGain`; among settings predicted within `nearBest` of the best,
//      the one fewest changes away from the current setting (then fewer workers).
//   3. Confirm: the proposal and the current setting are measured in alternating
//      windows (a drift of the machine hits both); it must beat the current setting
//      by more than the current setting's noise and `minGain` in `confirmRounds`
//      pairs in a row. A win moves the run and calibrates again at the new setting (a
//      model calibrated nearer its answer can see further). Losing takes
//      `confirmRounds` lost pairs too (not necessarily in a row): the model predicted
//      a gain, so one lost pair may be the windows' luck. A loss rejects the proposal
//      (with its other prefetch depths), and the next one is tried, at most
//      `trialsPerCalibration` a calibration.
//   4. Hold: no trials at all while the measured throughput stays where it was when
//      the search settled; when it moves by more than max(driftShare, 2 x the noise
//      when the hold began) in two windows in a row (other work on the machine, a
//      dataset that got slower), the search calibrates again and proposes again,
//      rejected proposals included.
// Other programs' load: each window comes with other programs' demand on the machine
// (otherDemandCores, measured by the caller), and a change of it is never taken for
// the effect of a setting: calibration windows start again when it changes among
// them; a pair whose two windows ran on different loads (sameMachineLoad) is
// measured again, and after kAutotuneLoadSkips such pairs the search holds, neither
// rejecting the proposal nor moving, and proposes it again once two windows in a row
// ran on the same load; while holding, a change of throughput that comes with a
// change of the load sets a new baseline instead of calibrating again.
// Objective: samples/s at the consumer, measured by the caller over a window.

#include "core/autotune/autotune_search.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace loaderlab {

// The model's samples/s for a setting; NaN or 0 where it cannot say.
using SettingsPredictor = std::function<double(const AutotuneSettings &)>;

struct LoaderModelSearchOptions
{
    int calibrationWindows = 2;   // windows at a setting before the model is calibrated on it
    int confirmRounds = 2;        // pairs a proposal must win in a row, or lose
    int trialsPerCalibration = 2; // proposals tried before holding
    double nearBest = 0.02;       // predicted within 2 % of the best: as good as the best
};

class LoaderModelSearch
{
public:
    LoaderModelSearch(AutotuneSettings start, AutotuneLimits limits,
                      LoaderModelSearchOptions options = {});

    // What to measure next: settings to apply for the next window.
    const AutotuneSettings &next() const { return m_next; }
    // True when enough windows of the incumbent are measured: calibrate the model from
    // them and call calibrated() (or calibrationFailed()) before the next report().
    bool wantsCalibration() const { return m_state == State::AwaitingModel; }
    // The model calibrated at the incumbent. Picks a proposal (next()) or holds.
    void calibrated(const SettingsPredictor &predict);
    // The model could not be calibrated: hold, and calibrate again after a drift.
    void calibrationFailed(const std::string &why);
    // The measured samples/s of the window run with next(), and other programs' demand
    // on the machine meanwhile (cores; nothing: unknown). Returns the move when the
    // incumbent changes.
    std::optional<AutotuneMove> report(double samplesPerSec,
                                       std::optional<double> otherCores = std::nullopt);

    const AutotuneSettings &incumbent() const { return m_incumbent; }
    // Settled: no proposal left to try. Not while it holds only until other programs'
    // load settles (a proposal waits to be measured again).
    bool holding() const { return m_state == State::Holding && !m_heldForLoad; }
    // Measuring windows of the incumbent to calibrate from (at the start, after a move,
    // after a drift).
    bool calibrating() const { return m_state == State::Calibrating; }
    // The windows measured towards the calibration under way (0: the next window is
    // its first, so the caller calibrates from that window's batches on).
    int calibrationWindowsMeasured() const { return m_calibrationWindows; }
    int windows() const { return m_windows; }
    int calibrations() const { return m_calibrations; }
    int trials() const { return m_trials; } // pairs of windows judged (proposal, current)
    // The model's predicted gain of the proposal being measured over the incumbent.
    std::optional<double> proposalGain() const;
    // What the search did last, for the log and the markers: "predicted workers 1 -> 2
    // +48 %", "holding: no setting predicted 5 % better", ...
    const std::string &lastDecision() const { return m_decision; }
    // The model's samples/s per setting at the last calibration (empty before one).
    const std::map<std::vector<int>, double> &predictions() const { return m_predicted; }

private:
    enum class State { Calibrating, AwaitingModel, Trial, Holding };

    void propose();
    void hold(const std::string &why);
    double noise() const;
    double incumbentMean() const;
    double predictedFor(const AutotuneSettings &s) const;

    AutotuneLimits m_limits;
    LoaderModelSearchOptions m_options;
    AutotuneSpace m_space;
    State m_state = State::Calibrating;
    AutotuneSettings m_incumbent;
    AutotuneSettings m_next;
    AutotuneSettings m_candidate;
    std::map<std::vector<int>, double> m_predicted; // {workers, prefetch, batch} -> samples/s
    std::set<std::vector<int>> m_rejected;          // proposals that lost since the last drift
    std::vector<double> m_incumbentRates;           // the incumbent's windows, newest last
    std::vector<double> m_candidateRates;
    std::optional<double> m_pendingCandidate; // the candidate's window, waiting for its pair
    std::optional<double> m_pendingLoad;      // other programs' demand in that window
    std::optional<double> m_calibrationLoad;  // ... in the calibration's first window
    std::optional<double> m_heldLoad;         // ... when the hold began or last rebased
    std::optional<double> m_lastLoad;         // ... in the last window reported
    int m_loadSkips = 0;                      // pairs measured again in a row (load changed)
    bool m_heldForLoad = false; // holding because the load kept changing between pairs
    int m_calibrationWindows = 0;
    int m_wins = 0;   // pairs the proposal won in a row
    int m_losses = 0; // pairs the proposal lost
    int m_trialsThisCalibration = 0;
    double m_heldRate = 0.0;
    double m_heldNoise = 0.0; // the incumbent's noise when the hold began
    int m_driftWindows = 0;
    int m_windows = 0;
    int m_calibrations = 0;
    int m_trials = 0;
    std::string m_decision;
};

} // namespace loaderlab
