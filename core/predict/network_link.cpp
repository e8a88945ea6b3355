#include "core/predict/network_link.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace loaderlab {
namespace {

struct Preset
{
    const char *name;
    const char *label;
    double gigabytesPerSecond; // one direction, per rank
    double latencyMicroseconds;
};

// Nominal line rates per direction, and typical small-message latencies; an
// all-reduce reaches less in practice, which a measured link captures.
constexpr Preset kPresets[] = {
    {"10gbe", "10 GbE", 1.25, 50.0},
    {"25gbe", "25 GbE", 3.125, 20.0},
    {"100gbe", "100 GbE", 12.5, 10.0},
    {"ib-hdr", "InfiniBand HDR", 25.0, 2.0},
    {"nvlink", "NVLink (A100, per GPU)", 300.0, 2.0},
};

std::string describe(const char *label, double bytesPerSecond, double latency)
{
    char text[160];
    std::snprintf(text, sizeof text, "%s: %.3g GB/s, %.3g us a ring step (assumed)", label,
                  bytesPerSecond / 1e9, latency * 1e6);
    return text;
}

} // namespace

NetworkLink networkLinkNamed(const std::string &text)
{
    for (const Preset &p : kPresets) {
        if (text == p.name)
            return {p.gigabytesPerSecond * 1e9, p.latencyMicroseconds * 1e-6, 0.0,
                    describe(p.label, p.gigabytesPerSecond * 1e9, p.latencyMicroseconds * 1e-6)};
    }
    std::string number = text;
    for (const char *unit : {"GB/s", "gb/s"}) {
        if (number.size() > 4 && number.ends_with(unit))
            number.resize(number.size() - 4);
    }
    char *end = nullptr;
    const double gbps = std::strtod(number.c_str(), &end);
    if (!number.empty() && end == number.c_str() + number.size() && gbps > 0.0 && gbps < 1e6)
        return {gbps * 1e9, 0.0, 0.0, describe("a link", gbps * 1e9, 0.0)};
    std::string names;
    for (const Preset &p : kPresets)
        names += std::string(names.empty() ? "" : ", ") + p.name;
    throw std::invalid_argument("--network " + text + ": expected one of " + names
                                + ", or a bandwidth in GB/s such as 12.5");
}

double ringAllreduceSeconds(const NetworkLink &link, double bytes, int ranks, double cores)
{
    if (ranks < 2 || bytes <= 0.0 || !link.known())
        return 0.0;
    const double steps = 2.0 * (ranks - 1);
    const double ring = steps * link.latencySeconds + steps / ranks * bytes / link.bytesPerSecond;
    const double demand = ranks * link.cpuShare;
    return cores > 0.0 && demand > cores ? ring * demand / cores : ring;
}

double hierarchicalAllreduceSeconds(const NetworkLink &withinNode, const NetworkLink &betweenNodes,
                                    double bytes, int ranksPerNode, int nodes, double cores)
{
    // Within the node: reduce-scatter and all-gather together move what one ring
    // all-reduce among its ranks moves.
    const double within = ringAllreduceSeconds(withinNode, bytes, ranksPerNode, cores);
    if (nodes < 2 || bytes <= 0.0 || !betweenNodes.known())
        return within;
    const double steps = 2.0 * (nodes - 1);
    return within + steps * betweenNodes.latencySeconds
           + steps / nodes * bytes / betweenNodes.bytesPerSecond;
}

NetworkLink networkLinkMeasured(double seconds, double bytes, int ranks)
{
    if (ranks < 2 || seconds <= 0.0 || bytes <= 0.0)
        return {};
    const double perRank = 2.0 * (ranks - 1) / ranks * bytes;
    NetworkLink link{perRank / seconds, 0.0, 0.0, {}};
    char text[200];
    std::snprintf(text, sizeof text,
                  "measured: %.1f MB all-reduced among %d ranks in %.1f ms a step, a ring at "
                  "%.3g GB/s (latency not separated)",
                  bytes / 1e6, ranks, seconds * 1e3, link.bytesPerSecond / 1e9);
    link.description = text;
    return link;
}

} // namespace loaderlab
