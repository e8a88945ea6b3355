#pragma once

// LoaderLabEngine: LoaderLab's own loader (threads, C++) behind the Engine
// interface; the run itself is RunController's (core/run/run_controller.h).

#include "core/engine/engine.h"
#include "core/run/run_controller.h"

namespace loaderlab {

class LoaderLabEngine final : public Engine
{
public:
    EngineKind kind() const override { return EngineKind::LoaderLab; }
    void start(const RunConfig &config, const EngineCancel &cancelled = {}) override;
    void stop() override { m_run.stop(); }
    void pause() override { m_run.pause(); }
    void resume() override { m_run.resume(); }
    void reconfigure(const LoaderConfig &loader, const ConsumerConfig &consumer,
                     MarkerKind kind = MarkerKind::Reconfigure, std::string detail = {}) override
    {
        m_run.reconfigure(loader, consumer, kind, std::move(detail));
    }
    std::string takeReconfigureError() override { return m_run.takeReconfigureError(); }
    RunState state() const override { return m_run.state(); }
    bool waitForEnd(int timeoutMs = -1) const override { return m_run.waitForEnd(timeoutMs); }
    std::shared_ptr<const TraceLog> trace() const override { return m_run.trace(); }
    RunConfig config() const override { return m_run.config(); }
    std::string error() const override { return m_run.error(); }
    bool refused() const override { return false; } // start() refuses what cannot run
    std::string datasetDescription() const override { return m_run.datasetDescription(); }
    std::int64_t peakMemoryBytes() const override { return m_run.peakMemoryBytes(); }
    int liveThreads() const override { return m_run.liveThreads(); }
    bool changesRestartWorkers() const override { return false; }
    std::map<std::string, std::string> versions() const override
    {
        return {{"engine", "loaderlab"}};
    }
    void setOnEnded(std::function<void(RunState)> callback) override
    {
        m_run.setOnEnded(std::move(callback));
    }
    void setTraceRetention(std::size_t keepBatches, bool heldForReader) override
    {
        m_run.setTraceRetention(keepBatches, heldForReader);
    }

    // The run itself, for what only LoaderLab's engine has (a dataset opened by the
    // caller, tests of its threads).
    RunController &controller() { return m_run; }

private:
    RunController m_run;
};

} // namespace loaderlab
