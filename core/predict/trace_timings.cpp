#include "core/predict/trace_timings.h"

#include "core/predict/calibration.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>
#include <tuple>

namespace loaderlab {
namespace {

double spanSeconds(std::int64_t ns)
{
    return static_cast<double>(ns) / 1e9;
}

// The median wall time a sample's share of a batch's load took after the warm-up,
// fresh buffers left out: per sample, so that a run whose batches differ in size (an
// epoch's last batch is short) expects each batch's load by its own samples.
double steadyLoadSecondsPerSample(const std::vector<const TraceRecord *> &steady,
                                  const std::vector<TraceRecord> &records,
                                  const std::vector<char> &fresh)
{
    std::vector<double> spans;
    for (const TraceRecord *r : steady) {
        const std::int64_t samples = r->samples + r->skipped;
        if (r->loadEndNs > r->loadStartNs && r->worker != kConsumerThread && samples > 0
            && !fresh[static_cast<std::size_t>(r - records.data())])
            spans.push_back(spanSeconds(r->loadEndNs - r->loadStartNs)
                            / static_cast<double>(samples));
    }
    if (spans.empty())
        return 0.0;
    std::nth_element(spans.begin(), spans.begin() + static_cast<std::ptrdiff_t>(spans.size() / 2),
                     spans.end());
    return spans[spans.size() / 2];
}

} // namespace

std::string calibrationMillis(double seconds)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
    return text;
}

std::vector<const TraceRecord *> afterWarmup(const std::vector<TraceRecord> &records, int warmup)
{
    std::map<int, int> seen;
    std::vector<const TraceRecord *> kept;
    for (const TraceRecord &r : records) {
        if (seen[r.rank]++ >= warmup)
            kept.push_back(&r);
    }
    if (kept.empty()) {
        for (const TraceRecord &r : records)
            kept.push_back(&r);
    }
    return kept;
}

std::vector<char> freshBufferBatches(const std::vector<TraceRecord> &records,
                                     const RunConfig &config)
{
    std::vector<char> fresh(records.size(), 0);
    if (config.engine != EngineKind::LoaderLab || records.empty())
        return fresh;
    const LoaderConfig &loader = config.loader;
    const std::size_t pool = loader.numWorkers > 0
                                 ? static_cast<std::size_t>(loader.numWorkers)
                                           * static_cast<std::size_t>(loader.prefetchFactor)
                                       + 1
                                 : 1;
    std::map<int, std::vector<std::size_t>> byRank; // the first config's batches
    int first = INT_MAX;
    for (const TraceRecord &r : records)
        first = std::min(first, r.configVersion);
    for (std::size_t k = 0; k < records.size(); ++k) {
        if (records[k].configVersion == first)
            byRank[records[k].rank].push_back(k);
    }
    for (auto &[rank, list] : byRank) {
        // In dispatch order (delivery may be out of order), the epoch breaking ties.
        std::stable_sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
            return std::tie(records[a].epoch, records[a].dispatchNs)
                   < std::tie(records[b].epoch, records[b].dispatchNs);
        });
        for (std::size_t k = 0; k < std::min(pool, list.size()); ++k)
            fresh[list[k]] = 1;
    }
    return fresh;
}

// The consumer's own time from a step's end to its next request, within epochs (an
// epoch's start holds the workers' restart), less the barrier and the gradient
// exchange where the record timed them. With synchronised ranks each step's gap is
// the smallest of the ranks': the others' hold their wait at a barrier not timed.
double afterStepSeconds(const std::vector<TraceRecord> &records, const RunConfig &config)
{
    // After each rank's warm-up, as every other cost (the first steps' records can
    // hold one-off set-up: the trace's first allocations); all of them when that
    // leaves none.
    std::map<int, std::vector<double>> gaps;
    for (const int warmup : {config.warmupBatches, 0}) {
        std::map<int, const TraceRecord *> previous;
        std::map<int, int> seen;
        for (const TraceRecord &r : records) {
            const TraceRecord *before = previous[r.rank];
            if (before && before->epoch == r.epoch && seen[r.rank] >= warmup) {
                // The barrier and the gradient exchange the record timed are the
                // model's own activities, not the consumer's.
                const std::int64_t synced = before->syncStartNs > 0
                                                ? std::max(before->syncEndNs, before->exchangeEndNs)
                                                      - before->syncStartNs
                                                : 0;
                gaps[r.rank].push_back(
                    std::max(0.0, spanSeconds(r.requestNs - before->computeEndNs
                                              - std::max<std::int64_t>(synced, 0))));
            }
            previous[r.rank] = &r;
            ++seen[r.rank];
        }
        if (!gaps.empty())
            break;
    }
    const bool barrier = config.devices > 1 && config.syncDevices;
    double total = 0.0;
    std::size_t count = 0;
    if (!barrier) {
        for (const auto &[rank, list] : gaps) {
            for (const double g : list)
                total += g;
            count += list.size();
        }
    } else if (!gaps.empty()) {
        std::size_t steps = SIZE_MAX;
        for (const auto &[rank, list] : gaps)
            steps = std::min(steps, list.size());
        for (std::size_t k = 0; k < steps; ++k) {
            double least = gaps.begin()->second[k];
            for (const auto &[rank, list] : gaps)
                least = std::min(least, list[k]);
            total += least;
        }
        count = steps;
    }
    return count > 0 ? total / static_cast<double>(count) : 0.0;
}

