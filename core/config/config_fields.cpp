#include "core/config/config_fields.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

namespace loaderlab {
namespace {

using nlohmann::json;

std::string numberText(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.15g", value);
    return text;
}

std::string floatText(double value)
{
    std::string out = numberText(value);
    if (std::isfinite(value) && out.find_first_of(".e") == std::string::npos)
        out += ".0"; // a float shows as one: "4.0" is not the integer 4
    return out;
}

// The integer held by `value`, or the reason it is not one within the field's range.
std::string checkInteger(const ConfigField &f, const json &value)
{
    if (!value.is_number_integer())
        return "expected an integer, got " + describeJsonValue(value);
    const double number = value.is_number_unsigned()
                              ? static_cast<double>(value.get<std::uint64_t>())
                              : static_cast<double>(value.get<std::int64_t>());
    if (!configFieldAllows(f, number))
        return describeJsonValue(value) + " is out of range (" + configFieldRange(f) + ")";
    return {};
}

bool isScalar(const json &value)
{
    return value.is_string() || value.is_boolean()
           || (value.is_number() && std::isfinite(value.get<double>()));
}

// Why `name` cannot name an entry of an Object field ("" when it can): entry names
// are keys on the command line and in sweep axes, so they are plain identifiers.
std::string entryNameProblem(std::string_view name)
{
    const bool plain = !name.empty() && name.size() <= kMaxEntryNameBytes
                       && std::ranges::all_of(name, [](char c) {
                              return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                                     || (c >= '0' && c <= '9') || c == '_' || c == '-';
                          });
    if (plain)
        return {};
    std::string shown(name.substr(0, 40));
    return "'" + shown + "' is not an entry name (letters, digits, _ and -, at most "
           + std::to_string(kMaxEntryNameBytes) + ")";
}

std::string checkValue(const ConfigField &f, const json &value)
{
    switch (f.type) {
    case FieldType::Integer:
        return checkInteger(f, value);
    case FieldType::Unsigned:
        if (!value.is_number_integer()
            || (value.is_number_integer() && !value.is_number_unsigned()
                && value.get<std::int64_t>() < 0))
            return "expected an integer 0..18446744073709551615, got " + describeJsonValue(value);
        return {};
    case FieldType::Number:
        if (!value.is_number())
            return "expected a number, got " + describeJsonValue(value);
        if (!configFieldAllows(f, value.get<double>()))
            return describeJsonValue(value) + " is out of range (" + configFieldRange(f) + ")";
        return {};
    case FieldType::Boolean:
        return value.is_boolean() ? std::string()
                                  : "expected true or false, got " + describeJsonValue(value);
    case FieldType::Text:
    case FieldType::Path:
        return value.is_string() ? std::string()
                                 : "expected a string, got " + describeJsonValue(value);
    case FieldType::Choice:
        if (!value.is_string()
            || std::find(f.choices.begin(), f.choices.end(), value.get<std::string>())
                   == f.choices.end())
            return "unknown value " + describeJsonValue(value) + " (" + configFieldRange(f) + ")";
        return {};
    case FieldType::Object:
        if (!value.is_object())
            return "expected an object of names and values, got " + describeJsonValue(value);
        if (value.size() > kMaxObjectEntries)
            return "more than " + std::to_string(kMaxObjectEntries) + " entries";
        for (const auto &[name, entry] : value.items()) {
            if (std::string why = entryNameProblem(name); !why.empty())
                return why;
            if (!isScalar(entry))
                return "\"" + name + "\": expected a string, number or boolean, got "
                       + describeJsonValue(entry);
        }
        return {};
    case FieldType::Scalar:
        return isScalar(value)
                   ? std::string()
                   : "expected a string, number or boolean, got " + describeJsonValue(value);
    case FieldType::Shape:
        if (!value.is_array() || value.size() != 3)
            return "expected [C, H, W], got " + describeJsonValue(value);
        for (const json &dim : value) {
            if (std::string why = checkInteger(f, dim); !why.empty())
                return "expected [C, H, W] of integers " + configFieldRange(f) + ", got "
                       + describeJsonValue(dim) + " in it";
        }
        return {};
    }
    return {};
}

// Command-line text -> JSON value of the field's type; nullopt when it does not parse.
std::optional<json> parseText(const ConfigField &f, std::string_view text)
{
    const char *begin = text.data();
    const char *end = text.data() + text.size();
    switch (f.type) {
    case FieldType::Integer: {
        std::int64_t value = 0;
        const auto [ptr, ec] = std::from_chars(begin, end, value);
        if (ec != std::errc() || ptr != end || text.empty())
            return std::nullopt;
        return json(value);
    }
    case FieldType::Unsigned: {
        std::uint64_t value = 0;
        const auto [ptr, ec] = std::from_chars(begin, end, value);
        if (ec != std::errc() || ptr != end || text.empty())
            return std::nullopt;
        return json(value);
    }
    case FieldType::Number: {
        double value = 0;
        const auto [ptr, ec] = std::from_chars(begin, end, value);
        if (ec != std::errc() || ptr != end || text.empty())
            return std::nullopt;
        return json(value);
    }
    case FieldType::Boolean:
        if (text == "true" || text == "on" || text == "1")
            return json(true);
        if (text == "false" || text == "off" || text == "0")
            return json(false);
        return std::nullopt;
    case FieldType::Text:
    case FieldType::Path:
    case FieldType::Choice:
        return json(std::string(text));
    case FieldType::Object:
        return json::accept(text) ? std::optional<json>(json::parse(text)) : std::nullopt;
    case FieldType::Scalar: {
        // A number, true or false, or a JSON string, is itself; any other text a string.
        if (!text.empty() && json::accept(text)) {
            json value = json::parse(text);
            if (isScalar(value))
                return value;
        }
        return json(std::string(text));
    }
    case FieldType::Shape: {
        json shape = json::array();
        std::string_view rest = text;
        for (int i = 0; i < 3; ++i) {
            const std::size_t x = rest.find('x');
            const std::string_view part = i < 2 ? rest.substr(0, x) : rest;
            if ((i < 2 && x == std::string_view::npos) || part.empty())
                return std::nullopt;
            std::int64_t dim = 0;
            const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), dim);
            if (ec != std::errc() || ptr != part.data() + part.size())
                return std::nullopt;
            shape.push_back(dim);
            if (i < 2)
                rest = rest.substr(x + 1);
        }
        return shape;
    }
    }
    return std::nullopt;
}

