#pragma once

// The one description of every RunConfig field: its key path ("loader.num_workers"),
// type, range, default, label and help text, its command-line flag, and how to read
// and write it. The JSON config, the `run` options, the diff behind reconfiguration
// markers and the window's controls are all driven from this table, so a field is
// added in one place. Labels and help texts are English; the window translates them
// in the context "ConfigField".

#include "core/config/run_config.h"

#include <nlohmann/json.hpp>

#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace loaderlab {

enum class FieldType {
    Integer,  // JSON integer, within [min, max]
    Unsigned, // JSON integer 0..2^64-1 (seeds)
    Number,   // JSON number, finite, within [min, max] (or (min, max] when minExclusive)
    Boolean,
    Text,
    Path,   // text naming a file or folder (bytes; may not be UTF-8)
    Choice, // one of `choices`
    Shape,  // [C, H, W], each within [min, max]; "CxHxW" on the command line
    Object, // a JSON object of named scalars (dataset.args); its entries are fields too
    Scalar, // one entry of an Object field ("dataset.args.NAME"): a string, number or boolean
};

// Rows are written with designated initialisers (config_field_table.cpp); a member
// a row leaves out takes the default here.
struct ConfigField
{
    std::string_view key; // JSON key path, dot-separated
    FieldType type;
    std::string_view label;          // short, capitalised: "Workers"
    std::string_view help;           // one sentence
    std::string_view flag = {};      // `run` option without "--"; empty: none
    std::string_view valueName = {}; // the option's value placeholder
    double min = 0.0;
    double max = 0.0;
    bool minExclusive = false;
    std::vector<std::string_view> choices = {};
    // The option is a switch that sets this boolean field to `false` (--out-of-order).
    bool flagSetsFalse = false;
    nlohmann::json (*get)(const RunConfig &) = nullptr;
    // Called with a value already checked against type, range and choices.
    void (*set)(RunConfig &, const nlohmann::json &) = nullptr;
    // Extra check of a checked value; returns the reason it is refused, or empty.
    std::string (*check)(const nlohmann::json &) = nullptr;
};

// A setting that is unknown, of the wrong type or out of range. what() is
// "KEY: reason", so every such error names the key the same way.
class ConfigError : public std::invalid_argument
{
public:
    ConfigError(std::string key, const std::string &reason);
    const std::string &key() const { return m_key; }

private:
    std::string m_key;
};

std::span<const ConfigField> configFields();
// nullptr when `key` names no field. "OBJECT.NAME", an entry of an Object field
// (dataset.args.size), finds that field's entry row (type Scalar, key "OBJECT.*"):
// getConfigField/setConfigField read and write the entry named in the key.
const ConfigField *findConfigField(std::string_view key);
// The entry row of an Object field ("dataset.args.*"), nullptr for any other field.
const ConfigField *configObjectEntry(const ConfigField &object);
// An Object field's entries as held in RunConfig (name -> the value's JSON text) and
// as JSON; entriesFromJson takes an object already checked (setConfigField).
nlohmann::json entriesToJson(const std::map<std::string, std::string> &entries);
std::map<std::string, std::string> entriesFromJson(const nlohmann::json &object);
// The most entries an Object field holds, and the longest entry name.
inline constexpr std::size_t kMaxObjectEntries = 64;
inline constexpr std::size_t kMaxEntryNameBytes = 64;
// The field `key` names; throws ConfigError "KEY: unknown key" when there is none.
// Code that restates a field's range (validate(), the run's checks) reads it here.
const ConfigField &configField(std::string_view key);
// Whether a number lies in the field's range (Integer, Number and Shape's sides).
bool configFieldAllows(const ConfigField &field, double value);
// True when `key` is a group of fields ("loader", "consumer.model").
bool isConfigGroup(std::string_view key);

// Throw ConfigError naming the key (unknown key, wrong type, out of range).
nlohmann::json getConfigField(const RunConfig &config, std::string_view key);
void setConfigField(RunConfig &config, std::string_view key, const nlohmann::json &value);
// Parses command-line text by the field's type ("4", "2.5", "true", "3x224x224").
void setConfigFieldFromText(RunConfig &config, std::string_view key, std::string_view text);

// A value as it is shown in markers and tables: strings plain, shapes CxHxW,
// numbers in their shortest form.
std::string configValueText(const ConfigField &field, const nlohmann::json &value);
// The field's range or choices for help texts and errors: "0..1024", "eval, train".
std::string configFieldRange(const ConfigField &field);

// Short description of a JSON value for error messages; never dumps a whole
// (possibly deeply nested) array or object.
std::string describeJsonValue(const nlohmann::json &value);

} // namespace loaderlab
