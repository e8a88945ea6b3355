#pragma once

// RunConfig <-> JSON: the config file of `loaderlab run --config` and of the GUI's
// save/load, and the "config" object of every summary. The keys are the key paths
// of core/config/config_fields.h (documented in docs/config.md); an unknown key, a value
// of the wrong type or out of range is an error naming the key, never ignored or
// converted.

#include "core/config/run_config.h"

#include <nlohmann/json.hpp>

#include <istream>
#include <string>

namespace loaderlab {

// Deepest nesting a config may have; deeper input is refused while parsing, before
// a deeply nested value is built (a config nests three levels).
inline constexpr int kMaxConfigDepth = 32;

nlohmann::json toJson(const RunConfig &config);

// Starts from `base` and overrides what `json` holds. Throws ConfigError
// (std::invalid_argument) naming the key and the reason.
RunConfig runConfigFromJson(const nlohmann::json &json, RunConfig base = {});

// Parses JSON text, refusing nesting deeper than kMaxConfigDepth. Throws
// std::invalid_argument with the reason (not valid JSON, nested too deeply).
nlohmann::json parseConfigJson(std::istream &in);

// Reads a JSON config file. Throws std::invalid_argument naming the file.
RunConfig loadRunConfig(const std::string &path, RunConfig base = {});
void saveRunConfig(const std::string &path, const RunConfig &config);

} // namespace loaderlab
