#include "core/engine/engine.h"

#include "core/engine/loaderlab_engine.h"
#include "core/engine/pytorch/pytorch_engine.h"
#include "core/engine/pytorch/pytorch_run.h"

namespace loaderlab {

bool Engine::finished() const
{
    const RunState s = state();
    return s == RunState::Finished || s == RunState::Stopped || s == RunState::Failed;
}

std::string engineCannot(EngineKind engine, EngineFeature feature)
{
    if (engine == EngineKind::LoaderLab)
        return {};
    switch (feature) {
    case EngineFeature::Reconfigure: // a new DataLoader over the rest of the epoch
    case EngineFeature::Pause:
    case EngineFeature::DataParallel: // rank processes with torch.distributed
        return {};
    case EngineFeature::ModelStep:
        return "the PyTorch engine runs the simulated step (sleep) or none, not a LibTorch model";
    case EngineFeature::SampleParallel:
        return "PyTorch's DataLoader builds each batch in one worker: no sample-parallel";
    case EngineFeature::PeakMemory:
        return "the PyTorch engine does not measure the step's memory";
    case EngineFeature::MaxBatch:
        return "max-batch measures a LibTorch model's step, which the PyTorch engine does not run";
    }
    return {};
}

EngineProblem engineProblemKind(const RunConfig &config)
{
    if (config.engine == EngineKind::PyTorch)
        return pytorchConfigProblemKind(config);
    return datasetKindInfo(config.dataset.kind).loaderlabEngine ? EngineProblem::None
                                                                : EngineProblem::DatasetKind;
}

std::string engineProblem(const RunConfig &config)
{
    if (config.engine == EngineKind::PyTorch)
        return pytorchConfigProblem(config);
    if (engineProblemKind(config) == EngineProblem::DatasetKind)
        return "LoaderLab's engine cannot run a "
               + std::string(datasetKindName(config.dataset.kind))
               + " dataset (a Python pipeline file runs on PyTorch's DataLoader: engine pytorch)";
    return {};
}

PythonCheck engineCheck(EngineKind engine, const EngineCancel &cancelled)
{
    if (engine != EngineKind::PyTorch)
        return {};
    return pytorchPythonCheck(pytorchEnginePython(cancelled), cancelled);
}

const char *engineLabel(EngineKind engine)
{
    return engine == EngineKind::PyTorch ? "PyTorch DataLoader" : "LoaderLab";
}

std::unique_ptr<Engine> makeEngine(EngineKind kind)
{
    if (kind == EngineKind::PyTorch)
        return std::make_unique<PyTorchEngine>();
    return std::make_unique<LoaderLabEngine>();
}

} // namespace loaderlab