const char *expectedText(FieldType type)
{
    switch (type) {
    case FieldType::Integer:
    case FieldType::Unsigned:
        return "an integer";
    case FieldType::Number:
        return "a number";
    case FieldType::Boolean:
        return "true or false";
    case FieldType::Shape:
        return "CxHxW such as 3x224x224";
    case FieldType::Text:
    case FieldType::Path:
    case FieldType::Choice:
        return "a name";
    case FieldType::Object:
        return "a JSON object such as {\"size\": 64}";
    case FieldType::Scalar:
        return "a value";
    }
    return "a value";
}

} // namespace

ConfigError::ConfigError(std::string key, const std::string &reason)
    : std::invalid_argument(key + ": " + reason)
    , m_key(std::move(key))
{
}

const ConfigField *findConfigField(std::string_view key)
{
    for (const ConfigField &f : configFields()) {
        if (f.key == key)
            return &f;
    }
    const std::size_t dot = key.rfind('.');
    if (dot == std::string_view::npos)
        return nullptr;
    const ConfigField *object = findConfigField(key.substr(0, dot));
    if (!object || object->type != FieldType::Object)
        return nullptr;
    return configObjectEntry(*object);
}

json entriesToJson(const std::map<std::string, std::string> &entries)
{
    json object = json::object();
    for (const auto &[name, text] : entries)
        object[name] = json::parse(text);
    return object;
}

std::map<std::string, std::string> entriesFromJson(const json &object)
{
    std::map<std::string, std::string> entries;
    for (const auto &[name, value] : object.items())
        entries[name] = value.dump();
    return entries;
}

