#pragma once

// RunConfig <-> JSON: the config file of `loaderlab run --config` and of the GUI's
// save/load, and the "config" object of every summary. Keys are documented in
// docs/config.md; unknown keys and bad values are errors, never silently ignored.

#include "core/run/run_config.h"

#include <nlohmann/json.hpp>

#include <string>

namespace loaderlab {

nlohmann::json toJson(const RunConfig &config);

// Starts from `base` and overrides what `json` holds. Throws std::invalid_argument
// naming the key and the reason.
RunConfig runConfigFromJson(const nlohmann::json &json, RunConfig base = {});

// Reads a JSON config file. Throws std::invalid_argument naming the file.
RunConfig loadRunConfig(const std::string &path, RunConfig base = {});
void saveRunConfig(const std::string &path, const RunConfig &config);

} // namespace loaderlab
