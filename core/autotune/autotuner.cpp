#include "core/autotune/autotuner.h"

#include "core/autotune/live_loader_model.h"

#include "core/engine/engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace loaderlab {

AutotuneSettings autotuneSettingsOf(const RunConfig &c)
{
    return {c.loader.numWorkers, c.loader.prefetchFactor, c.loader.batchSize};
}

int autotuneWorkerCap(const RunConfig &config, int cores)
{
    const int forStep = config.consumer.kind == ConsumerKind::Model ? 1 : 0;
    return std::max(1, cores - forStep);
}

AutotuneLimits autotuneLimits(const RunConfig &start, const AutotuneOptions &options, int cores)
{
    AutotuneLimits limits;
    const int cap = options.maxWorkers > 0 ? options.maxWorkers
                                           : autotuneWorkerCap(start, std::max(1, cores));
    limits.maxWorkers = std::max(cap, start.loader.numWorkers);
    limits.maxPrefetch = options.maxPrefetch;
    limits.tuneBatch = options.tuneBatch;
    limits.minBatch = options.minBatch;
    limits.maxBatch = options.maxBatch;
    return limits;
}

namespace {

// A window's length before rounding to epochs: windowRounds rounds of W batches, at
// least minWindowBatches.
std::int64_t roundsSpan(int workers, const AutotuneOptions &options)
{
    return std::max(options.minWindowBatches, options.windowRounds * std::max(1, workers));
}

} // namespace

AutotuneWindow autotuneWindow(std::int64_t firstBatch, int workers, std::size_t measuredTo,
                              const AutotuneOptions &options, std::int64_t epochBatches)
{
    const int w = std::max(1, workers);
    // With countRebuild the first record is the last of the old settings: its step's
    // end is where the rebuild's wait starts. Windows may share that one record.
    const std::size_t from =
        options.countRebuild
            ? std::max(static_cast<std::size_t>(std::max<std::int64_t>(firstBatch - 1, 0)),
                       measuredTo)
            : std::max(static_cast<std::size_t>(firstBatch) + w + 1, measuredTo + 1);
    std::int64_t span = roundsSpan(workers, options);
    if (epochBatches > 0 && epochBatches <= kAutotuneEpochWindows * span)
        span = (span + epochBatches - 1) / epochBatches * epochBatches;
    return {from, from + static_cast<std::size_t>(span)};
}

std::int64_t autotuneEpochBatches(std::span<const TraceRecord> records, int batchSize)
{
    if (records.empty() || batchSize <= 0)
        return 0;
    // The epoch before the last record's, held from its first batch: a record of an
    // earlier epoch precedes it, or it begins the run.
    const std::int32_t epoch = records.back().epoch - 1;
    std::int64_t samples = 0;
    bool whole = false;
    for (auto it = records.rbegin(); it != records.rend(); ++it) {
        if (it->epoch > epoch)
            continue;
        if (it->epoch < epoch) {
            whole = true;
            break;
        }
        samples += it->samples + it->skipped;
        whole = it->index == 0;
    }
    return whole && samples > 0 ? (samples + batchSize - 1) / batchSize : 0;
}

double autotuneWindowRate(std::span<const TraceRecord> records)
{
    if (records.size() < 2)
        return 0.0;
    std::int64_t samples = 0;
    for (std::size_t i = 1; i < records.size(); ++i)
        samples += records[i].samples;
    const double seconds =
        static_cast<double>(records.back().computeEndNs - records.front().computeEndNs) / 1e9;
    return seconds > 0 ? static_cast<double>(samples) / seconds : 0.0;
}

Autotuner::Autotuner(Engine &run, AutotuneOptions options, MoveCallback onMove)
    : m_run(run)
    , m_options(options)
    , m_onMove(std::move(onMove))
    , m_incumbent(autotuneSettingsOf(run.config()))
{
    m_options.countRebuild = m_options.countRebuild || run.changesRestartWorkers();
    m_thread = std::jthread([this](std::stop_token stop) { loop(stop); });
}

Autotuner::~Autotuner()
{
    stop();
}

void Autotuner::stop()
{
    m_thread.request_stop();
    if (m_thread.joinable() && m_thread.get_id() != std::this_thread::get_id())
        m_thread.join();
}

AutotuneSettings Autotuner::incumbent() const
{
    const std::lock_guard lock(m_mutex);
    return m_incumbent;
}

int Autotuner::moves() const
{
    const std::lock_guard lock(m_mutex);
    return m_moves;
}

bool Autotuner::holding() const
{
    const std::lock_guard lock(m_mutex);
    return m_holding;
}

int Autotuner::windows() const
{
    const std::lock_guard lock(m_mutex);
    return m_windows;
}

int Autotuner::calibrations() const
{
    const std::lock_guard lock(m_mutex);
    return m_calibrations;
}

AutotuneLoad Autotuner::lastLoad() const
{
    const std::lock_guard lock(m_mutex);
    return m_lastLoad;
}

bool Autotuner::waitForHold(std::chrono::milliseconds timeout) const
{
    std::unique_lock lock(m_mutex);
    m_changed.wait_for(lock, timeout, [this] { return m_holding || m_ended; });
    return m_holding;
}

