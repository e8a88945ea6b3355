#include "core/system/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

namespace loaderlab {

void setupLogging(const std::string &level)
{
    const auto parsed = spdlog::level::from_str(level);
    // from_str maps anything unknown to "off"; only accept "off" when asked for.
    if (parsed == spdlog::level::off && level != "off")
        throw std::invalid_argument("unknown log level '" + level
                                    + "' (use trace, debug, info, warn, error, critical or off)");
    auto logger = spdlog::get("loaderlab");
    if (!logger)
        logger = spdlog::stderr_color_mt("loaderlab");
    spdlog::set_default_logger(logger);
    spdlog::set_level(parsed);
    spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
}

} // namespace loaderlab
