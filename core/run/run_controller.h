#pragma once

// RunController: owns one run's thread (the "consumer", like a training loop) and
// its Loader. Start, stop (prompt, also mid-batch), pause/resume, and reconfigure
// while running: the loader is rebuilt with the new settings and resumes at the same
// sample of the epoch, so every sample is still delivered once per epoch, and the
// trace gets a marker. Nothing here blocks on a reader of the trace.
//
// With RunConfig::devices = N > 1 the run is data-parallel on this host: N ranks,
// each with its own loader over its shard of every epoch (as DistributedSampler:
// padded to equal length, seeded shuffle), its own workers and its own consumer
// (core/config/rank_config.h); with syncDevices every step waits for every rank. The
// ranks share one trace (records and worker spans carry their rank), the batch limit
// counts the batches of all ranks, a failing rank stops the run with its reason, and a
// reconfiguration applies to every rank at its next batch.

#include "core/config/run_config.h"
#include "core/dataset/dataset.h"
#include "core/run/run_state.h"
#include "core/trace/trace_log.h"

#include <functional>
#include <memory>
#include <string>

namespace loaderlab {

// What RunController::start checks before it opens anything: the loader's settings
// (validate()) and the device count against its config field. Throws
// std::invalid_argument with the reason.
void validateRun(const RunConfig &config);

class RunController
{
public:
    RunController();
    ~RunController(); // stops the run and joins its threads
    RunController(const RunController &) = delete;
    RunController &operator=(const RunController &) = delete;

    // Checks the config against the memory budget, opens the dataset on the calling
    // thread (throws DatasetError or std::invalid_argument, leaving any previous
    // run's trace in place), then starts the run thread. A run still going is stopped first.
    void start(const RunConfig &config);
    // Starts on a dataset the caller opened (config.dataset is kept for the record).
    void start(const RunConfig &config, DatasetPtr dataset);
    void stop();
    void pause();
    void resume();
    // Throws std::invalid_argument for settings the loader refuses or that would not
    // fit the memory budget (core/memory/run_memory.h). Applied at the next batch boundary. A
    // consumer that cannot be built there keeps the current one (the loader change still applies)
    // and leaves its reason for takeReconfigureError(); the run goes on. The marker is of `kind`
    // with `detail` (the autotuner's moves: MarkerKind::Autotune).
    void reconfigure(const LoaderConfig &loader, const ConsumerConfig &consumer,
                     MarkerKind kind = MarkerKind::Reconfigure, std::string detail = {});
    // Why the last reconfiguration's consumer was not applied, once; empty if it was.
    std::string takeReconfigureError();

    RunState state() const;
    bool finished() const; // Finished, Stopped or Failed
    // Waits up to `timeoutMs` (negative: forever) for the run to end.
    bool waitForEnd(int timeoutMs = -1) const;

    std::shared_ptr<const TraceLog> trace() const;
    RunConfig config() const;  // with the latest reconfiguration applied
    std::string error() const; // why the run failed, empty otherwise
    std::string datasetDescription() const;
    std::int64_t startNs() const; // steady-clock origin of the trace's timestamps

    // Highest Consumer::peakMemoryBytes() of the run so far (0: not measured).
    std::int64_t peakMemoryBytes() const;

    // Threads of the current run still alive (run thread, workers, pin thread).
    int liveThreads() const;

    // Called on the run thread when the run ends. Must not block.
    void setOnEnded(std::function<void(RunState)> callback);
    // For the runs started after this: keep only about the last `keepBatches`
    // batches in the trace (0: all), held for a reader that must see every batch
    // when `heldForReader` (see TraceLog). The summary still covers every batch.
    void setTraceRetention(std::size_t keepBatches, bool heldForReader = false);

    class Impl;

private:
    std::unique_ptr<Impl> m_impl;
};

} // namespace loaderlab
