#pragma once

// PyTorchEngine: PyTorch's DataLoader (worker processes, Python) behind the Engine
// interface; the run itself is PyTorchRun's (core/engine/pytorch/pytorch_run.h). Each start
// makes a new PyTorchRun (a new Python process); until the first, the engine holds
// an empty trace.

#include "core/engine/engine.h"

#include <mutex>

namespace loaderlab {

class PyTorchRun;

class PyTorchEngine final : public Engine
{
public:
    PyTorchEngine();
    ~PyTorchEngine() override;

    EngineKind kind() const override { return EngineKind::PyTorch; }
    void start(const RunConfig &config, const EngineCancel &cancelled = {}) override;
    void stop() override;
    void pause() override;
    void resume() override;
    void reconfigure(const LoaderConfig &loader, const ConsumerConfig &consumer,
                     MarkerKind kind = MarkerKind::Reconfigure, std::string detail = {}) override;
    std::string takeReconfigureError() override;
    RunState state() const override;
    bool waitForEnd(int timeoutMs = -1) const override;
    std::shared_ptr<const TraceLog> trace() const override;
    RunConfig config() const override;
    std::string error() const override;
    bool refused() const override;
    std::string datasetDescription() const override;
    std::int64_t peakMemoryBytes() const override { return 0; }
    int liveThreads() const override;
    bool changesRestartWorkers() const override { return true; }
    std::map<std::string, std::string> versions() const override;
    std::int64_t startUnixNs() const override;
    void setOnEnded(std::function<void(RunState)> callback) override;
    void setTraceRetention(std::size_t keepBatches, bool heldForReader) override;

private:
    // The current run; replaced (under m_mutex) by start(), so readers take it under
    // the lock and use it outside.
    std::shared_ptr<PyTorchRun> current() const;

    mutable std::mutex m_mutex;
    std::shared_ptr<PyTorchRun> m_run;
    std::shared_ptr<const TraceLog> m_emptyTrace;
    std::function<void(RunState)> m_onEnded;
    std::size_t m_keepBatches = 0;
    bool m_heldForReader = false;
};

} // namespace loaderlab
