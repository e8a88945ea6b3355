// Autotuner::tuneWithModel: the tuner's loop with LoaderModelSearch deciding. It measures
// windows as the hill climb does (autotuneWindow), and when the search asks for the
// model, calibrates it from the incumbent's settled batches since its setting took
// effect (live_model.h).

#include "core/autotune/autotuner.h"

#include "core/autotune/live_loader_model.h"
#include "core/engine/engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <thread>

namespace loaderlab {
namespace {

std::string trialDetail(const LoaderModelSearch &search)
{
    const auto gain = search.proposalGain();
    if (!gain)
        return "trying";
    char text[48];
    std::snprintf(text, sizeof text, "trying, predicted %+.0f %%", *gain * 100);
    return text;
}

} // namespace

void Autotuner::tuneWithModel(std::stop_token stop)
{
    const RunConfig start = m_run.config();
    const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    LoaderModelSearch search(autotuneSettingsOf(start), autotuneLimits(start, m_options, cores),
                             m_options.modelOptions);
    // Settings are compared in their steady state, on either engine: each window starts
    // after the new loader's first round. The hill climb counts a rebuild in every
    // window because it changes the setting every other window; this search changes it
    // a few times in a run, so a rebuild is paid once per trial, not per window.
    AutotuneOptions windows = m_options;
    windows.countRebuild = false;
    const auto trace = m_run.trace();
    const auto publishSearch = [&](const std::optional<AutotuneMove> &move) {
        publish(search.incumbent(), search.holding(), search.windows(), move,
                search.calibrations());
    };
    std::optional<AutotuneMove> pendingMove;
    // The machine's load over the calibration's windows: from the first one's start.
    std::optional<CpuSample> calibrationStart;
    CpuSample calibrationEnd;
    std::size_t measuredTo = 0;  // windows never overlap: the next starts after this batch
    std::size_t stretchFrom = 0; // the incumbent's first settled batch of its latest stretch
    std::int32_t stretchVersion = -1;
    std::string lastDecision;
    while (!stop.stop_requested() && !m_run.finished()) {
        if (search.wantsCalibration()) {
            const RunConfig current = m_run.config();
            try {
                const auto records = trace->records(stretchFrom, measuredTo + 1);
                const MachineLoad load = calibrationStart
                                             ? machineLoadBetween(*calibrationStart, calibrationEnd)
                                             : MachineLoad{};
                const LiveLoaderModel model = calibrateLiveModel(records, current, cores, load);
                search.calibrated(model.predict);
                const std::string busy = busyCalibrationOpening(model.busy, load, cores);
                spdlog::info("autotune: the loader model, calibrated on batches {}..{}{}: "
                             "{:.0f} samples/s measured, {:.0f} predicted back",
                             stretchFrom, measuredTo,
                             busy.empty() ? std::string()
                                          : " (" + busy + "; predicted for the machine as it was)",
                             model.measured, model.predicted);
            } catch (const std::exception &e) {
                search.calibrationFailed(e.what());
            }
            publishSearch(std::nullopt);
        }
        if (search.lastDecision() != lastDecision) {
            lastDecision = search.lastDecision();
            spdlog::info("autotune: {}", lastDecision);
        }
        const AutotuneSettings want = search.next();
        const std::string detail = pendingMove                  ? pendingMove->detail
                                   : want == search.incumbent() ? std::string("back")
                                                                : trialDetail(search);
        bool refused = false;
        if (!apply(stop, want, detail, &refused)) {
            if (!refused)
                return;
            search.report(0.0); // refused (the memory budget): a proposal that lost
            publishSearch(std::nullopt);
            continue;
        }
        pendingMove.reset();
        const ConfigVersion version = trace->configVersions().back();
        const auto [from, to] = autotuneWindow(version.firstBatch, want.workers, measuredTo,
                                               windows, epochBatches(want));
        if (version.version != stretchVersion) {
            // A new stretch of one setting: the model calibrates from its settled batches.
            stretchVersion = version.version;
            stretchFrom = static_cast<std::size_t>(version.firstBatch)
                          + static_cast<std::size_t>(std::max(1, want.workers)) + 1;
        }
        // A calibration's first window (at the start, after a move, after a drift or
        // a change of the machine's load): the model calibrates from its batches on,
        // not from those before the machine changed.
        const bool firstOfCalibration = search.calibrating()
                                        && search.calibrationWindowsMeasured() == 0;
        if (firstOfCalibration)
            stretchFrom = std::max(stretchFrom, from);
        const auto window = measure(stop, want, from, to);
        if (!window)
            return;
        measuredTo = to;
        if (firstOfCalibration)
            calibrationStart = window->start;
        calibrationEnd = window->end;
        const auto move = search.report(window->samplesPerSec, window->otherCores);
        publishSearch(move);
        if (move) {
            pendingMove = move;
            if (m_onMove)
                m_onMove(*move);
        }
    }
}

} // namespace loaderlab
