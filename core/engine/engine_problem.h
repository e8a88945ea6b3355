#pragma once

// EngineProblem: what keeps a config from running on its engine, as data
// (pytorchConfigProblemKind(), engineProblemKind() in core/engine/engine.h): the
// messages word it in English, the window in its language (widgets/common/engine_text.h).

namespace loaderlab {

enum class EngineProblem {
    None,
    DatasetKind,         // the engine does not read config.dataset.kind
    PipelineWithoutFile, // a Python pipeline run without its file (dataset.path)
    ModelStep,           // a model step, on the PyTorch engine
    SampleParallel,      // the sample-parallel strategy, on the PyTorch engine
    DataParallel,        // more than one device, on the PyTorch engine
};

} // namespace loaderlab
