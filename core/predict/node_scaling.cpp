#include "core/predict/node_scaling.h"

#include <algorithm>
#include <stdexcept>

namespace loaderlab {
namespace {

// The setting for M nodes of G ranks, long enough for steady figures.
ModelSetting scaledSetting(ModelSetting s, int devices, int nodes)
{
    s.devices = devices;
    s.nodes = nodes;
    const std::int64_t least = static_cast<std::int64_t>(s.warmupBatches) + kLeastRankBatches;
    if (s.batches > 0 && s.epochs == 0) {
        s.batches = std::max(s.batches, least * s.ranks());
        return s;
    }
    const std::int64_t perRank = (s.samplesPerEpoch + s.ranks() - 1) / s.ranks();
    const std::int64_t perEpoch = std::max<std::int64_t>(
        1, s.dropLast ? perRank / s.batchSize : (perRank + s.batchSize - 1) / s.batchSize);
    s.epochs = std::max<int>(std::max(1, s.epochs),
                             static_cast<int>((least + perEpoch - 1) / perEpoch));
    s.batches = 0;
    return s;
}

double meanWait(const Prediction &p)
{
    return p.summary.waitMeanMs * 1e-3;
}

} // namespace

NodeScaling predictNodeScaling(const Calibration &calibration, const std::vector<int> &nodeCounts,
                               int devicesPerNode, const NetworkLink &withinNode,
                               const NetworkLink &betweenNodes, int cores)
{
    RunConfig config = calibration.config;
    config.devices = 1;
    ModelCosts costs = costsFor(calibration, config);
    costs.network = withinNode;
    costs.betweenNodes = betweenNodes;
    const double bytes = costs.gradientBytes;
    if (bytes > 0.0 && devicesPerNode > 1 && !withinNode.known())
        throw std::invalid_argument(
            "the link among a node's " + std::to_string(devicesPerNode)
            + " devices is unknown (the run exchanged no gradient among ranks): name it");
    const ModelSetting base = settingFor(calibration, config, cores);

    NodeScaling out;
    const Prediction one = predictLoader(costs, scaledSetting(base, 1, 1));
    out.oneRankSamplesPerSecond = one.samplesPerSecond;
    for (const int nodes : nodeCounts) {
        if (nodes > 1 && bytes > 0.0 && !betweenNodes.known())
            throw std::invalid_argument(std::to_string(nodes)
                                        + " nodes all-reduce the gradient between them: name "
                                          "the link between nodes");
        const ModelSetting s = scaledSetting(base, devicesPerNode, nodes);
        out.epochs = std::max(out.epochs, s.epochs);
        const Prediction p = predictLoader(costs, s);
        NodeScalingRow row;
        row.nodes = nodes;
        row.devicesPerNode = devicesPerNode;
        row.samplesPerSecond = p.samplesPerSecond;
        row.speedup = one.samplesPerSecond > 0.0 ? p.samplesPerSecond / one.samplesPerSecond : 0.0;
        row.efficiency = row.speedup / row.ranks();
        const double coresFree = s.cores - s.outsideCores;
        row.exchangeSeconds = hierarchicalAllreduceSeconds(withinNode, betweenNodes, bytes,
                                                           devicesPerNode, nodes, coresFree);
        row.betweenNodesSeconds = row.exchangeSeconds
                                  - ringAllreduceSeconds(withinNode, bytes, devicesPerNode,
                                                         coresFree);
        row.waitMeanSeconds = meanWait(p);
        out.rows.push_back(row);
    }
    return out;
}

} // namespace loaderlab
