#pragma once

// The engines' refusals in the window's language. Core words them in English for the
// command line and error messages (engineProblem(), pythonCheckText()); the window
// words the same data (EngineProblem, PythonCheck) with tr(), in the context
// "EngineText". The English sources are core's sentences, word for word, so an
// untranslated window says what the command line says (test_german_ui checks it).

#include "core/config/run_config.h"
#include "core/engine/engine_problem.h"

#include <QString>

namespace loaderlab::enginetext {

// Why `config` cannot run on its engine; "" when it can.
QString problem(const loaderlab::RunConfig &config);

// Why the PyTorch engine's Python cannot run it; "" when it can.
QString pythonProblem(const loaderlab::PythonCheck &check);

} // namespace loaderlab::enginetext
