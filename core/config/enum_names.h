#pragma once

// One table of names per enum of the config ("loaderlab", "pytorch"), read both
// ways: value to name for JSON, markers and the command line, name to value for
// parsing, and the list of names for a choice field's `choices`, so that the
// names of a choice are written once.

#include <array>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace loaderlab {

template <typename Enum, std::size_t N>
using EnumNames = std::array<std::pair<Enum, std::string_view>, N>;

// The value's name ("" for a value the table lacks, which a complete table never has;
// a literal, so that `.data()` is a C string either way).
template <typename Enum, std::size_t N>
constexpr std::string_view enumName(const EnumNames<Enum, N> &names, Enum value)
{
    for (const auto &[v, name] : names) {
        if (v == value)
            return name;
    }
    return "";
}

template <typename Enum, std::size_t N>
constexpr std::optional<Enum> enumFromName(const EnumNames<Enum, N> &names, std::string_view name)
{
    for (const auto &[v, n] : names) {
        if (n == name)
            return v;
    }
    return std::nullopt;
}

// The names in table order, for a choice field.
template <typename Enum, std::size_t N>
std::vector<std::string_view> enumChoices(const EnumNames<Enum, N> &names)
{
    std::vector<std::string_view> choices;
    for (const auto &entry : names)
        choices.push_back(entry.second);
    return choices;
}

} // namespace loaderlab
