// The step ceiling: the run's consumer fed from batches loaded once and kept in memory,
// so that loading costs nothing: the job's speed with a perfect loader.

#include "core/consumer/consumer.h"
#include "core/limits/ceiling_probes.h"
#include "core/loader/loader.h"
#include "core/system/clock.h"

#include <cstdio>
#include <vector>

namespace loaderlab {
namespace {

constexpr int kReplayBatches = 3;

} // namespace

Ceiling probeStep(const DatasetPtr &dataset, const RunConfig &config, double seconds,
                  std::stop_token stop)
{
    Ceiling ceiling{CeilingKind::Step,
                    0.0,
                    {},
                    "a faster step: half precision, channels-last, a smaller model, a faster "
                    "device"};
    if (config.consumer.kind == ConsumerKind::None) {
        ceiling.basis = "not measured: the run has no step (consumer none)";
        return ceiling;
    }
    const std::int64_t origin = steadyNowNs();
    std::vector<BatchPtr> batches;
    {
        LoaderConfig loader = config.loader;
        loader.pinMemory = false;
        Loader load(dataset, loader, origin);
        load.startEpoch(0);
        while (static_cast<int>(batches.size()) < kReplayBatches && !stop.stop_requested()) {
            BatchPtr batch = load.next();
            if (!batch)
                break;
            batches.push_back(std::move(batch));
        }
    }
    if (batches.empty()) {
        ceiling.basis = "not measured: no batch could be loaded";
        return ceiling;
    }
    const std::unique_ptr<Consumer> consumer = makeConsumer(config.consumer, origin, stop);
    TraceRecord record;
    consumer->consume(*batches.front(), record, stop); // warm-up: a model's first step
    std::int64_t steps = 0;
    std::int64_t samples = 0;
    const std::int64_t start = steadyNowNs();
    const auto limitNs = static_cast<std::int64_t>(seconds * 1e9);
    while (!stop.stop_requested() && (steps < 3 || steadyNowNs() - start < limitNs)) {
        const Batch &batch = *batches[static_cast<std::size_t>(steps) % batches.size()];
        consumer->consume(batch, record, stop);
        ++steps;
        samples += batch.size();
    }
    const double elapsed = static_cast<double>(steadyNowNs() - start) / 1e9;
    ceiling.samplesPerSecond = elapsed > 0.0 ? static_cast<double>(samples) / elapsed : 0.0;
    char basis[200];
    std::snprintf(basis, sizeof basis,
                  "replay: %lld steps of %s on %zu batches kept in memory, %.2f ms a step",
                  static_cast<long long>(steps), consumer->description().c_str(), batches.size(),
                  steps > 0 ? elapsed * 1e3 / static_cast<double>(steps) : 0.0);
    ceiling.basis = basis;
    return ceiling;
}

} // namespace loaderlab
