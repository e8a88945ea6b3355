// Replay (RunConfig::replayBatches): once a rank has delivered the batches it keeps,
// its loader stops (its workers are joined) and the step runs on those batches, in
// turn, for the rest of the run. Each replayed batch is traced like a loaded one that
// was ready at once: its request, delivery and load stamps are the moment the step asks
// for it, so its wait is 0 and the run's rate from here on is the step's alone.

#include "core/run/run_controller_impl.h"
#include "core/system/clock.h"

#include <algorithm>
#include <string>
#include <utility>

namespace loaderlab {

namespace {

std::int64_t replayBatchesPerEpoch(std::int64_t samples, const LoaderConfig &loader)
{
    const std::int64_t size = std::max(loader.batchSize, 1);
    return loader.dropLast ? samples / size : (samples + size - 1) / size;
}

} // namespace

void RunController::Impl::replayKept(Rank &self, RunScope &scope,
                                     std::unique_ptr<Consumer> &consumer,
                                     std::vector<BatchPtr> kept, int epoch, std::int64_t inEpoch,
                                     std::stop_token stop)
{
    const RunConfig &cfg = self.cfg;
    replaceLoader(self.rank, stop, nullptr);
    self.replaying = true;
    {
        std::lock_guard lock(appendMutex);
        trace->addMarker({nextIndex,
                          steadyNowNs() - originNs,
                          MarkerKind::Replay,
                          self.configVersion,
                          {},
                          std::to_string(kept.size())});
    }
    // The epochs go on as the loader would have run them, batch for batch.
    const std::int64_t perEpoch = replayBatchesPerEpoch(scope.dataset->size(), cfg.loader);
    std::size_t next = 0;
    for (; cfg.epochs == 0 || epoch < cfg.epochs; ++epoch, inEpoch = 0) {
        if (inEpoch == 0 && epoch > 0)
            markEpoch(epoch, self.configVersion);
        for (; inEpoch < perEpoch; ++inEpoch) {
            if (!waitWhilePaused(stop, self.rank))
                throw LoaderStopped();
            applyPendingChanges(stop, self, scope, consumer, epoch);
            const Batch &batch = *kept[next];
            next = (next + 1) % kept.size();
            TraceRecord record;
            record.epoch = epoch;
            record.worker = kConsumerThread;
            record.samples = batch.size();
            record.rank = self.rank;
            record.configVersion = self.configVersion;
            const std::int64_t now = steadyNowNs() - originNs;
            record.dispatchNs = record.loadStartNs = record.loadEndNs = now;
            record.readyNs = record.requestNs = record.deliveryNs = now;
            consumer->consume(batch, record, stop);
            notePeakMemory(*consumer);
            std::int64_t index = 0;
            if (!appendBatch(nullptr, record, cfg.maxBatches, index))
                throw LimitReached();
            if (stop.stop_requested())
                throw LoaderStopped();
            if (limitReached(cfg, index + 1))
                throw LimitReached();
        }
    }
}

} // namespace loaderlab