const ConfigField &configField(std::string_view key)
{
    const ConfigField *f = findConfigField(key);
    if (!f)
        throw ConfigError(std::string(key), "unknown key");
    return *f;
}

bool configFieldAllows(const ConfigField &f, double value)
{
    const bool aboveMin = f.minExclusive ? value > f.min : value >= f.min;
    return std::isfinite(value) && aboveMin && value <= f.max;
}

bool isConfigGroup(std::string_view key)
{
    return std::ranges::any_of(configFields(), [key](const ConfigField &f) {
        return f.key.size() > key.size() && f.key.starts_with(key) && f.key[key.size()] == '.';
    });
}

json getConfigField(const RunConfig &config, std::string_view key)
{
    const ConfigField &f = configField(key);
    if (f.type != FieldType::Scalar)
        return f.get(config);
    // An entry: the object's value under its name, null when it has none.
    const std::size_t dot = key.rfind('.');
    const json object = configField(key.substr(0, dot)).get(config);
    const auto it = object.find(std::string(key.substr(dot + 1)));
    return it == object.end() ? json() : *it;
}

void setConfigField(RunConfig &config, std::string_view key, const json &value)
{
    const ConfigField &f = configField(key);
    std::string why = checkValue(f, value);
    if (why.empty() && f.check)
        why = f.check(value);
    if (!why.empty())
        throw ConfigError(std::string(key), why);
    if (f.type != FieldType::Scalar) {
        f.set(config, value);
        return;
    }
    const std::size_t dot = key.rfind('.');
    const std::string name(key.substr(dot + 1));
    if (std::string problem = entryNameProblem(name); !problem.empty())
        throw ConfigError(std::string(key), problem);
    const ConfigField &object = configField(key.substr(0, dot));
    json entries = object.get(config);
    entries[name] = value;
    setConfigField(config, object.key, entries);
}

void setConfigFieldFromText(RunConfig &config, std::string_view key, std::string_view text)
{
    const ConfigField &f = configField(key);
    const std::optional<json> value = parseText(f, text);
    if (!value) {
        std::string shown(text.substr(0, 40));
        throw ConfigError(std::string(key), std::string("expected ") + expectedText(f.type)
                                                + ", got '" + shown
                                                + (text.size() > 40 ? "...'" : "'"));
    }
    setConfigField(config, key, *value);
}

std::string configValueText(const ConfigField &field, const json &value)
{
    if (value.is_string())
        return value.get<std::string>();
    if (value.is_boolean())
        return value.get<bool>() ? "true" : "false";
    if (field.type == FieldType::Shape && value.is_array() && value.size() == 3)
        return configValueText(field, value[0]) + "x" + configValueText(field, value[1]) + "x"
               + configValueText(field, value[2]);
    if (value.is_number_float())
        return numberText(value.get<double>());
    return value.dump();
}

std::string configFieldRange(const ConfigField &f)
{
    switch (f.type) {
    case FieldType::Integer:
    case FieldType::Shape:
        return numberText(f.min) + ".." + numberText(f.max);
    case FieldType::Number:
        return (f.minExclusive ? "> " + numberText(f.min) + " and <= " : numberText(f.min) + "..")
               + numberText(f.max);
    case FieldType::Unsigned:
        return "0..18446744073709551615";
    case FieldType::Boolean:
        return "true or false";
    case FieldType::Choice: {
        std::string text;
        for (std::string_view choice : f.choices)
            text += (text.empty() ? "" : ", ") + std::string(choice);
        return text;
    }
    case FieldType::Text:
    case FieldType::Path:
        return "text";
    case FieldType::Object:
        return "names and values";
    case FieldType::Scalar:
        return "a string, number or boolean";
    }
    return {};
}

std::string describeJsonValue(const json &value)
{
    if (value.is_array())
        return "an array of " + std::to_string(value.size());
    if (value.is_object())
        return "an object";
    if (value.is_number_float())
        return floatText(value.get<double>());
    // Scalars only: dump() cannot recurse here, and the text is cut.
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > 40)
        text = text.substr(0, 37) + "...";
    return text;
}

} // namespace loaderlab
