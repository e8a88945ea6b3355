#pragma once

// Whole numbers read from JSON that LoaderLab did not just write (a run summary, a
// probe's file, a shard record). nlohmann::json's get<std::int64_t>() turns a float
// such as 1e77 into an integer with a static_cast, which is undefined behaviour when the
// value does not fit; these refuse anything but an integer in range, naming the field.

#include <cstdint>
#include <limits>
#include <string_view>

#include <nlohmann/json.hpp>

namespace loaderlab {

// `value` as an integer in [low, high]; otherwise std::invalid_argument("WHAT: expected
// a whole number from LOW to HIGH, got TYPE").
std::int64_t jsonInteger(const nlohmann::json &value, std::string_view what,
                         std::int64_t low = std::numeric_limits<std::int64_t>::min(),
                         std::int64_t high = std::numeric_limits<std::int64_t>::max());

// object[key] as jsonInteger does, or `fallback` when the object has no such key.
std::int64_t jsonIntegerOr(const nlohmann::json &object, const char *key, std::int64_t fallback,
                           std::int64_t low = std::numeric_limits<std::int64_t>::min(),
                           std::int64_t high = std::numeric_limits<std::int64_t>::max());

} // namespace loaderlab
