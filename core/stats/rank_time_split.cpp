#include "core/stats/rank_time_split.h"

#include <algorithm>
#include <cstdio>

namespace loaderlab {

RankTimeSplit rankTimeSplit(const RunSummary &summary)
{
    RankTimeSplit split;
    int counted = 0;
    for (const RankSummary &r : summary.ranks) {
        if (r.samplesPerSecMean <= 0.0)
            continue; // no steady window
        const double data = r.inputBoundShare;
        const double straggler = r.syncWaitShare;
        const double exchange = r.exchangeShare;
        split.data += data;
        split.straggler += straggler;
        split.exchange += exchange;
        split.step += std::max(0.0, 1.0 - data - straggler - exchange);
        if (split.worstDataRank < 0 || data > split.worstDataShare) {
            split.worstDataRank = r.rank;
            split.worstDataShare = data;
            split.worstDataWaitMs = r.waitMeanMs;
        }
        ++counted;
    }
    if (counted < 2)
        return {};
    split.known = true;
    const double total = split.step + split.data + split.straggler + split.exchange;
    for (double *share : {&split.step, &split.data, &split.straggler, &split.exchange})
        *share /= total > 0.0 ? total : 1.0;
    return split;
}

std::string rankTimeSplitLine(const RankTimeSplit &split)
{
    if (!split.known)
        return {};
    char text[320];
    std::snprintf(text, sizeof text,
                  "of the ranks' time: step %.1f %%, waiting for data %.1f %%, for the slowest "
                  "rank %.1f %%, exchanging %.1f %%; the most exposed data loading: rank %d, "
                  "%.2f ms a step (%.1f %% of its time)",
                  split.step * 100.0, split.data * 100.0, split.straggler * 100.0,
                  split.exchange * 100.0, split.worstDataRank, split.worstDataWaitMs,
                  split.worstDataShare * 100.0);
    return text;
}

} // namespace loaderlab
