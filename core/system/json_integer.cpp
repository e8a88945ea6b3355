#include "json_integer.h"

#include <stdexcept>
#include <string>

namespace loaderlab {

std::int64_t jsonInteger(const nlohmann::json &value, std::string_view what, std::int64_t low,
                         std::int64_t high)
{
    const auto refuse = [&](const std::string &got) {
        return std::invalid_argument(std::string(what) + ": expected a whole number from "
                                     + std::to_string(low) + " to " + std::to_string(high)
                                     + ", got " + got);
    };
    if (!value.is_number_integer())
        throw refuse(value.is_number() ? value.dump() : std::string("a ") + value.type_name());
    if (value.is_number_unsigned()) {
        const auto u = value.get<std::uint64_t>();
        if (high < 0 || u > static_cast<std::uint64_t>(high))
            throw refuse(std::to_string(u));
        return static_cast<std::int64_t>(u);
    }
    const auto v = value.get<std::int64_t>();
    if (v < low || v > high)
        throw refuse(std::to_string(v));
    return v;
}

std::int64_t jsonIntegerOr(const nlohmann::json &object, const char *key, std::int64_t fallback,
                           std::int64_t low, std::int64_t high)
{
    const auto it = object.find(key);
    return it == object.end() ? fallback : jsonInteger(*it, key, low, high);
}

} // namespace loaderlab
