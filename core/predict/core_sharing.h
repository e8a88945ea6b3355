#pragma once

// How the run's busy threads and other programs' busy threads share a machine's cores:
// the rates of the loader model's clock (processor_sharing.h) and of the calibration's
// contention profile (contention_profile.h).
//
// Without other programs' threads, k busy threads on C cores share them evenly: each
// runs at min(1, C / k). With B busy threads of other programs in the run's scheduling
// group (core/predict/busy_machine.h), sharing is not even. Other programs' busy
// threads are always runnable (a busy loop, a training job's compute threads) and each
// holds a core, while the run's threads wake and sleep (a worker blocks whenever the
// queue is full), and Linux wakes a thread on an idle core first and moves a thread
// between cores only when their runnable threads differ by two or more. So the run's
// threads gather on the cores other programs leave free, and join the others' cores
// only when the free cores hold more than those: threads are placed one by one on the
// core with the fewest, a tie going to the core with fewer of other programs' threads,
// and the threads on a core share it evenly. That placement holds while each of the
// run's threads has a core with the fewest others (1 worker beside a busy loop on 2
// cores has a core of its own: measured 0.97 of a core). Beyond it, the balancer moves
// the run's threads onto the others' cores part of the time: 2 workers beside a loop
// on 2 cores, placed 1 core (2 x 1/2) and shared evenly 4/3 (2 x 2/3), measured 1.1 to
// 1.24 cores (the loop 0.71; docs/benchmarks.md, "The loader model against measured
// sweeps"). There the share is halfway between the placement and even sharing: 7/6 of
// a core for the 2 workers. Beside 3 workers both give 1.5 cores (2 on the free core,
// 1 with the loop), as measured.
//
// Counts that are not whole (a fitted B, a CPU step's fractional weight, the cores of
// a group that other groups share the machine with) are interpolated linearly between
// the whole counts around them (under 1 core, in proportion to 1 core's); wherever B is
// 0, sharing is even.

namespace loaderlab {

struct CoreShares
{
    double run = 1.0;   // each of the run's busy threads, in seconds of work per second
    double other = 1.0; // each of other programs' busy threads
};

// The rates of `runThreads` busy threads of the run beside `otherThreads` busy threads
// of other programs on `cores` cores. A rate where there is no such thread is 1.
CoreShares coreShares(double cores, double runThreads, double otherThreads);

} // namespace loaderlab
