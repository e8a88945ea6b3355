#include "core/stats/scaling_efficiency.h"

#include <cmath>
#include <cstdio>

namespace loaderlab {
namespace {

// Seconds a rank spends per sample on `ms` milliseconds a batch of `perBatch` samples.
double perSample(double ms, double perBatch)
{
    return perBatch > 0.0 ? ms * 1e-3 / perBatch : 0.0;
}

double samplesPerBatch(std::int64_t samples, std::int64_t batches)
{
    return batches > 0 ? static_cast<double>(samples) / static_cast<double>(batches) : 0.0;
}

} // namespace

ScalingEfficiency scalingEfficiency(const RunSummary &oneRank, const RunSummary &run)
{
    ScalingEfficiency e;
    const auto n = static_cast<int>(run.ranks.size());
    if (n < 2 || !(oneRank.samplesPerSecMean > 0.0) || !(run.samplesPerSecMean > 0.0)
        || !oneRank.ranks.empty())
        return e;
    e.known = true;
    e.ranks = n;
    e.oneRankSamplesPerSec = oneRank.samplesPerSecMean;
    e.samplesPerSec = run.samplesPerSecMean;
    e.speedup = run.samplesPerSecMean / oneRank.samplesPerSecMean;
    e.efficiency = e.speedup / n;

    // The ranks' means, per batch.
    double wait = 0.0;
    double sync = 0.0;
    double exchange = 0.0;
    for (const RankSummary &r : run.ranks) {
        wait += r.waitMeanMs / n;
        sync += r.syncWaitMeanMs / n;
        exchange += r.exchangeMeanMs / n;
    }
    const double b1 = samplesPerBatch(oneRank.samples, oneRank.batches);
    const double bn = samplesPerBatch(run.samples, run.batches);
    const double tauN = n / run.samplesPerSecMean;
    e.dataLoss = (perSample(wait, bn) - perSample(oneRank.waitMeanMs, b1)) / tauN;
    e.stepLoss = (perSample(run.computeMeanMs + run.copyMeanMs, bn)
                  - perSample(oneRank.computeMeanMs + oneRank.copyMeanMs, b1))
                 / tauN;
    e.imbalanceLoss = perSample(sync, bn) / tauN;
    e.communicationLoss = perSample(exchange, bn) / tauN;
    e.otherLoss = 1.0 - e.efficiency - e.dataLoss - e.stepLoss - e.imbalanceLoss
                  - e.communicationLoss;
    // Rounding leaves no "-0" behind in what is read as points.
    for (double *loss :
         {&e.dataLoss, &e.stepLoss, &e.imbalanceLoss, &e.communicationLoss, &e.otherLoss}) {
        if (std::abs(*loss) < 1e-9)
            *loss = 0.0;
    }
    return e;
}

std::string scalingEfficiencyLine(const ScalingEfficiency &e)
{
    if (!e.known)
        return {};
    char text[320];
    std::snprintf(text, sizeof text,
                  "against one rank (%.1f samples/s): %.2fx with %d ranks, efficiency %.1f %%; "
                  "lost: data %.1f, step %.1f, slowest rank %.1f, exchange %.1f, other %.1f "
                  "points",
                  e.oneRankSamplesPerSec, e.speedup, e.ranks, e.efficiency * 100.0,
                  e.dataLoss * 100.0, e.stepLoss * 100.0, e.imbalanceLoss * 100.0,
                  e.communicationLoss * 100.0, e.otherLoss * 100.0);
    return text;
}

} // namespace loaderlab
