#pragma once

// Starts a training script under loaderlab_probe as a user runs one: Python found as
// the product finds it, the probe module on PYTHONPATH (where `loaderlab python-path`
// puts it), no torch.distributed or Slurm job variables of the test's own, then
// `environment` ("KEY=VALUE" each) on top.

#include "core/engine/pytorch/python_probe.h"
#include "core/engine/pytorch/pytorch_run.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

namespace probeloop {

inline void start(QProcess &process, const char *script, const QStringList &args,
                  const QStringList &environment = {})
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *key : {"RANK", "WORLD_SIZE", "SLURM_PROCID", "SLURM_NTASKS"})
        env.remove(QLatin1String(key));
    env.insert(QStringLiteral("PYTHONPATH"),
               QString::fromStdString(loaderlab::loaderlabPythonDir()));
    for (const QString &assignment : environment)
        env.insert(assignment.section(QLatin1Char('='), 0, 0),
                   assignment.section(QLatin1Char('='), 1));
    process.setProcessEnvironment(env);
    process.start(QString::fromStdString(loaderlab::pytorchEnginePython()),
                  QStringList{QStringLiteral("-c"), QString::fromUtf8(script)} + args);
}

} // namespace probeloop
