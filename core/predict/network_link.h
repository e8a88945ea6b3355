#pragma once

// The link a data-parallel job's gradient all-reduce crosses, and what the ring
// algorithm costs on it: each of N ranks sends and receives 2(N-1)/N of the gradient
// in 2(N-1) steps, so an all-reduce of S bytes takes 2(N-1) x latency + 2(N-1)/N x S /
// bandwidth (the bandwidth one rank sends at). A link is either named (`--network`:
// a preset for the target machine, or a figure in GB/s; an assumption the prediction
// states) or measured: the exchange a recorded data-parallel run timed, with its
// latency not separated from its bandwidth.

#include <string>

namespace loaderlab {

struct NetworkLink
{
    double bytesPerSecond = 0.0; // 0: no link known
    double latencySeconds = 0.0; // per ring step
    // Of a core, what each rank's all-reduce keeps busy on a host the ranks share
    // (measured on a loopback link); 0 for a network whose transfers leave the cores
    // to the rest.
    double cpuShare = 0.0;
    std::string description; // "100 GbE: 12.5 GB/s, 10 us a step (assumed)"

    bool known() const { return bytesPerSecond > 0.0; }
};

// A preset ("10gbe", "25gbe", "100gbe", "ib-hdr", "nvlink") or a bandwidth in GB/s
// ("12.5", "12.5GB/s"). Throws std::invalid_argument listing the presets.
NetworkLink networkLinkNamed(const std::string &text);

// The ring all-reduce of `bytes` among `ranks` on `link`; 0 for one rank or no bytes.
// With `cores` > 0 and a link whose transfers take CPU (cpuShare), ranks that together
// need more than those cores share them: the time grows by ranks x cpuShare / cores.
double ringAllreduceSeconds(const NetworkLink &link, double bytes, int ranks, double cores = 0.0);

// The all-reduce of `bytes` among `nodes` x `ranksPerNode` ranks done in two levels,
// as hierarchical all-reduces (Horovod's, NCCL's across nodes) do it: a reduce-scatter
// among each node's ranks over `withinNode`, then each rank all-reduces its 1/G share
// with its peers on the other nodes, the node's G shares together crossing its link
// `betweenNodes` (one link a node: 2(M-1)/M x S through it), then an all-gather within
// the node. With one node it is ringAllreduceSeconds on `withinNode`; `cores` as there
// (per node).
double hierarchicalAllreduceSeconds(const NetworkLink &withinNode, const NetworkLink &betweenNodes,
                                    double bytes, int ranksPerNode, int nodes, double cores = 0.0);

// The link that makes a ring all-reduce of `bytes` among `ranks` take `seconds`
// (latency 0: the measured time is put on the bandwidth). Unknown when `ranks` < 2 or
// nothing was measured.
NetworkLink networkLinkMeasured(double seconds, double bytes, int ranks);

} // namespace loaderlab
