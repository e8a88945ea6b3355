#include "core/engine/pytorch/pytorch_engine.h"

#include "core/engine/pytorch/pytorch_run.h"
#include "core/loader/open_dataset.h"
#include "core/system/regular_file.h"

#include <stdexcept>

namespace loaderlab {

PyTorchEngine::PyTorchEngine()
    : m_emptyTrace(std::make_shared<TraceLog>())
{
}

PyTorchEngine::~PyTorchEngine()
{
    // ~PyTorchRun stops its Python process group and joins its reader: outside the
    // lock, which the reader's end callback may take through this engine.
    std::shared_ptr<PyTorchRun> run;
    {
        const std::lock_guard lock(m_mutex);
        run = std::move(m_run);
    }
}

std::shared_ptr<PyTorchRun> PyTorchEngine::current() const
{
    const std::lock_guard lock(m_mutex);
    return m_run;
}

void PyTorchEngine::start(const RunConfig &config, const EngineCancel &cancelled)
{
    if (config.engine != EngineKind::PyTorch)
        throw std::invalid_argument(std::string("the PyTorch engine cannot run a config for the ")
                                    + engineLabel(config.engine) + " engine");
    if (const std::string why = engineProblem(config); !why.empty())
        throw std::invalid_argument(why);
    // The dataset is opened here as LoaderLab's engine opens it, so a missing, empty
    // or unreadable folder is refused the same way, naming the path and the reason,
    // before Python starts (a folder scan: milliseconds for thousands of files). A
    // pipeline file is Python's to open: here only whether it is a readable file.
    if (config.dataset.kind == DatasetKind::Python) {
        if (const std::string problem = regularFileProblem(config.dataset.path); !problem.empty())
            throw DatasetError(config.dataset.path + ": cannot read the pipeline file: " + problem);
    } else if (openDataset(config.dataset)->size() == 0) {
        throw DatasetError(config.dataset.path + ": the dataset is empty");
    }
    auto run = std::make_shared<PyTorchRun>();
    std::function<void(RunState)> onEnded;
    {
        const std::lock_guard lock(m_mutex);
        run->setTraceRetention(m_keepBatches, m_heldForReader);
        onEnded = m_onEnded;
    }
    if (onEnded)
        run->setOnEnded(onEnded);
    // A run still going ends first, as on LoaderLab's engine; its trace stays until
    // the new run has started.
    if (const auto previous = current())
        previous->stop();
    try {
        run->start(config, cancelled); // throws: the previous run stays the current one
    } catch (const std::invalid_argument &) {
        throw;
    } catch (const std::runtime_error &e) {
        throw EngineUnavailable(e.what());
    }
    std::shared_ptr<PyTorchRun> previous;
    {
        const std::lock_guard lock(m_mutex);
        previous = std::exchange(m_run, run);
    }
    previous.reset(); // joins its reader here, not on a thread that reads it
}

void PyTorchEngine::stop()
{
    if (const auto run = current())
        run->stop();
}

void PyTorchEngine::pause()
{
    if (const auto run = current())
        run->pause();
}

void PyTorchEngine::resume()
{
    if (const auto run = current())
        run->resume();
}

void PyTorchEngine::reconfigure(const LoaderConfig &loader, const ConsumerConfig &consumer,
                                MarkerKind kind, std::string detail)
{
    const auto run = current();
    if (!run)
        throw std::invalid_argument("the PyTorch engine has no run to reconfigure");
    run->reconfigure(loader, consumer, kind, std::move(detail));
}

std::string PyTorchEngine::takeReconfigureError()
{
    const auto run = current();
    return run ? run->takeReconfigureError() : std::string();
}

RunState PyTorchEngine::state() const
{
    const auto run = current();
    return run ? run->state() : RunState::Idle;
}

bool PyTorchEngine::waitForEnd(int timeoutMs) const
{
    const auto run = current();
    return run ? run->wait(timeoutMs) : true;
}

std::shared_ptr<const TraceLog> PyTorchEngine::trace() const
{
    const auto run = current();
    return run ? run->trace() : m_emptyTrace;
}

RunConfig PyTorchEngine::config() const
{
    const auto run = current();
    RunConfig config;
    config.engine = EngineKind::PyTorch;
    return run ? run->config() : config;
}

std::string PyTorchEngine::error() const
{
    const auto run = current();
    return run ? run->error() : std::string();
}

bool PyTorchEngine::refused() const
{
    const auto run = current();
    return run && run->refused();
}

std::string PyTorchEngine::datasetDescription() const
{
    const auto run = current();
    return run ? run->datasetDescription() : std::string();
}

int PyTorchEngine::liveThreads() const
{
    // The reader thread and the Python process group live until the run has ended.
    const auto run = current();
    if (!run)
        return 0;
    const RunState s = run->state();
    return s == RunState::Running || s == RunState::Paused ? 1 : 0;
}

std::map<std::string, std::string> PyTorchEngine::versions() const
{
    // The machine's library versions are makeRunReport's (a whole report here would
    // summarise the trace twice); torch's own is in the dataset description.
    return {{"engine", "pytorch"}};
}

std::int64_t PyTorchEngine::startUnixNs() const
{
    const auto run = current();
    return run ? run->startUnixNs() : 0;
}

void PyTorchEngine::setOnEnded(std::function<void(RunState)> callback)
{
    const std::lock_guard lock(m_mutex);
    m_onEnded = std::move(callback);
}

void PyTorchEngine::setTraceRetention(std::size_t keepBatches, bool heldForReader)
{
    const std::lock_guard lock(m_mutex);
    m_keepBatches = keepBatches;
    m_heldForReader = heldForReader;
}

} // namespace loaderlab
