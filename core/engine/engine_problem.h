#pragma once

// What keeps a config or an engine from running, as data: EngineProblem for a config
// (pytorchConfigProblemKind(), engineProblemKind() in core/engine/engine.h),
// PythonCheck for the PyTorch engine's Python (engineCheck()). The messages word them
// in English, the window in its language (widgets/common/engine_text.h).

#include <string>

namespace loaderlab {

enum class EngineProblem {
    None,
    DatasetKind,         // the engine does not read config.dataset.kind
    PipelineWithoutFile, // a Python pipeline run without its file (dataset.path)
    ModelStep,           // a model step, on the PyTorch engine
    SampleParallel,      // the sample-parallel strategy, on the PyTorch engine
    DataParallel,        // more than one device, on the PyTorch engine
};

// Whether `python` can import torch and torchvision, as data: pytorchEngineProblem()
// words it in English, the window in its language (widgets/common/engine_text.h).
struct PythonCheck
{
    enum class Result {
        Ok,
        CannotImport, // `detail`: Python's last line on stderr, if any
        TimedOut,     // `seconds`: the limit
        Stopped,      // `cancelled` said so
        CannotStart,  // `detail`: why the process did not start
    };
    Result result = Result::Ok;
    std::string python;
    std::string detail;
    double seconds = 0.0;
};

} // namespace loaderlab
