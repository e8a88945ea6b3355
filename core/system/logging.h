#pragma once

#include <string>

namespace loaderlab {

// Sends spdlog's default logger to stderr at `level` (trace, debug, info, warn,
// error, critical, off). Throws std::invalid_argument for an unknown level.
void setupLogging(const std::string &level);

} // namespace loaderlab