void Autotuner::loop(std::stop_token stop)
{
    if (m_options.model)
        tuneWithModel(stop);
    else
        tune(stop);
    {
        const std::lock_guard lock(m_mutex);
        m_holding = false;
        m_ended = true;
    }
    m_changed.notify_all();
}

void Autotuner::tune(std::stop_token stop)
{
    const RunConfig start = m_run.config();
    AutotuneSearch search(
        autotuneSettingsOf(start),
        autotuneLimits(start, m_options, static_cast<int>(std::thread::hardware_concurrency())));
    const auto trace = m_run.trace();
    std::optional<AutotuneMove> pendingMove;
    std::size_t measuredTo = 0; // windows never overlap: the next starts after this batch
    while (!stop.stop_requested() && !m_run.finished()) {
        // Apply what is to be measured, unless it runs already.
        const AutotuneSettings want = search.next();
        bool refused = false;
        const std::string detail = pendingMove                  ? pendingMove->detail
                                   : want == search.incumbent() ? std::string("back")
                                                                : std::string("trying");
        if (!apply(stop, want, detail, &refused)) {
            if (!refused)
                return;
            // Refused (the memory budget): measure the incumbent instead.
            search.report(0.0);
            publish(search.incumbent(), search.holding(), search.windows(), std::nullopt);
            continue;
        }
        pendingMove.reset();
        // Settle, then measure a window.
        const auto [from, to] = autotuneWindow(trace->configVersions().back().firstBatch,
                                               want.workers, measuredTo, m_options,
                                               epochBatches(want));
        const auto window = measure(stop, want, from, to);
        if (!window)
            return;
        measuredTo = to;
        const auto move = search.report(window->samplesPerSec, window->otherCores);
        publish(search.incumbent(), search.holding(), search.windows(), move);
        if (move) {
            pendingMove = move;
            if (m_onMove)
                m_onMove(*move);
        }
    }
}

bool Autotuner::apply(std::stop_token stop, const AutotuneSettings &want, const std::string &detail,
                      bool *refused)
{
    *refused = false;
    const RunConfig current = m_run.config();
    if (autotuneSettingsOf(current) == want)
        return !stop.stop_requested();
    const auto trace = m_run.trace();
    const std::size_t versions = trace->configVersions().size();
    LoaderConfig loader = current.loader;
    loader.numWorkers = want.workers;
    loader.prefetchFactor = want.prefetch;
    loader.batchSize = want.batchSize;
    try {
        m_run.reconfigure(loader, current.consumer, MarkerKind::Autotune, detail);
    } catch (const std::exception &) {
        *refused = true;
        return false;
    }
    while (trace->configVersions().size() == versions) {
        if (!pause(stop))
            return false;
    }
    return true;
}

std::int64_t Autotuner::epochBatches(const AutotuneSettings &setting) const
{
    // An epoch that counts for the window is at most kAutotuneEpochWindows of the
    // longest span; the last two such epochs' batches (one whole, one under way) are
    // enough to find one.
    const auto trace = m_run.trace();
    const std::int64_t longest = roundsSpan(setting.workers, m_options);
    const auto reach = static_cast<std::size_t>(2 * kAutotuneEpochWindows * longest + 2);
    const std::size_t size = trace->size();
    const std::vector<TraceRecord> records = trace->records(size > reach ? size - reach : 0, size);
    return autotuneEpochBatches(records, setting.batchSize);
}

std::optional<AutotuneMeasure> Autotuner::measure(std::stop_token stop,
                                                  const AutotuneSettings &setting, std::size_t from,
                                                  std::size_t to)
{
    const auto trace = m_run.trace();
    while (trace->size() <= from) {
        if (!pause(stop))
            return std::nullopt;
    }
    AutotuneMeasure window;
    window.start = sampleCpu();
    while (trace->size() <= to) {
        if (!pause(stop))
            return std::nullopt;
    }
    window.end = sampleCpu();
    const std::vector<TraceRecord> records = trace->records(from, to + 1);
    window.samplesPerSec = autotuneWindowRate(records);
    const MachineLoad load = machineLoadBetween(window.start, window.end);
    window.otherCores = liveOtherDemand(records, m_run.config(), load.cores, load);
    {
        const std::lock_guard lock(m_mutex);
        m_lastLoad = {window.otherCores, load.cores};
    }
    spdlog::debug("autotune: workers {}, prefetch {}, batch {}: {:.1f} samples/s over batches "
                  "{}..{}, other programs' demand {:.2f} cores",
                  setting.workers, setting.prefetch, setting.batchSize, window.samplesPerSec, from,
                  to, window.otherCores.value_or(0.0));
    return window;
}

bool Autotuner::pause(std::stop_token stop)
{
    {
        std::unique_lock lock(m_pauseMutex);
        // The stop token's callback wakes the wait: a stop never waits out the interval.
        m_pauseWake.wait_for(lock, stop, m_options.pollInterval, [] { return false; });
    }
    return !stop.stop_requested() && !m_run.finished();
}

void Autotuner::publish(AutotuneSettings incumbent, bool holding, int windows,
                        const std::optional<AutotuneMove> &move, int calibrations)
{
    {
        const std::lock_guard lock(m_mutex);
        m_incumbent = incumbent;
        m_moves += move ? 1 : 0;
        m_holding = holding;
        m_windows = windows;
        m_calibrations = calibrations;
    }
    m_changed.notify_all();
}

} // namespace loaderlab
