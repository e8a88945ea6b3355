#pragma once

// Scaling out to nodes x devices, predicted: the loader model (loader_model.h) run for
// the calibrated run's setting on M identical nodes of G ranks each, every node with
// its own cores and the ranks' gradient all-reduced in two levels (within a node, then
// between nodes, network_link.h), against one rank on one node. Each rank runs at
// least kLeastRankBatches batches past its warm-up (more epochs where an epoch's
// share is smaller), so the figures are steady rates, not start-up.

#include "core/predict/calibration.h"

#include <string>
#include <vector>

namespace loaderlab {

struct NodeScalingRow
{
    int nodes = 1;
    int devicesPerNode = 1;
    int ranks() const { return nodes * devicesPerNode; }
    double samplesPerSecond = 0.0; // all ranks together, steady (warm-up left out)
    double speedup = 0.0;          // over one rank on one node
    double efficiency = 0.0;       // speedup / ranks
    double exchangeSeconds = 0.0;  // the all-reduce a step, both levels
    double betweenNodesSeconds = 0.0;
    double waitMeanSeconds = 0.0; // a rank's mean wait for its data
};

struct NodeScaling
{
    double oneRankSamplesPerSecond = 0.0;
    int epochs = 0; // of the longest row (0: a batch count ran)
    std::vector<NodeScalingRow> rows;
};

inline constexpr int kLeastRankBatches = 20;

// `withinNode` joins a node's ranks, `betweenNodes` the nodes; `cores` per node (0:
// the calibrated run's machine, as busy as it was). Throws std::invalid_argument when
// a node count above 1 meets an exchange with no link between nodes, when a node's
// several ranks exchange with no link among them, or when the model refuses a setting.
NodeScaling predictNodeScaling(const Calibration &calibration, const std::vector<int> &nodeCounts,
                               int devicesPerNode, const NetworkLink &withinNode,
                               const NetworkLink &betweenNodes, int cores);

} // namespace loaderlab
