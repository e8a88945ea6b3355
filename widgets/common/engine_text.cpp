#include "widgets/common/engine_text.h"

#include "core/config/dataset_config.h"
#include "core/engine/engine.h"

#include <QCoreApplication>

namespace loaderlab::enginetext {

QString problem(const RunConfig &config)
{
    const bool pytorch = config.engine == EngineKind::PyTorch;
    const QString kind = QString::fromUtf8(datasetKindName(config.dataset.kind));
    switch (engineProblemKind(config)) {
    case EngineProblem::None:
        return {};
    case EngineProblem::DatasetKind:
        return pytorch ? QCoreApplication::translate(
                             "EngineText",
                             "the PyTorch engine reads image folders, tensor files, synthetic data "
                             "and Python pipeline files, not %1 datasets")
                             .arg(kind)
                       : QCoreApplication::translate(
                             "EngineText",
                             "LoaderLab's engine cannot run a %1 dataset (a Python pipeline file "
                             "runs on PyTorch's DataLoader: engine pytorch)")
                             .arg(kind);
    case EngineProblem::PipelineWithoutFile:
        return QCoreApplication::translate(
            "EngineText",
            "a Python pipeline run needs its file (dataset.path, --path my_pipeline.py)");
    case EngineProblem::ModelStep:
        return QCoreApplication::translate(
            "EngineText",
            "the PyTorch engine runs the simulated step (sleep) or none, not a model");
    case EngineProblem::SampleParallel:
        return QCoreApplication::translate(
            "EngineText",
            "PyTorch's DataLoader builds each batch in one worker: no sample-parallel");
    case EngineProblem::DataParallel:
        return QCoreApplication::translate(
            "EngineText",
            "the PyTorch engine's ranks synchronise every step, as "
            "DistributedDataParallel's do: independent devices are LoaderLab's engine "
            "only");
    }
    return {};
}

QString pythonProblem(const PythonCheck &check)
{
    const QString python = QString::fromStdString(check.python);
    const QString detail = QString::fromStdString(check.detail);
    switch (check.result) {
    case PythonCheck::Result::Ok:
        return {};
    case PythonCheck::Result::CannotImport:
        return detail.isEmpty()
                   ? QCoreApplication::translate(
                         "EngineText",
                         "%1 cannot import torch and torchvision; on Debian: apt-get install "
                         "python3-torch python3-torchvision")
                         .arg(python)
                   : QCoreApplication::translate(
                         "EngineText",
                         "%1 cannot import torch and torchvision (%2); on Debian: apt-get "
                         "install python3-torch python3-torchvision")
                         .arg(python, detail);
    case PythonCheck::Result::TimedOut:
        return QCoreApplication::translate(
                   "EngineText", "%1 cannot import torch and torchvision: timed out after %2 s "
                                 "(LOADERLAB_PYTORCH_CHECK_SECONDS sets the limit)")
            .arg(python, QString::number(check.seconds, 'g', 6));
    case PythonCheck::Result::Stopped:
        return QCoreApplication::translate("EngineText",
                                           "%1: the check for torch and torchvision was stopped")
            .arg(python);
    case PythonCheck::Result::CannotStart:
        return QCoreApplication::translate(
                   "EngineText",
                   "%1 (the PyTorch engine needs Python 3 with torch and torchvision)")
            .arg(detail);
    }
    return {};
}

} // namespace loaderlab::enginetext
