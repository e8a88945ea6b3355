#pragma once

// knownCostRun: the trace and report of a run whose costs are known, for tests of
// what the loader model predicts from a run (core/predict/calibration.h) that must not
// depend on how fast the machine running the test is. W per-worker workers on C
// logical cores; every batch of B synthetic samples costs `workSeconds` of one core to
// load; the W workers load a round of W batches together, each at min(1, C / W) of a
// core, so a round takes workSeconds x max(1, W / C); no step, no hand-over, no
// worker start-up, no first fill. Delivered as soon as loaded, batch k ends at the
// end of its round, and the summary's samples/s (docs/metrics.md: the samples after
// the warm-up over the time from the warm-up's last delivery to the end) is known in
// advance for any setting whose rounds the warm-up ends with (its batches a multiple
// of the workers): W x B samples per round time.

#include "core/io/summary_json.h"
#include "core/record/trace_record.h"
#include "core/stats/run_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

struct KnownCostRun
{
    std::vector<loaderlab::TraceRecord> records;
    loaderlab::RunReport report;
};

// `batches` a multiple of `workers`; `warmupBatches` the run's warm-up (the config's).
inline KnownCostRun knownCostRun(int workers, int cores, int batchSize, int batches,
                                 double workSeconds, int warmupBatches)
{
    using namespace loaderlab;
    KnownCostRun run;
    RunConfig &c = run.report.config;
    c.dataset.kind = DatasetKind::Synthetic;
    c.dataset.syntheticShape = {3, 32, 32};
    c.dataset.syntheticSamples = std::int64_t{batches} * batchSize;
    c.loader.numWorkers = workers;
    c.loader.batchSize = batchSize;
    c.consumer.kind = ConsumerKind::None;
    c.epochs = 1;
    c.warmupBatches = warmupBatches;
    run.report.configVersions.push_back({0, 0, 0, c});
    run.report.machine.logicalCores = cores;
    run.report.state = "finished";
    const double round = workSeconds * std::max(1.0, static_cast<double>(workers) / cores);
    const auto ns = [](double seconds) { return std::llround(seconds * 1e9); };
    std::int64_t consumerFree = 0;
    for (int k = 0; k < batches; ++k) {
        TraceRecord r;
        r.index = k;
        r.worker = k % workers;
        r.samples = batchSize;
        r.dispatchNs = 1; // at the start (0 would read as the PyTorch engine's "unknown")
        r.loadStartNs = ns((k / workers) * round);
        r.loadEndNs = ns((k / workers + 1) * round);
        r.readyNs = r.loadEndNs;
        r.requestNs = consumerFree;
        r.deliveryNs = std::max(r.readyNs, r.requestNs);
        r.computeStartNs = r.computeEndNs = consumerFree = r.deliveryNs;
        run.records.push_back(r);
    }
    run.report.summary = summarize(run.records, {}, workers, c.warmupBatches, 0);
    return run;
}
