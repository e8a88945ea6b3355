// The verdict of "More devices, less than linear": the speedup of each rank count
// over one rank, where the rest of each rank's time went (the trace's split), and the
// points below linear split into what each part of a step grew by against one rank.

#include "core/lessons/lesson.h"
#include "core/lessons/verdict_support.h"
#include "core/stats/rank_time_split.h"
#include "core/stats/scaling_efficiency.h"

namespace loaderlab {
using verdict::format;
using verdict::ratio;

LessonVerdict devicesVerdict(const std::vector<LessonPhaseResult> &phases)
{
    LessonVerdict v;
    if (!verdict::phasesUsable(phases, 2, 0, v))
        return v;
    const double one = phases[0].summary.samplesPerSecMean;
    if (phases[0].config.devices != 1 || one <= 0.0) {
        v.text = "No data: the first phase must run one rank, with samples to count.";
        return v;
    }
    nlohmann::json list = nlohmann::json::array();
    std::string speedups;
    std::string where;
    std::string lost;
    bool sublinear = true;
    for (std::size_t i = 1; i < phases.size(); ++i) {
        const int n = phases[i].config.devices;
        const double speedup = ratio(phases[i].summary.samplesPerSecMean, one);
        const double efficiency = speedup / std::max(n, 1);
        sublinear = sublinear && n > 1 && efficiency < 0.9;
        const RankTimeSplit split = rankTimeSplit(phases[i].summary);
        nlohmann::json entry = {{"devices", n},
                                {"samples_per_sec", phases[i].summary.samplesPerSecMean},
                                {"speedup", speedup},
                                {"efficiency", efficiency}};
        if (split.known) {
            entry["step_share"] = split.step;
            entry["data_share"] = split.data;
            entry["straggler_share"] = split.straggler;
            entry["exchange_share"] = split.exchange;
            where = format("With %d ranks each spent %.0f %% of its time exchanging the "
                           "gradient, %.0f %% waiting for the slowest rank and %.0f %% waiting "
                           "for data; only %.0f %% stepping.",
                           n, split.exchange * 100.0, split.straggler * 100.0, split.data * 100.0,
                           split.step * 100.0);
        }
        if (const ScalingEfficiency e = scalingEfficiency(phases[0].summary, phases[i].summary);
            e.known) {
            entry["lost"] = {{"data", e.dataLoss},
                             {"step", e.stepLoss},
                             {"slowest_rank", e.imbalanceLoss},
                             {"exchange", e.communicationLoss},
                             {"other", e.otherLoss}};
            lost = format("Of the %.0f points below linear with %d ranks, exchanging took %.0f, "
                          "waiting for the slowest rank %.0f, waiting for data %.0f, a slower "
                          "step %.0f and the rest %.0f.",
                          (1.0 - e.efficiency) * 100.0, n, e.communicationLoss * 100.0,
                          e.imbalanceLoss * 100.0, e.dataLoss * 100.0, e.stepLoss * 100.0,
                          e.otherLoss * 100.0);
        }
        list.push_back(entry);
        speedups += format("%s%d ranks %.2fx (%.0f %% of linear)", i > 1 ? ", " : "", n, speedup,
                           efficiency * 100.0);
    }
    v.figures = {{"one_rank_samples_per_sec", one}, {"phases", list}};
    v.observed = sublinear;
    v.text = format("%s: 1 rank %.0f samples/s; %s. ", v.observed ? "Seen" : "Not seen", one,
                    speedups.c_str());
    if (!where.empty())
        v.text += where + " ";
    if (!lost.empty())
        v.text += lost + " ";
    v.text += v.observed
                  ? "Every rank loads and steps its share at once, but then all of them wait "
                    "for the slowest and all-reduce the gradient, which grows with the ranks: "
                    "the more ranks, the larger that part of each step."
                  : "Expected each rank count to reach less than 90 % of linear; the exchange "
                    "or the waits were too small against the step here.";
    return v;
}

} // namespace loaderlab