// Per-worker batches: the mean time from a worker having its next task (dispatched,
// and its previous batch loaded) to starting it. Only where the trace has dispatch
// times (LoaderLab's engine): without them an idle worker's wait would count.
double taskStartSeconds(const std::vector<const TraceRecord *> &steady)
{
    std::map<std::tuple<int, int, int>, const TraceRecord *> previous;
    double total = 0.0;
    std::size_t count = 0;
    for (const TraceRecord *r : steady) {
        if (r->worker < 0 || r->dispatchNs <= 0)
            continue;
        const TraceRecord *&before = previous[{r->rank, r->epoch, r->worker}];
        if (before && before->loadEndNs <= r->loadStartNs) {
            const std::int64_t available = std::max(r->dispatchNs, before->loadEndNs);
            total += std::max(0.0, spanSeconds(r->loadStartNs - available));
            ++count;
        }
        before = r;
    }
    return count > 0 ? total / static_cast<double>(count) : 0.0;
}

// The run's first epoch: how much later than expected its first batch was loaded,
// counted from the run's start: the workers' start and whatever the first loads cost
// beyond later ones (a decoder's set-up, cold caches). Expected: a steady load of that
// batch's samples, after the delay the model adds to every task, and the first fill of
// a fresh buffer where the batch had one. (The warm-up batches this holds are left
// out of the sample costs.)
// A later epoch's restart (workers that are not persistent): how much later than that
// delay the epoch's first load started, counted from the rank's last step of the epoch
// before. Not its load's end: that batch's load is among the drawn sample costs
// already, and where the first batches of an epoch hold heavier samples (a folder read
// in order, its large photos first) counting their excess again would charge it twice.
void measureStartup(const std::vector<TraceRecord> &records, Calibration &cal)
{
    const std::vector<char> fresh = freshBufferBatches(records, cal.config);
    const double perSample = steadyLoadSecondsPerSample(
        afterWarmup(records, cal.config.warmupBatches), records, fresh);
    std::map<std::pair<int, int>, std::int64_t> lastEnd;
    std::map<std::pair<int, int>, const TraceRecord *> firstLoaded;
    std::map<std::pair<int, int>, std::int64_t> firstStart;
    for (const TraceRecord &r : records) {
        auto &end = lastEnd[{r.rank, r.epoch}];
        end = std::max(end, r.computeEndNs);
        if (r.worker == kConsumerThread)
            continue;
        const TraceRecord *&at = firstLoaded[{r.rank, r.epoch}];
        if (!at || r.loadEndNs < at->loadEndNs)
            at = &r;
        const auto [start, added] = firstStart.try_emplace({r.rank, r.epoch}, r.loadStartNs);
        if (!added)
            start->second = std::min(start->second, r.loadStartNs);
    }
    double first = 0.0, later = 0.0;
    int firstCount = 0, laterCount = 0;
    for (const auto &[key, r] : firstLoaded) {
        const auto [rank, epoch] = key;
        const auto before = lastEnd.find({rank, epoch - 1});
        if (before == lastEnd.end()) { // the rank's first epoch in the trace
            const double expected = perSample * static_cast<double>(r->samples + r->skipped)
                                    + cal.costs.taskStartSeconds
                                    + (fresh[static_cast<std::size_t>(r - records.data())]
                                           ? cal.costs.firstFill.at(r->samples + r->skipped)
                                           : 0.0);
            first += std::max(0.0, spanSeconds(r->loadEndNs) - expected);
            ++firstCount;
        } else if (!cal.config.loader.persistentWorkers) {
            const std::int64_t started = firstStart.at(key);
            later += std::max(0.0,
                              spanSeconds(started - before->second) - cal.costs.taskStartSeconds);
            ++laterCount;
        }
    }
    ModelCosts &c = cal.costs;
    c.startupSeconds = firstCount > 0 ? first / firstCount : 0.0;
    if (laterCount > 0) {
        c.restartSeconds = later / laterCount;
    } else if (cal.config.engine == EngineKind::PyTorch) {
        c.restartSeconds = c.startupSeconds;
        cal.notes.push_back("no epoch restarted the workers: a restart is taken to cost the "
                            "first start-up, "
                            + calibrationMillis(c.startupSeconds));
    }
}

} // namespace loaderlab
