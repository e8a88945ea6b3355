#pragma once

// A model of the loader: a discrete-event simulation of the semantics of
// docs/loader-semantics.md (LoaderLab's engine and PyTorch's DataLoader), driven by
// costs rather than by a dataset, so a setting can be predicted before it is run.
//
// What it models:
//   - per-worker batches (batch k of an epoch goes whole to worker k mod W, each
//     worker builds its tasks in order, taking each after a short delay) or sample-parallel (all
//     workers take the samples of the oldest outstanding batch from one queue; the worker that ends
//     a batch's last sample collates it);
//   - the in-flight window: W x prefetch_factor batches are dispatched when an epoch
//     begins, and one more each time the consumer takes a batch;
//   - delivery in batch order (a finished later batch waits in the reorder buffer),
//     or in the order batches become ready when in_order is off;
//   - the pin thread (one per rank, first come first served) before the reorder buffer;
//   - the consumer: a hand-over when it waited for its batch (waking its thread, a worker
//     process's transfer), the copy to the device, the step, and its own work after
//     the step before it asks for the next batch;
//   - W = 0: the consumer loads (and pins) each batch itself when it asks for it;
//   - epochs: each begins when the consumer asks after the epoch's last step, so the
//     pipeline drains and fills again; workers start again (start-up) unless persistent;
//   - data-parallel ranks: each with its own loader and W workers over ceil(n / N)
//     samples per epoch; with synchronised steps every rank asks for its next batch
//     when the slowest rank's step has ended (the barrier LoaderLab's ranks meet after
//     each step, as DDP's all-reduce makes them);
//   - CPU contention by processor sharing: at any instant the k CPU-busy threads (the
//     loading workers, pin threads, a consumer loading its own batch, and the
//     consumer's threads while it steps on the CPU) share C cores, each progressing at
//     min(1, C / k) seconds of work per second. On a busy machine they share C' = C
//     less what other scheduling groups held with B busy threads of other programs in
//     the run's own group (ModelSetting::outsideCores and otherLoad), the run's
//     threads gathering on the cores those leave free (core/predict/core_sharing.h);
//   - the first fill of the loader's pooled buffers (ModelCosts::firstFill): page
//     faults, served for at most ModelCosts::faultLanes threads at once.
// What it does not model: memory bandwidth, caches, the page cache, disks, the
// network, hyper-threads (a logical core counts as a core), Python's GIL, or the cost
// of the dispatch itself. Copies to a device are a delay that takes no CPU.

#include "core/config/loader_config.h"
#include "core/predict/network_link.h"
#include "core/record/trace_record.h"
#include "core/stats/run_summary.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loaderlab {

// fixed + perSample x samples, in seconds.
struct LinearCost
{
    double fixed = 0.0;
    double perSample = 0.0;

    double at(int samples) const { return fixed + perSample * samples; }
};

// How ModelCosts::sampleSeconds gives the cost of the sample at position p of an epoch.
enum class SampleDraw {
    Seeded,   // one of the values, picked by a hash of (seed, rank, epoch, p): a random draw
    PerBatch, // one value per batch, for all its samples, dealt from a deck the seed
              // shuffles: every `size` batches of a rank take each value once. Batch
              // means measured at one batch size keep their spread, and their mean
    Cycle,    // sampleSeconds[p mod size]: known sequences for tests and examples
};

// What the work costs, in seconds of one core (CPU work) or of wall time (delays).
struct ModelCosts
{
    // Per-sample load (read + decode + transform) as CPU work: the distribution
    // samples are drawn from. A constant is a one-element vector.
    std::vector<double> sampleSeconds{0.0};
    SampleDraw draw = SampleDraw::Seeded;
    std::uint64_t seed = 0;
    LinearCost collate; // CPU work of the worker that builds the batch
    LinearCost pin;     // CPU work of the pin thread (of the consumer with W = 0)
    LinearCost copy;    // host-to-device: the consumer waits, no CPU
    LinearCost step;    // the consumer's step
    // From a batch becoming ready to the consumer holding it, when the consumer was
    // already waiting for it: waking its thread, a worker process's transfer (PyTorch).
    // A delay; a batch ready before the consumer asks is handed over at once.
    LinearCost handoff;
    // The consumer's own work between a step's end and its next request (recording
    // the batch), a delay.
    double afterStepSeconds = 0.0;
    // Per-worker strategy: from a worker having its next task to starting its load
    // (waking it, taking the task, being scheduled among the machine's other
    // processes), a delay.
    double taskStartSeconds = 0.0;
    // Threads the step keeps busy on the CPU (a CPU model's intra-op threads); 0 for
    // a GPU step or a simulated (sleep) step, which only waits.
    double consumerThreads = 0.0;
    double startupSeconds = 0.0; // run start until the workers take their first sample
    double restartSeconds = 0.0; // workers started again at a later epoch (not persistent)
    // Per rank, a factor on its sample costs (a rank on slower storage); missing: 1.
    std::vector<double> rankLoadFactor;
    // Synchronised ranks all-reduce this many gradient bytes after every step, once
    // the slowest has ended it, over `network` (network_link.h): a delay of the ring
    // all-reduce's time before each rank asks for its next batch. 0 bytes or an
    // unknown link: no exchange.
    // With several nodes (ModelSetting::nodes), `network` joins a node's ranks and
    // `betweenNodes` the nodes: a hierarchical all-reduce (network_link.h).
    double gradientBytes = 0.0;
    NetworkLink network;
    NetworkLink betweenNodes;
    // LoaderLab's loader keeps its batch buffers in a pool: the first W x prefetch + 1
    // batches a rank's loader dispatches (1 with W = 0) fill buffers it has never used,
    // whose pages fault in as they are first written; the pin thread's first W x
    // prefetch + 1 pinned buffers too (taken to cost the same). The extra CPU work of
    // such a fill (faulting work:
    // see faultLanes), before the batch's load or pin. Zero for an engine that
    // allocates every batch anew (PyTorch's): its steady costs hold the faults.
    LinearCost firstFill;
    // Threads the machine faults in fresh pages for at once (processor_sharing.h): 1
    // where faults are served one at a time; 0 for no limit.
    double faultLanes = 0.0;
};

