#pragma once

// The options of `loaderlab run` and how they become a RunConfig: a --config file
// first, then every flag given on the command line on top of it.

#include "core/run/run_config.h"

#include <QCommandLineParser>

#include <stdexcept>

namespace Cli {

void addRunOptions(QCommandLineParser &parser);

// Throws std::invalid_argument naming the option and the reason.
loaderlab::RunConfig runConfigFromOptions(const QCommandLineParser &parser);

} // namespace Cli
