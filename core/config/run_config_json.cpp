#include "core/config/run_config_json.h"

#include "core/config/config_fields.h"
#include "core/system/atomic_file.h"
#include "core/system/regular_file.h"
#include "core/system/safe_json.h"

#include <fstream>
#include <stdexcept>

namespace loaderlab {
namespace {

using nlohmann::json;

json::json_pointer pointerOf(std::string_view key)
{
    std::string path = "/";
    for (char c : key)
        path += c == '.' ? '/' : c;
    return json::json_pointer(path);
}

void readObject(const json &object, const std::string &prefix, RunConfig &config)
{
    if (!object.is_object())
        throw ConfigError(prefix.empty() ? "config" : prefix,
                          "expected an object, got " + describeJsonValue(object));
    for (const auto &[name, value] : object.items()) {
        const std::string key = prefix.empty() ? name : prefix + "." + name;
        if (findConfigField(key))
            setConfigField(config, key, value);
        else if (isConfigGroup(key))
            readObject(value, key, config);
        else
            throw ConfigError(key.size() > 80 ? key.substr(0, 77) + "..." : key, "unknown key");
    }
}

} // namespace

json toJson(const RunConfig &config)
{
    json out = json::object();
    for (const ConfigField &field : configFields())
        out[pointerOf(field.key)] = field.get(config);
    return out;
}

RunConfig runConfigFromJson(const json &j, RunConfig config)
{
    readObject(j, "", config);
    validate(config.loader);
    return config;
}

json parseConfigJson(std::istream &in)
{
    try {
        return json::parse(in, [](int depth, json::parse_event_t, json &) {
            if (depth > kMaxConfigDepth)
                throw std::invalid_argument("nested deeper than " + std::to_string(kMaxConfigDepth)
                                            + " levels");
            return true;
        });
    } catch (const json::exception &e) {
        // parse_error, and out_of_range for a number too large for a double (1e400).
        throw std::invalid_argument(std::string("not valid JSON (") + e.what() + ")");
    }
}

RunConfig loadRunConfig(const std::string &path, RunConfig base)
{
    // A FIFO would block the reader until a writer comes; a directory reads as a
    // stream that fails with a cryptic message.
    if (const std::string problem = regularFileProblem(path); !problem.empty())
        throw std::invalid_argument(path + ": cannot read config file: " + problem);
    std::ifstream in(path);
    if (!in)
        throw std::invalid_argument(path + ": cannot open config file");
    try {
        return runConfigFromJson(parseConfigJson(in), std::move(base));
    } catch (const std::invalid_argument &e) {
        throw std::invalid_argument(path + ": " + e.what());
    }
}

void saveRunConfig(const std::string &path, const RunConfig &config)
{
    writeFileAtomically(
        path, [&](std::ostream &out) { out << toSafeJson(toJson(config)).dump(2) << '\n'; });
}

} // namespace loaderlab