struct ModelSetting
{
    int workers = 2; // per rank; 0: the consumer loads each batch itself
    int batchSize = 32;
    int prefetchFactor = 2;
    Strategy strategy = Strategy::PerWorkerBatch;
    bool persistentWorkers = false;
    bool pinMemory = false;
    bool inOrder = true;
    bool dropLast = false;
    int cores = 1; // logical cores the workers and the consumer share
    // A machine as busy as it was while the calibrated run was recorded
    // (core/predict/busy_machine.h); both 0: an idle machine. The cores other
    // scheduling groups (other sessions, other cgroups) held: the run's threads share
    // cores - outsideCores. And other programs' busy threads in the run's own group,
    // always there, sharing those cores with the run's threads.
    double outsideCores = 0.0;
    double otherLoad = 0.0;
    int devices = 1; // data-parallel ranks per node, each with its own loader and W workers
    // Identical nodes, each with `cores` cores (and other programs' load) and `devices`
    // ranks; the barrier and the exchange join all devices x nodes ranks.
    int nodes = 1;
    bool syncDevices = true;
    std::int64_t samplesPerEpoch = 1024; // the dataset; each rank gets ceil(n / devices)
    int epochs = 1;                      // 0: until `batches`
    std::int64_t batches = 0;            // batches of all ranks together; 0: no limit
    int warmupBatches = 5;               // per rank, left out of the figures (docs/metrics.md)

    int ranks() const { return devices * nodes; }
};

// One consumed batch, times in seconds from the run's start.
struct PredictedBatch
{
    std::int64_t index = 0; // in the order the steps ended, as the trace numbers batches
    int epoch = 0;
    int rank = 0;
    std::int64_t ordinal = 0; // within its rank's epoch
    int worker = kConsumerThread;
    int samples = 0;
    double dispatch = 0.0;
    double loadStart = 0.0;
    double loadEnd = 0.0;
    double ready = 0.0; // in the reorder buffer (W = 0: loaded, before the pin)
    double pinStart = 0.0;
    double pinEnd = 0.0;
    double request = 0.0;
    double delivery = 0.0;
    double copyEnd = 0.0; // the copy starts at delivery
    double computeStart = 0.0;
    double computeEnd = 0.0;

    double wait() const { return delivery - request; }
};

struct Prediction
{
    std::vector<PredictedBatch> batches;
    // The figures of docs/metrics.md over the predicted trace, computed by the code
    // that summarises a measured run (warm-up left out per rank).
    RunSummary summary;
    double samplesPerSecond = 0.0; // summary.samplesPerSecMean
    double endToEndSeconds = 0.0;  // run start to the last step's end
    double inputBoundShare = 0.0;
    double firstBatchSeconds = 0.0; // delivery of the first batch
    double waitP50Seconds = 0.0;
    double waitP95Seconds = 0.0;
    // The lag (1..2W+2) with the strongest autocorrelation of rank 0's waits within
    // epochs (each epoch's first round left out); 1 when the waits are flat or no lag
    // stands out.
    int dominantWaitPeriod = 1;
};

// Runs the simulation. Throws std::invalid_argument for a setting or costs out of
// range (no limit at all, a negative cost, an empty distribution, ...), or a prediction
// longer than its times in nanoseconds can hold (about 290 years). Costs of hours or
// a year a batch are simulated as exactly as those of milliseconds.
Prediction predictLoader(const ModelCosts &costs, const ModelSetting &setting);

// The predicted batches as trace records (nanoseconds) and their worker spans, the
// form the summary, the plots and the CSV use.
std::vector<TraceRecord> predictedRecords(const std::vector<PredictedBatch> &batches);
std::vector<WorkerSpan> predictedSpans(const std::vector<PredictedBatch> &batches, int workers);

// Why `setting` or `costs` cannot be simulated; empty when they can.
std::string modelInputProblem(const ModelCosts &costs, const ModelSetting &setting);

} // namespace loaderlab
