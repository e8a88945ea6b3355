#include "core/autotune/loader_model_search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>

namespace loaderlab {
namespace {

std::vector<int> keyOf(const AutotuneSettings &s)
{
    return {s.workers, s.prefetch, s.batchSize};
}

// How far `to` is from `from`: the settings that differ, then how many doublings away.
std::pair<int, double> distance(const AutotuneSettings &from, const AutotuneSettings &to)
{
    const auto steps = [](int a, int b) {
        return a > 0 && b > 0 ? std::abs(std::log2(static_cast<double>(b) / a))
                              : static_cast<double>(std::abs(b - a));
    };
    const int changes = (from.workers != to.workers) + (from.prefetch != to.prefetch)
                        + (from.batchSize != to.batchSize);
    return {changes, std::abs(to.workers - from.workers) + steps(from.prefetch, to.prefetch)
                         + steps(from.batchSize, to.batchSize)};
}

std::string percent(double share)
{
    char text[32];
    std::snprintf(text, sizeof text, "%+.0f %%", share * 100);
    return text;
}

// "0.7 cores": how much other programs' load changed between two windows.
std::string changeText(std::optional<double> a, std::optional<double> b)
{
    char text[48];
    std::snprintf(text, sizeof text, "%.2f cores", a && b ? std::abs(*a - *b) : 0.0);
    return text;
}

} // namespace

LoaderModelSearch::LoaderModelSearch(AutotuneSettings start, AutotuneLimits limits,
                                     LoaderModelSearchOptions options)
    : m_limits(limits)
    , m_options(options)
    , m_space(autotuneSpace(start, limits))
    , m_incumbent(start)
    , m_next(start)
{
    m_options.calibrationWindows = std::max(1, m_options.calibrationWindows);
    m_options.confirmRounds = std::max(1, m_options.confirmRounds);
    m_decision = "measuring the start to calibrate the model";
}

double LoaderModelSearch::noise() const
{
    return recentSpread(m_incumbentRates);
}

double LoaderModelSearch::incumbentMean() const
{
    const std::size_t n = std::min<std::size_t>(3, m_incumbentRates.size());
    if (n == 0)
        return 0.0;
    const auto first = m_incumbentRates.end() - static_cast<std::ptrdiff_t>(n);
    return std::accumulate(first, m_incumbentRates.end(), 0.0) / n;
}

double LoaderModelSearch::predictedFor(const AutotuneSettings &s) const
{
    const auto it = m_predicted.find(keyOf(s));
    return it == m_predicted.end() ? 0.0 : it->second;
}

std::optional<double> LoaderModelSearch::proposalGain() const
{
    const double base = predictedFor(m_incumbent);
    if (m_state != State::Trial || base <= 0)
        return std::nullopt;
    return predictedFor(m_candidate) / base - 1.0;
}

void LoaderModelSearch::calibrated(const SettingsPredictor &predict)
{
    ++m_calibrations;
    m_trialsThisCalibration = 0;
    m_predicted.clear();
    for (const int w : m_space.workers)
        for (const int p : m_space.prefetch)
            for (const int b : m_space.batchSizes) {
                const AutotuneSettings s{w, p, b};
                const double rate = predict(s);
                if (std::isfinite(rate) && rate > 0)
                    m_predicted[keyOf(s)] = rate;
            }
    propose();
}

void LoaderModelSearch::calibrationFailed(const std::string &why)
{
    ++m_calibrations;
    m_predicted.clear();
    hold("holding: the model could not be calibrated (" + why + ")");
}

void LoaderModelSearch::propose()
{
    const double base = predictedFor(m_incumbent);
    if (base <= 0) {
        hold("holding: the model has no prediction for the current setting");
        return;
    }
    // The best predicted setting not rejected yet, and those as good as it.
    double best = 0.0;
    for (const auto &[key, rate] : m_predicted)
        if (!m_rejected.contains(key))
            best = std::max(best, rate);
    if (best < base * (1.0 + m_limits.minGain)) {
        hold("holding: no setting predicted " + percent(m_limits.minGain).substr(1)
             + " better than the current one");
        return;
    }
    std::optional<AutotuneSettings> pick;
    for (const auto &[key, rate] : m_predicted) {
        const AutotuneSettings s{key[0], key[1], key[2]};
        if (m_rejected.contains(key) || s == m_incumbent || rate < best * (1.0 - m_options.nearBest)
            || rate < base * (1.0 + m_limits.minGain))
            continue;
        if (!pick || distance(m_incumbent, s) < distance(m_incumbent, *pick)
            || (distance(m_incumbent, s) == distance(m_incumbent, *pick)
                && s.workers < pick->workers))
            pick = s;
    }
    if (!pick) {
        hold("holding: no setting predicted better than the current one");
        return;
    }
    m_candidate = *pick;
    m_next = m_candidate;
    m_state = State::Trial;
    m_wins = 0;
    m_losses = 0;
    m_candidateRates.clear();
    m_pendingCandidate.reset();
    m_loadSkips = 0;
    ++m_trialsThisCalibration;
    m_decision = "predicted " + autotuneChangeText(m_incumbent, m_candidate) + " "
                 + percent(predictedFor(m_candidate) / base - 1.0) + ": confirming";
}

void LoaderModelSearch::hold(const std::string &why)
{
    m_state = State::Holding;
    m_next = m_incumbent;
    m_heldRate = incumbentMean();
    m_heldNoise = noise();
    m_heldLoad = m_lastLoad;
    m_heldForLoad = false;
    m_driftWindows = 0;
    m_decision = why;
}

std::optional<AutotuneMove> LoaderModelSearch::report(double samplesPerSec,
                                                      std::optional<double> otherCores)
{
    ++m_windows;
    const std::optional<double> previousLoad = m_lastLoad;
    m_lastLoad = otherCores;
    switch (m_state) {
    case State::Calibrating:
    case State::AwaitingModel:
        if (m_calibrationWindows > 0 && !sameMachineLoad(m_calibrationLoad, otherCores)) {
            // The machine changed under the calibration: start it again from the next
            // window, so the model sees one load.
            m_incumbentRates.assign(1, samplesPerSec);
            m_calibrationWindows = 0;
            m_state = State::Calibrating;
            m_decision = "other programs' load changed by "
                         + changeText(m_calibrationLoad, otherCores)
                         + " while calibrating: calibrating again from the next window";
            return std::nullopt;
        }
        if (m_calibrationWindows == 0)
            m_calibrationLoad = otherCores;
        m_incumbentRates.push_back(samplesPerSec);
        if (++m_calibrationWindows >= m_options.calibrationWindows)
            m_state = State::AwaitingModel;
        return std::nullopt;
    case State::Holding: {
        if (!sameMachineLoad(m_heldLoad, otherCores)) {
            // Other programs' doing, not the setting's: a new baseline, no drift.
            m_decision = "holding: other programs' load changed by "
                         + changeText(m_heldLoad, otherCores) + "; the throughput moved "
                         + percent(m_heldRate > 0 ? samplesPerSec / m_heldRate - 1.0 : 0.0)
                         + " with it, not with the setting";
            m_incumbentRates.assign(1, samplesPerSec);
            m_heldRate = samplesPerSec;
            m_heldLoad = otherCores;
            m_driftWindows = 0;
            return std::nullopt;
        }
        m_incumbentRates.push_back(samplesPerSec);
        if (m_heldForLoad && previousLoad && sameMachineLoad(previousLoad, otherCores)) {
            // The load that kept the last proposal from being compared has settled.
            propose();
            return std::nullopt;
        }
        const double limit = std::max(m_limits.driftShare, 2.0 * m_heldNoise);
        const bool drifted = m_heldRate > 0
                             && std::abs(samplesPerSec - m_heldRate) / m_heldRate > limit;
        m_driftWindows = drifted ? m_driftWindows + 1 : 0;
        if (m_driftWindows >= 2) {
            // The machine or the data changed: what was measured and rejected no longer holds.
            m_rejected.clear();
            m_incumbentRates.assign(1, samplesPerSec);
            m_calibrationWindows = 0;
            m_state = State::Calibrating;
            m_decision = "the throughput drifted " + percent(samplesPerSec / m_heldRate - 1.0)
                         + " from the held " + std::to_string(std::lround(m_heldRate))
                         + " samples/s: calibrating again";
        }
        return std::nullopt;
    }
    case State::Trial:
        break;
    }

    if (!m_pendingCandidate && m_next == m_candidate) {
        // The proposal's window: the incumbent's follows, so a drift hits both.
        m_pendingCandidate = samplesPerSec;
        m_pendingLoad = otherCores;
        m_candidateRates.push_back(samplesPerSec);
        m_next = m_incumbent;
        return std::nullopt;
    }
    if (!sameMachineLoad(m_pendingLoad, otherCores)) {
        // Other programs' load changed between the pair's windows: neither a win nor a
        // loss. Measured again; after kAutotuneLoadSkips such pairs, hold until it
        // settles, the proposal not rejected.
        const std::string change = changeText(m_pendingLoad, otherCores);
        m_pendingCandidate.reset();
        m_candidateRates.pop_back();
        m_incumbentRates.assign(1, samplesPerSec);
        if (++m_loadSkips >= kAutotuneLoadSkips) {
            --m_trialsThisCalibration; // not judged: it does not count as a trial
            hold("holding: other programs' load changed within " + std::to_string(m_loadSkips)
                 + " pairs of windows in a row; " + autotuneChangeText(m_incumbent, m_candidate)
                 + " is measured again once it settles");
            m_heldForLoad = true;
            return std::nullopt;
        }
        m_next = m_candidate;
        m_decision = "other programs' load changed by " + change + " between the windows of "
                     + autotuneChangeText(m_incumbent, m_candidate)
                     + " and the current setting: measuring the pair again";
        return std::nullopt;
    }
    m_incumbentRates.push_back(samplesPerSec);
    const double candidateRate = m_pendingCandidate.value_or(0.0);
    m_pendingCandidate.reset();
    const double gain = samplesPerSec > 0 ? candidateRate / samplesPerSec - 1.0 : 0.0;
    const double measuredNoise = noise();
    const double threshold = std::max(m_limits.minGain, measuredNoise);
    ++m_trials;
    if (samplesPerSec <= 0 || gain <= threshold) {
        const std::string measured =
            "measured " + autotuneChangeText(m_incumbent, m_candidate) + " " + percent(gain)
            + ", predicted " + percent(predictedFor(m_candidate) / predictedFor(m_incumbent) - 1.0);
        m_wins = 0;
        if (samplesPerSec > 0 && ++m_losses < m_options.confirmRounds) {
            // The model predicted a gain, so one lost pair may be the windows' luck (one
            // held a hiccup of the machine the other did not): measured again, as a win is.
            m_next = m_candidate;
            m_decision = measured + ": measuring the pair again before rejecting it";
            return std::nullopt;
        }
        // Lost confirmRounds pairs (or refused): rejected, the model was wrong about it
        // on this machine; and its other prefetch depths, whose predictions rest on
        // the same costs.
        for (const int p : m_space.prefetch)
            m_rejected.insert({m_candidate.workers, p, m_candidate.batchSize});
        m_decision = measured + ": rejected";
        if (m_trialsThisCalibration < m_options.trialsPerCalibration)
            propose();
        else
            hold("holding: " + std::to_string(m_trialsThisCalibration)
                 + " proposals of the model lost when measured");
        return std::nullopt;
    }
    if (++m_wins < m_options.confirmRounds) {
        m_next = m_candidate; // once more, to rule out a lucky window
        return std::nullopt;
    }
    AutotuneMove move{m_incumbent, m_candidate, gain, measuredNoise, {}, {}};
    char text[96];
    std::snprintf(text, sizeof text, "%+.0f %%, predicted %+.0f %%, noise %.0f %%", gain * 100,
                  (predictedFor(m_candidate) / predictedFor(m_incumbent) - 1.0) * 100,
                  measuredNoise * 100);
    move.detail = text;
    move.reason = autotuneChangeText(m_incumbent, m_candidate) + ": " + move.detail;
    m_incumbent = m_candidate;
    m_next = m_incumbent;
    // The candidate's windows are the new incumbent's; calibrate again from fresh ones.
    m_incumbentRates = m_candidateRates;
    m_calibrationWindows = 0;
    m_state = State::Calibrating;
    m_decision = "moved: " + move.reason + "; calibrating at the new setting";
    return move;
}

} // namespace loaderlab
