// The gradient exchange of a calibrated data-parallel run.

#include "core/predict/exchange_calibration.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace loaderlab {

void calibrateExchange(const std::vector<TraceRecord> &records, Calibration &cal)
{
    const RunConfig &config = cal.config;
    if (config.gradientMb <= 0.0 || !config.syncDevices)
        return;
    cal.costs.gradientBytes = config.gradientMb * 1e6;
    if (config.devices < 2) {
        cal.notes.push_back("one rank exchanges no gradient: predictions for more ranks leave "
                            "the exchange out unless --network names the link");
        return;
    }
    std::map<int, int> seen; // per rank
    std::vector<double> seconds;
    for (const TraceRecord &r : records) {
        if (seen[r.rank]++ < config.warmupBatches || r.exchangeEndNs <= r.syncEndNs
            || r.syncEndNs <= 0)
            continue;
        seconds.push_back(static_cast<double>(r.exchangeEndNs - r.syncEndNs) / 1e9);
    }
    if (seconds.empty()) {
        cal.notes.push_back("the run recorded no gradient exchange after its warm-up: "
                            "predictions leave the exchange out unless --network names the "
                            "link");
        return;
    }
    std::nth_element(seconds.begin(), seconds.begin() + static_cast<long>(seconds.size() / 2),
                     seconds.end());
    const double median = seconds[seconds.size() / 2];
    cal.costs.network = networkLinkMeasured(median, cal.costs.gradientBytes, config.devices);
    cal.notes.push_back("the gradient exchange " + cal.costs.network.description
                        + "; other rank counts are predicted on that link");
    // Ranks on one host all-reduce through its memory, with its cores: how much of a
    // core a rank's exchange kept busy, from the run's own CPU time over the share of
    // its time the ranks spent exchanging. More ranks than the cores can carry then
    // share them.
    double share = 0.0;
    for (const RankSummary &r : cal.measured.ranks)
        share += r.exchangeShare;
    if (cal.load.known() && share > 0.0) {
        cal.costs.network.cpuShare = std::clamp(cal.load.ownBusyCores / share, 0.0, 1.0);
        char text[256];
        std::snprintf(text, sizeof text,
                      "the ranks' exchange kept %.2f of a core each busy (the run's %.2f busy "
                      "cores over %.2f ranks' worth of exchanging): on this host more ranks than "
                      "its cores carry exchange more slowly",
                      cal.costs.network.cpuShare, cal.load.ownBusyCores, share);
        cal.notes.push_back(text);
        // The measured time already holds the run's own sharing, where its ranks needed
        // more of the cores than were free to it: the link is what it would have been
        // without, so that the run's own setting is predicted back as measured.
        const double free = cal.setting.cores - cal.busyMachine.outsideCores;
        const double demand = config.devices * cal.costs.network.cpuShare;
        if (free > 0.0 && demand > free) {
            cal.costs.network.bytesPerSecond *= demand / free;
            std::snprintf(text, sizeof text,
                          "the %d ranks needed %.2f cores for it and had %.2f free: without "
                          "that sharing the link carries %.3g GB/s",
                          config.devices, demand, free, cal.costs.network.bytesPerSecond / 1e9);
            cal.notes.push_back(text);
        }
    }
}

} // namespace loaderlab
