#pragma once

// How many threads this machine faults in fresh pages for at once: the loader model's
// ModelCosts::faultLanes. On bare metal each core faults its own pages (lanes = cores);
// on a virtual machine whose host backs the guest's pages, faults can be served one at
// a time (on the project's 2-core Firecracker VM two threads faulting together each
// took twice as long per page as one alone: lanes = 1).

#include <cstddef>

namespace loaderlab {

struct Calibration;

// Times one thread writing the pages of a fresh `bytes` mapping against 2 x `cores`
// threads doing so at once (more threads than cores, where the limit shows most),
// `rounds` times in alternating order. Under processor sharing alone the threads
// take 2 x (one thread's time) for 2 x cores pages' worth; so
//     lanes = cores x 2 x (one thread's time) / (the threads' wall time),
// the median over rounds, within [1, cores]. A machine busy with other work reads
// low. About 40 ms a round for 8 MiB at 2 us a fault on 2 cores.
double probeFaultLanes(int cores, std::size_t bytes = std::size_t{8} << 20, int rounds = 5);

// Sets calibration.costs.faultLanes to probeFaultLanes(cores) when the run was
// recorded on this machine (same host name, CPU model and core count) and its fresh
// buffers cost anything (costs.firstFill), with a note either way; otherwise leaves it
// (0: no limit).
void probeFaultLanesHere(Calibration &calibration);

} // namespace loaderlab
