#pragma once

// REQUIRE_PYTORCH(): skips the test, with the reason, where the PyTorch engine's
// Python (found as the product finds it: $LOADERLAB_PYTHON, python3, Debian's
// /usr/bin/python3) cannot import torch and torchvision. Asked once per process.

#include "core/engine/pytorch/pytorch_run.h"

#include <QtTest>

#include <string>

namespace loaderlab::test {

// Why Python cannot run the PyTorch engine here; "" when it can.
inline const std::string &noPyTorchHere()
{
    static const std::string why = pytorchEngineProblem(pytorchEnginePython());
    return why;
}

} // namespace loaderlab::test

#define REQUIRE_PYTORCH()                                                                          \
    do {                                                                                           \
        if (const std::string &why = loaderlab::test::noPyTorchHere(); !why.empty())               \
            QSKIP(qPrintable(QString::fromStdString("no PyTorch here: " + why)));                  \
    } while (false)
